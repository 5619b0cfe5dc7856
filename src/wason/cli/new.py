"""``wason new NAME``: a package around the hello-world family (:mod:`wason.examples.hello`), ready to install
with ``pip install -e`` and to prove with its own test (``check_family``)."""

from __future__ import annotations

import argparse
import re
import sys
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

from wason.cli import COMMANDS
from wason.cli.common import ParserContext, UserError
from wason.core import registry

if TYPE_CHECKING:  # rich is imported by the command that prints, not by building the parser (start-up)
    from rich.console import Console

# a family's name: lower-case words joined by "-", short enough for a flag, a table column and a package name
NAME = re.compile(r"[a-z][a-z0-9]*(?:-[a-z0-9]+)*")
MAX_NAME_CHARS = 40


def add_arguments(sub: Any, ctx: ParserContext) -> None:
    p = sub.add_parser(
        "new",
        help=COMMANDS["new"].help,
        description="Write a package for a new task family: pyproject.toml (with the wason.tasks entry point), "
        "the family (the hello-world example of docs/families.md under your name) and a test that calls "
        "check_family. Then: pip install -e NAME && pytest NAME.",
    )
    p.add_argument(
        "name", metavar="NAME", help="the family's name: lower-case letters, digits and -, e.g. zendo"
    )
    p.add_argument("--dir", type=Path, default=None, help="where to write the package (default ./NAME)")


def package_files(name: str) -> dict[str, str]:
    """The files of the package ``wason new NAME`` writes, by path relative to its folder."""
    if len(name) > MAX_NAME_CHARS or NAME.fullmatch(name) is None:
        raise UserError(
            f"NAME: {name!r} is not a family name: lower-case letters, digits and single '-' between them, "
            f"starting with a letter, at most {MAX_NAME_CHARS} characters (e.g. zendo)"
        )
    package = name.replace("-", "_")
    taken = "a module of Python's standard library" if package in sys.stdlib_module_names else None
    if package.split("_")[0] == "wason" or name in registry.names():
        taken = "wason's own name" if package.split("_")[0] == "wason" else "a family already known to wason"
    if taken is not None:
        raise UserError(f"NAME: {name!r} is {taken}; choose another name")
    camel = "".join(part.capitalize() for part in name.split("-"))
    source = resources.files("wason.examples").joinpath("hello.py").read_text(encoding="utf-8")
    for old, new in (
        (
            '"""Hello, wason: a task family in one module.',
            f'"""{camel}: a wason task family, begun from wason new.',
        ),
        ('"Hello, wason"', f'"{camel}"'),
        ('"hello"', f'"{name}"'),
        ("wason eval hello", f"wason eval {name}"),
        ("Hello", camel),
    ):
        if old not in source:  # the example changed under this command: its test says so
            raise RuntimeError(f"wason.examples.hello no longer has {old!r}")
        source = source.replace(old, new)
    from wason.examples.hello import FAMILY

    card = {"title": camel, "summary": FAMILY.summary, "playable": FAMILY.playable}
    return {
        "pyproject.toml": PYPROJECT.format(name=name, package=package),
        f"src/{package}/card.py": CARD.format(card=card),
        "README.md": README.format(name=name, package=package),
        f"src/{package}/__init__.py": source,
        "tests/test_family.py": TEST.format(name=name, package=package),
    }


def run(args: argparse.Namespace, console: Console) -> int:
    files = package_files(args.name)
    folder: Path = args.dir if args.dir is not None else Path(args.name)
    if folder.exists() and (not folder.is_dir() or any(folder.iterdir())):
        raise UserError(f"{folder}: already exists and is not an empty folder; name another with --dir")
    for path, text in files.items():
        target = folder / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    console.print(
        f"wrote {folder}/ ({', '.join(files)})\nnext: pip install -e {folder} && pytest {folder}  "
        f"# then: wason eval {args.name} --player solver",
        markup=False,
        highlight=False,
    )
    return 0


PYPROJECT = """\
[build-system]
requires = ["hatchling>=1.21"]
build-backend = "hatchling.build"

[project]
name = "wason-{name}"
version = "0.1.0"
description = "The {name} task family for wason"
requires-python = ">=3.11"
dependencies = ["wason"]

# how wason finds the family: `wason eval {name}`, `wason play {name}`, `wason session start {name}` ...
[project.entry-points."wason.tasks"]
{name} = "{package}:FAMILY"

# what `wason --help` shows of it without importing it (keep it saying what the family says)
[project.entry-points."wason.cards"]
{name} = "{package}.card:CARD"

[tool.hatch.build.targets.wheel]
packages = ["src/{package}"]

# `pip install -e .` puts src/ on the path (a .pth file), so edits take effect without reinstalling
[tool.hatch.build]
dev-mode-dirs = ["src"]
"""

README = """\
# {name}

A task family for wason, begun with `wason new {name}` from the hello-world family of wason's
docs/families.md. Install it beside wason and prove it:

```bash
pip install -e .            # registers the family through the wason.tasks entry point
pytest                      # check_family: the contract every built-in family passes
wason eval {name} --player solver
wason play {name}
```

The family is `src/{package}/__init__.py`; docs/families.md says what to add next (moves for people, report
columns) and lists every member a family may give.
"""

CARD = """\
# What wason's help shows of the family without importing it: keep it saying what the family says (a test does).
CARD = {card!r}
"""

TEST = """\
from importlib.metadata import entry_points

from wason.core import registry
from wason.testing import check_family

from {package} import FAMILY


def test_the_family_passes_the_contract() -> None:
    report = check_family(FAMILY, target="{package}:FAMILY")  # raises FamilyCheckFailed, naming each failure
    assert "run: played in one go, completes" in report.passed


def test_wason_finds_the_installed_family_by_name() -> None:
    assert registry.get("{name}") is FAMILY


def test_its_card_says_what_the_family_says() -> None:
    card = entry_points(group="wason.cards")["{name}"].load()
    assert card == {{"title": FAMILY.title, "summary": FAMILY.summary, "playable": FAMILY.playable}}
"""
