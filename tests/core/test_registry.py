"""The family registry: built-in families by name, plugins through the ``wason.tasks`` entry point group of an
installed package, explicit registration; unknown and broken families are one-line errors."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from wason.core import registry
from wason.tasks.wilt.family import WiltFamily

REPO = Path(__file__).resolve().parents[2]

# A lab's own game, installed as a package with an entry point: a variant of a built-in family under its own name
PLUGIN = """
from typing import Literal

from wason.tasks.wilt.family import WiltFamily, WiltRunConfig


class LabConfig(WiltRunConfig):
    task: Literal["labgame"] = "labgame"


class LabFamily(WiltFamily):
    name = "labgame"
    title = "Lab game"
    summary = "the lab's own variant"
    config_type = LabConfig


FAMILY = LabFamily()
"""


def _install_plugin(site: Path) -> None:
    """What `pip install` of the lab's package leaves on the path: its module and its dist-info."""
    (site / "labplugin.py").write_text(PLUGIN)
    (site / "labbroken.py").write_text("raise RuntimeError('the lab broke this one')\n")
    info = site / "labplugin-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: labplugin\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(
        "[wason.tasks]\nlabgame = labplugin:FAMILY\nlabbroken = labbroken:FAMILY\n"
    )


def _wason(site: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), str(REPO / "src"), str(REPO)])}
    return subprocess.run(
        [sys.executable, "-m", "wason.cli", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
        check=False,
    )


def test_an_installed_plugin_is_a_family_like_the_built_in_ones(tmp_path: Path) -> None:
    site = tmp_path / "site"
    site.mkdir()
    _install_plugin(site)
    db = f"sqlite:///{tmp_path / 'lab.db'}"

    listed = _wason(site, "eval", "--help")
    assert listed.returncode == 0 and "labgame" in listed.stdout and "wilt" in listed.stdout
    # help imports no plugin (they have no card here: listed by name), so the broken one is not even tried
    assert "labbroken" in listed.stdout and listed.stderr == ""

    played = _wason(site, "eval", "labgame", "--player", "solver", "--ids", "2", "--db", db, "--json")
    assert played.returncode == 0, played.stderr
    data = json.loads(played.stdout)
    accuracy = data["table"]["accuracy"]
    assert data["task"] == "labgame" and (accuracy["k"], accuracy["n"]) == (1, 1)
    shown = _wason(site, "show", str(data["run"]), "--db", db)
    assert shown.returncode == 0 and "labgame:lite by solver" in shown.stdout

    refused = _wason(site, "eval", "labbroken")
    assert refused.returncode == 2 and "invalid choice: 'labbroken'" in refused.stderr
    # named, the broken plugin is one line on stderr, no traceback; everything else works
    warnings = [line for line in refused.stderr.splitlines() if "labbroken" in line and "warning" in line]
    assert len(warnings) == 1 and "the lab broke this one" in warnings[0]
    assert "Traceback" not in refused.stderr


def test_unknown_duplicate_and_explicit_registrations() -> None:
    with pytest.raises(registry.UnknownFamily, match="unknown task family 'nosuch'; known: wilt, lists, aiw"):
        registry.get("nosuch")
    wilt = registry.get("wilt")
    assert registry.get("wilt") is wilt and isinstance(wilt, WiltFamily)

    class Imposter(WiltFamily):
        pass

    with pytest.raises(ValueError, match="already registered"):
        registry.register(Imposter())

    class Other(WiltFamily):
        name = "other-test-family"

    other = registry.register(Other())
    try:
        assert "other-test-family" in registry.names() and registry.get("other-test-family") is other
    finally:
        registry.unregister("other-test-family")
    assert "other-test-family" not in registry.names()


def test_families_registered_in_code_are_found_again_in_another_process() -> None:
    """A server's page workers register what the server registered in code (a module's FAMILY), and nothing
    else; a family that no other process can import (made inside a function) is said so (None)."""
    from tests.server import hidden_family

    registry.register(hidden_family.FAMILY, replace=True)
    try:
        found = registry.explicit()
        assert found == {
            hidden_family.NAME: "tests.server.hidden_family:FAMILY"
        }  # the built-ins are not listed
        code = (
            "import json, sys; from wason.core import registry; "
            "registry.register_from(json.loads(sys.argv[1])); "
            f"print(registry.get({hidden_family.NAME!r}).title)"
        )
        out = subprocess.run(
            [sys.executable, "-c", code, json.dumps(found)],
            capture_output=True,
            text=True,
            check=True,
            cwd=REPO,
            env={**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])},
        )
        assert out.stdout.strip() == hidden_family.FAMILY.title
        local = type("Local", (WiltFamily,), {"name": "local_only"})()
        registry.register(local)
        assert registry.explicit() is None
    finally:
        registry.unregister(hidden_family.NAME)
        registry.unregister("local_only")


def test_installed_plugins_are_read_once_and_again_when_the_path_changes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The server asks for the families on every page: the installed packages are scanned once, not per call,
    and a directory put on the path is scanned when it appears."""
    scans = 0
    real = registry.entry_points

    def counted(**kwargs: Any) -> Any:
        nonlocal scans
        scans += 1
        return real(**kwargs)

    monkeypatch.setattr(registry, "entry_points", counted)
    monkeypatch.setattr(registry, "_scanned", None)
    for _ in range(5):
        assert "labgame" not in registry.names()
    assert scans == 1

    site = tmp_path / "site"
    site.mkdir()
    _install_plugin(site)
    monkeypatch.syspath_prepend(str(site))
    assert "labgame" in registry.names() and "labbroken" in registry.names()
    assert scans == 2
    registry.names()
    assert scans == 2
    monkeypatch.undo()
    assert "labgame" not in registry.names()
