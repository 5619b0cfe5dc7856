"""`import wason` stays light: the SDKs, sympy and the server are imported only where used; `wason --version` and
`wason --help` import no family (issue 39)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]

HEAVY = ("sympy", "openai", "anthropic", "fastapi", "uvicorn", "starlette", "jinja2", "sqlalchemy")


def _loaded_after(code: str) -> list[str]:
    probe = f"import sys, json\n{code}\nprint(json.dumps(sorted(m for m in {HEAVY!r} if m in sys.modules)))"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    return list(json.loads(out.stdout.strip().splitlines()[-1]))


def test_import_wason_loads_no_sdk_sympy_or_server() -> None:
    assert _loaded_after("import wason") == []


def test_public_names_still_resolve() -> None:
    import wason
    from wason.core import registry
    from wason.store import Store

    assert wason.Store is Store
    assert wason.registry is registry
    for name in wason.__all__:
        assert getattr(wason, name) is not None, name


def test_wason_version_loads_nothing_heavy() -> None:
    # what the `wason` script does: import the CLI, run main (which prints the version and returns)
    probe = (
        "import sys, json\n"
        "from wason.cli import main\n"
        "code = main(['--version'])\n"
        "heavy = ('pydantic', 'numpy', 'rich', 'wason.core.family', *" + repr(HEAVY) + ")\n"
        "print(json.dumps([code, sorted(m for m in heavy if m in sys.modules)]))"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    lines = out.stdout.strip().splitlines()
    assert lines[0].startswith("wason ") and len(lines[0].split()) == 2
    assert json.loads(lines[-1]) == [0, []]


def test_the_early_version_line_is_the_parsers(capsys: pytest.CaptureFixture[str]) -> None:
    # `wason --version` answers before the parser is built: the same line as the parser's own --version
    from wason.cli import build_parser, main

    assert main(["--version"]) == 0
    early = capsys.readouterr().out
    with pytest.raises(SystemExit) as done:
        build_parser(["--version"]).parse_args(["--version"])
    assert done.value.code == 0
    assert capsys.readouterr().out == early != ""


def test_wason_help_loads_no_family_and_prints_the_parsers_help() -> None:
    # `wason --help` answers from the commands' and the built-in families' help lines: the same text as the
    # parser with every family loaded, without importing pydantic, numpy or any family
    probe = (
        "import sys, json\n"
        "from wason.cli import main\n"
        "code = main(['--help'])\n"
        "heavy = ('pydantic', 'numpy', 'rich', 'wason.core.family', *" + repr(HEAVY) + ")\n"
        "loaded = [m for m in heavy if m in sys.modules]\n"
        "loaded += [m for m in sys.modules if m.startswith('wason.tasks.') and m.endswith('.family')]\n"
        "print(json.dumps([code, sorted(loaded)]))"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    *text, last = out.stdout.splitlines(keepends=True)
    assert json.loads(last) == [0, []]
    full = subprocess.run(
        [
            sys.executable,
            "-c",
            "from wason.core import registry; from wason.cli import build_parser; registry.families(); "
            "print(build_parser(['--help']).format_help(), end='')",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    assert "".join(text) == full.stdout
    assert "code-functions" in full.stdout and "compare" in full.stdout


def test_the_built_in_cards_are_the_families_own() -> None:
    from wason.core import registry
    from wason.tasks import BUILTIN, CARDS

    assert list(CARDS) == list(BUILTIN)
    for name in BUILTIN:
        family = registry.get(name)
        own = registry.Card(family.title, family.summary, family.commands, family.playable)
        assert registry.Card(**CARDS[name]) == own, name
    assert list(registry.command_lines()) == [n for n in BUILTIN if registry.get(n).commands]


def test_wason_help_lists_a_family_registered_beside_the_built_in_ones(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from wason.cli import main
    from wason.core import registry
    from wason.tasks.wilt.family import WiltFamily

    class Tools(WiltFamily):
        name = "tools-test-family"
        commands = "the test family's own tools"

    registry.register(Tools())
    try:
        assert registry.command_lines()["tools-test-family"] == "the test family's own tools"
        assert main(["--help"]) == 0
        assert "the test family's own tools" in capsys.readouterr().out
    finally:
        registry.unregister("tools-test-family")
    assert "tools-test-family" not in registry.command_lines()
    wilt = registry.get("wilt")

    class Over(WiltFamily):
        commands = "not the built-in line"

    registry.register(Over(), replace=True)  # registered over a built-in: its own line counts
    try:
        assert registry.command_lines()["wilt"] == "not the built-in line"
        assert main(["--help"]) == 0
        assert "not the built-in line" in capsys.readouterr().out
    finally:
        registry.register(wilt, replace=True)
    assert registry.command_lines()["wilt"] == "WILT tools"


# what a command's help must not import: the store, pydantic (the family machinery), rich, and any family
_HELP_PROBE = (
    "import sys, json, io, contextlib\n"
    "from wason.cli import main\n"
    "{setup}"
    "out = io.StringIO()\n"
    "with contextlib.redirect_stdout(out):\n"
    "    code = main({argv!r})\n"
    "heavy = ('pydantic', 'rich', 'sqlalchemy', 'wason.store', 'wason.core.family', 'wason.core.session')\n"
    "loaded = [m for m in heavy if m in sys.modules]\n"
    "loaded += [m for m in sys.modules if m.startswith(('wason.tasks.', 'cardtoy', 'badcard', 'nocard'))]\n"
    "print(json.dumps([code, sorted(loaded), out.getvalue()]))"
)


def _help(argv: list[str], setup: str = "", site: Path | None = None) -> tuple[int, list[str], str, str]:
    """``main(argv)`` in a fresh interpreter: its exit status, the heavy modules it imported, stdout, stderr."""
    paths = [str(site)] if site is not None else []
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([*paths, str(REPO / "src"), str(REPO)])}
    probe = _HELP_PROBE.format(setup=setup, argv=argv)
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, env=env, timeout=300, check=True
    )
    code, loaded, out = json.loads(done.stdout.strip().splitlines()[-1])
    return code, loaded, out, done.stderr


@pytest.mark.parametrize(
    "argv",
    [["eval", "--help"], ["play", "--help"], ["session", "start", "--help"], ["runs", "--help"]],
    ids=" ".join,
)
def test_command_help_imports_no_store_no_pydantic_no_family(argv: list[str]) -> None:
    # issue 53: building the parser imports what the help shows, no more; the families' lines come from their
    # cards, the same text as with every family loaded
    code, loaded, out, _ = _help(argv)
    assert (code, loaded) == (0, [])
    _, _, full, _ = _help(argv, setup="from wason.core import registry\nregistry.families()\n")
    assert out == full and out.startswith(f"usage: wason {argv[0]}")
    assert ("wilt" in out) == (argv[0] != "runs")


PLUGIN = """
from typing import Any

