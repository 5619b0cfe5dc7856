"""Where tests find the shared reference data: the ``../shared`` folder beside the repository checkout.

The published prompts, rules and protocols that tests compare against live in ``../shared/reference``,
relative to the repository root (never at an absolute path). Every test that needs them calls
``reference(...)`` when it runs - inside the test or a fixture, not at import - so a missing folder fails
each such test with a message saying what is missing, instead of skipping it or breaking collection.

The environment variable ``WASON_SHARED`` overrides the location of the shared folder (the one holding
``reference/``), e.g. ``WASON_SHARED=/nonexistent pytest tests/tasks/lists/test_rules.py`` shows the failure a
checkout without the reference data gets.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ["WASON_SHARED"]) if os.environ.get("WASON_SHARED") else REPO.parent / "shared"


def reference(*parts: str) -> Path:
    """The path of ``parts`` under the shared reference data; fails the calling test when it is missing.

    Args:
        *parts: path components below ``../shared/reference``, e.g. ``("aiw", "prompts.json")``.

    Returns:
        The existing path.
    """
    path = SHARED.joinpath("reference", *parts)
    if not path.exists():
        pytest.fail(
            f"reference data not found: {path}\n"
            f"The tests need the repository's ../shared folder (the reference data) beside the checkout, "
            f"at {REPO.parent / 'shared'} (or where WASON_SHARED points).",
            pytrace=False,
        )
    return path
