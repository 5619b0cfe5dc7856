"""Proof that a task family honours the contract, in one call: :func:`check_family`.

A plugin author runs the checks the built-in families pass (from a script, or from pytest through the plugin
:mod:`wason.testing.pytest_plugin`)::

    from wason.testing import check_family
    from mypackage.mygame import FAMILY

    print(check_family(FAMILY))  # raises FamilyCheckFailed listing every check that failed

Importing this package is cheap: the store, the engine, the reports and the command line are imported only
when a check runs.
"""

from __future__ import annotations

from wason.testing.contract import FamilyCheckFailed, FamilyReport, check_family

__all__ = ["FamilyCheckFailed", "FamilyReport", "check_family"]
