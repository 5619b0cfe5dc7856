"""`import wason` stays light: the SDKs, sympy and the server are imported only where used (issue 39)."""

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
