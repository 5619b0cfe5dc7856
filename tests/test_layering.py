"""The package's layering, checked on its source: nothing outside ``wason.tasks`` names a family, and families
never import what sits above them (players, models, engine, store, server, reports, the CLI)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from wason.core import registry

SRC = Path(__file__).resolve().parents[1] / "src" / "wason"
TASKS = SRC / "tasks"
# what tasks must never import (docs/design.md: dependencies point downward only)
ABOVE_TASKS = ("wason.players", "wason.models", "wason.engine", "wason.store", "wason.server", "wason.report")
ABOVE_TASKS += ("wason.cli",)


def _modules(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*.py") if "__pycache__" not in p.parts)


def _imports(path: Path) -> list[str]:
    names = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.append(node.module)
            names += [f"{node.module}.{a.name}" for a in node.names]
    return names


def _family_words() -> list[str]:
    """Each family's name and title, as a reader would spot them in code, comments or strings."""
    words = set()
    for family in registry.families():
        words |= {family.name.lower(), family.title.lower()}
    # 'lists' (a family's name) is also an everyday word ("lists of messages"); its family is spotted by its
    # title ('list rules') and its published name instead
    words.discard("lists")
    # 'math' likewise ("import math"); its family is spotted by its title ('math sequences'), its package and the
    # reference's names for the game
    words.discard("math")
    return sorted(
        words | {"numberwang", "list-rules", "math_rules", "math sequence", "find principle behind"}
    )


def test_nothing_outside_tasks_names_a_family() -> None:
    words = _family_words()
    assert "wilt" in words and "aiw" in words and "list rules" in words  # the registry was read
    pattern = re.compile(r"\b(" + "|".join(re.escape(w) for w in words) + r")\b", re.IGNORECASE)
    found = []
    for path in _modules(SRC):
        rel = path.relative_to(SRC).as_posix()
        if path.is_relative_to(TASKS):
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if pattern.search(line):
                found.append(f"{rel}:{number}: {line.strip()}")
        for name in _imports(path):
            # the registry reads the list of built-in families and their cards (what help shows of them);
            # nothing else outside tasks imports from there
            if name.startswith("wason.tasks.") and (rel, name) not in {
                ("core/registry.py", "wason.tasks.BUILTIN"),
                ("core/registry.py", "wason.tasks.CARDS"),
            }:
                found.append(f"{rel}: imports {name}")
    assert not found, "family names outside wason.tasks:\n" + "\n".join(found)


@pytest.mark.parametrize("path", _modules(TASKS), ids=lambda p: p.relative_to(TASKS).as_posix())
def test_tasks_import_nothing_above_them(path: Path) -> None:
    # the top-level package re-exports models, engine and store: importing from it goes around the layering
    bad = [n for n in _imports(path) if n.startswith(ABOVE_TASKS) or n == "wason"]
    assert not bad, f"{path.relative_to(SRC)} imports {bad}"


def test_a_family_does_not_import_another() -> None:
    packages = {p.name for p in TASKS.iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    assert {"wilt", "lists", "aiw"} <= packages
    crossings = []
    for package in packages:
        for path in _modules(TASKS / package):
            for name in _imports(path):
                other = name.split(".")[2] if name.startswith("wason.tasks.") else None
                if other and other in packages and other != package:
                    crossings.append(f"{path.relative_to(SRC)} imports {name}")
    assert not crossings, "\n".join(crossings)


@pytest.mark.parametrize("package", ["models", "sandbox", "metrics", "store"])
def test_the_ground_floor_imports_no_layer_above_it(package: str) -> None:
    """Model backends, the sandbox, statistics and the store serve every layer and know none of them."""
    above = ("wason.core", "wason.engine", "wason.tasks", "wason.players", "wason.report", "wason.cli")
    bad = [
        f"{path.relative_to(SRC)} imports {name}"
        for path in _modules(SRC / package)
        for name in _imports(path)
        if name.startswith(above) and not (package == "store" and name.startswith("wason.core.records"))
    ]
    assert not bad, "\n".join(bad)
