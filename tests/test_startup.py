"""`import wason` stays light: the SDKs, sympy and the server are imported only where used; `wason --version` and
`wason --help` import no family (issue 39)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

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


def test_the_built_in_table_of_family_commands_is_the_families_own() -> None:
    from wason.core import registry
    from wason.tasks import BUILTIN, COMMANDS

    own = {name: registry.get(name).commands for name in BUILTIN}
    assert {name: text for name, text in own.items() if text} == COMMANDS
    assert list(COMMANDS) == [name for name in BUILTIN if name in COMMANDS]


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
        assert not registry.only_builtin()
        assert main(["--help"]) == 0
        assert "tools-test-family" in capsys.readouterr().out
    finally:
        registry.unregister("tools-test-family")
    assert registry.only_builtin()
    wilt = registry.get("wilt")

    class Over(WiltFamily):
        commands = "not the built-in line"

    registry.register(Over(), replace=True)  # registered over a built-in: its own line counts
    try:
        assert not registry.only_builtin()
        assert main(["--help"]) == 0
        assert "not the built-in line" in capsys.readouterr().out
    finally:
        registry.register(wilt, replace=True)
    assert registry.only_builtin()
