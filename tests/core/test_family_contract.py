"""The family contract, run over every registered family with :func:`wason.testing.check_family`, the call a
plugin author makes for theirs.

A family is one package: given its ``FAMILY``, the engine plays it, sessions store and restore it (in another
process too), nothing a client reads names its hidden item before the game ends, reports render it and the
command line derives its flags, with nothing else written for it. Each family runs on a cheap configuration:
the ones this file knows are narrowed below, any other runs on its configuration's defaults, and at most
``MAX_ITEMS`` of its items are played. The test families under ``tests/families/`` are proven by their own
tests, as a plugin's would be; this file checks that each of them does.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Any

import pytest

from wason.core import registry
from wason.core.family import Family
from wason.testing import check_family

ROOT = Path(__file__).resolve().parents[2]
FAMILIES_DIR = ROOT / "tests" / "families"

# Narrower configurations of the families this file knows, to keep the contract fast.
# WILT's rule 2 is the published prompt's own example guess (x < y < z): the reward audit fails on it, as
# tests/env/test_audit.py shows; the contract plays two other rules.
CHEAP: dict[str, dict[str, Any]] = {"wilt": {"ids": [1, 3]}, "lists": {"ids": [1]}, "aiw": {"trials": 1}}
MAX_ITEMS = 2


def _test_families() -> dict[str, str]:
    """Every test family, found by listing ``tests/families/``: its name and its module."""
    found = {}
    for package in sorted(p for p in FAMILIES_DIR.iterdir() if (p / "__init__.py").is_file()):
        module = f"tests.families.{package.name}"
        found[importlib.import_module(module).FAMILY.name] = module
    return found


TEST_FAMILIES = _test_families()
NAMES = [*registry.names(), *(n for n in TEST_FAMILIES if n not in registry.names())]


def load(name: str) -> Family[Any]:
    """A family by name, without registering a test family."""
    if name in TEST_FAMILIES:
        fam: Family[Any] = importlib.import_module(TEST_FAMILIES[name]).FAMILY
        return fam
    return registry.get(name)


@pytest.mark.parametrize("name", [n for n in NAMES if n not in TEST_FAMILIES])
def test_every_registered_family_honours_the_contract(name: str) -> None:
    report = check_family(registry.get(name), config=CHEAP.get(name), items=MAX_ITEMS)
    assert not report.skipped, report


@pytest.mark.parametrize("module", sorted(TEST_FAMILIES.values()))
def test_every_test_family_is_proven_by_its_own_tests(module: str) -> None:
    package = ROOT / Path(*module.split("."))
    tests = "".join(p.read_text(encoding="utf-8") for p in sorted(package.glob("test_*.py")))
    assert "check_family(" in tests, f"{module}: no test of it calls wason.testing.check_family"
