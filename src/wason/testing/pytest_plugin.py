"""A pytest plugin that proves task families with :func:`wason.testing.check_family`.

Installed with wason (entry point ``pytest11``: ``wason``), it offers:

- ``pytest --wason-family mypackage.mygame:FAMILY`` (repeatable; a registered name such as ``mygame`` works too):
  one test per family, ``check_family`` on the family's default configuration;
- the fixture ``check_family``, the function itself, for a test that narrows the configuration::

      def test_my_family(check_family):
          check_family(FAMILY, config={"n": 3})

A failing family fails its test with the list of checks that failed.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

import pytest

from wason.core import registry
from wason.core.family import Family
from wason.testing.contract import FamilyCheckFailed, FamilyReport
from wason.testing.contract import check_family as _check_family


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("wason", "wason task families")
    group.addoption(
        "--wason-family",
        action="append",
        default=[],
        metavar="MODULE:ATTR",
        help="prove a task family honours the wason contract (module:attribute or a registered name); repeatable",
    )


@pytest.fixture
def check_family() -> Callable[..., FamilyReport]:
    """:func:`wason.testing.check_family`: call it with the family (and a narrower configuration)."""
    return _check_family


def load_family(target: str) -> Any:
    """The family at ``module:attribute``, or registered under the name ``target``."""
    if ":" not in target:
        return registry.get(target)
    module, _, attr = target.partition(":")
    family = getattr(importlib.import_module(module), attr)
    if not isinstance(family, Family):
        raise TypeError(f"{target} is a {type(family).__name__}, not a wason Family")
    return family


class FamilyItem(pytest.Item):
    """One ``--wason-family``: the family's contract, checked."""

    def __init__(self, *, target: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.target = target

    def runtest(self) -> None:
        _check_family(load_family(self.target))

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> Any:
        if isinstance(
            excinfo.value, FamilyCheckFailed | ImportError | AttributeError | TypeError | ValueError
        ):
            return str(excinfo.value)
        return super().repr_failure(excinfo)

    def reportinfo(self) -> tuple[Any, int | None, str]:
        return self.path, None, f"wason family {self.target}"


@pytest.hookimpl(tryfirst=True)  # before -k and -m deselect
def pytest_collection_modifyitems(
    session: pytest.Session, config: pytest.Config, items: list[pytest.Item]
) -> None:
    for target in config.getoption("wason_family"):
        name = f"wason-family[{target}]"
        items.append(FamilyItem.from_parent(session, name=name, nodeid=name, target=target))
