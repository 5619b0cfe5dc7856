"""`import wason` stays light: the SDKs, sympy and the server are imported only where used (issue 39)."""

from __future__ import annotations

import json
import subprocess
import sys

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