from tests.families.toy import ToyFamily


class CardToy(ToyFamily):
    name = "cardtoy"
    commands = "the card toy's tools"

    def add_commands(self, parser: Any) -> None:
        parser.add_subparsers(dest="cardtoy_command", required=True).add_parser("hello")

    def run_command(self, args: Any, write: Any) -> int:
        write("hello from the card toy")
        return 0


FAMILY = CardToy()
"""

CARD = """
CARD = {
    "title": "Toy threshold",
    "summary": "find the hidden threshold t of x >= t: probes, then one guess",
    "commands": "the card toy's tools",
    "playable": True,
}
"""


def _install(site: Path) -> None:
    """Three plugins, as `pip install` leaves them: one with a card, one whose card is broken, one without."""
    site.mkdir()
    (site / "cardtoy_family.py").write_text(PLUGIN)
    (site / "cardtoy_card.py").write_text(CARD)
    (site / "badcard_family.py").write_text(PLUGIN.replace("cardtoy", "badcard"))
    (site / "badcard_card.py").write_text("CARD = {'summary': 3}\n")
    (site / "nocard_family.py").write_text(PLUGIN.replace("cardtoy", "nocard"))
    info = site / "toys-0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: toys\nVersion: 0\n")
    (info / "entry_points.txt").write_text(
        "[wason.tasks]\ncardtoy = cardtoy_family:FAMILY\nbadcard = badcard_family:FAMILY\n"
        "nocard = nocard_family:FAMILY\n\n"
        "[wason.cards]\ncardtoy = cardtoy_card:CARD\nbadcard = badcard_card:CARD\n"
    )


def test_plugins_are_shown_from_their_cards_and_imported_only_when_named(tmp_path: Path) -> None:
    site = tmp_path / "site"
    _install(site)
    code, loaded, out, err = _help(["--help"], site=site)
    assert (code, sorted(loaded)) == (0, ["badcard_card", "cardtoy_card"])  # the cards, no family
    # `wason --help` lists the families' own commands: the card's line; a family without a (readable) card is
    # not known to have any until it is named
    assert "cardtoy             the card toy's tools" in out and "badcard" not in out and "nocard" not in out
    # a broken card is one warning line
    assert err.splitlines() == [
        "wason: warning: task family 'badcard': its card (badcard_card:CARD) cannot be read: "
        "TypeError: its summary is not a str"
    ]
    code, loaded, out, err = _help(["eval", "--help"], site=site)
    assert code == 0 and not [m for m in loaded if m.endswith("_family")]
    # every family is a choice: with its card's summary, or by name
    assert "cardtoy            find the hidden threshold t of x >= t" in out
    assert "\n    nocard\n" in out and "\n    badcard\n" in out
    assert err.count("\n") == 1 and "badcard" in err and "Traceback" not in err

    # named, the family is imported (its flags, its own commands), the others are not
    code, loaded, out, _ = _help(["eval", "cardtoy", "--help"], site=site)
    assert code == 0 and [m for m in loaded if m.endswith("_family")] == ["cardtoy_family"]
    assert "--max-probes" in out
    code, loaded, out, _ = _help(["nocard", "hello"], site=site)
    assert code == 0 and "nocard_family" in loaded and "cardtoy_family" not in loaded
    assert out == "hello from the card toy\n"
