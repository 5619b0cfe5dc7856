"""`wason new NAME`: a package around the hello-world family that installs with `pip install -e` and passes its
own test; bad names and taken folders refused in one line."""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from wason.cli import main
from wason.cli.new import package_files
from wason.core import registry
from wason.testing import check_family


def test_the_package_s_family_is_the_example_under_its_name(tmp_path: Path) -> None:
    files = package_files("zen-do")
    assert sorted(files) == [
        "README.md",
        "pyproject.toml",
        "src/zen_do/__init__.py",
        "src/zen_do/card.py",
        "tests/test_family.py",
    ]
    assert 'zen-do = "zen_do.card:CARD"' in files["pyproject.toml"]
    assert 'zen-do = "zen_do:FAMILY"' in files["pyproject.toml"]
    source = files["src/zen_do/__init__.py"]
    assert (
        "hello" not in source.lower()
        and 'task: Literal["zen-do"]' in source
        and "class ZenDoFamily" in source
    )
    path = tmp_path / "zen_do.py"
    path.write_text(source, encoding="utf-8")
    try:
        family = registry.load_target(str(path))
        assert family.name == "zen-do" and family.title == "ZenDo"
        assert "run: played in one go, completes" in check_family(family, target="zen_do:FAMILY").passed
    finally:
        registry.unregister("zen-do")
        sys.modules.pop("zen_do", None)
        sys.path.remove(str(tmp_path))


@pytest.mark.parametrize(
    "name", ["Zendo", "9lives", "a--b", "a_b", "a-", "x" * 41, "a b", "json", "wason", "wason-extra", "wilt"]
)
def test_a_name_that_is_no_family_name_is_refused_in_one_line(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["new", name, "--dir", str(tmp_path / "pkg")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("wason: error: NAME: ") and err.count("\n") == 1
    assert not (tmp_path / "pkg").exists()


def test_a_folder_that_is_not_empty_is_never_written_over(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "demo").mkdir()
    (tmp_path / "demo" / "mine.txt").write_text("keep", encoding="utf-8")
    assert main(["new", "demo", "--dir", str(tmp_path / "demo")]) == 2
    assert "already exists and is not an empty folder" in capsys.readouterr().err
    assert [p.name for p in (tmp_path / "demo").iterdir()] == ["mine.txt"]


def test_wason_new_demo_installs_with_pip_and_passes_its_own_test(tmp_path: Path) -> None:
    """As a user would: `wason new demo`, `pip install -e demo`, `pytest demo`, `wason eval demo`. The venv sees
    this environment's packages (wason, pytest, hatchling) through a .pth file, so nothing is downloaded."""
    assert main(["new", "demo", "--dir", str(tmp_path / "demo")]) == 0
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python = str(venv / "bin" / "python")
    purelib = subprocess.run(
        [python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    ours = sysconfig.get_paths()["purelib"]
    Path(purelib, "_wason_test.pth").write_text(f"import site; site.addsitedir({ours!r})\n", encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "WASON_FAMILIES")}
    pip = [python, "-m", "pip", "install", "-q", "--no-deps", "--no-build-isolation", "--no-index", "-e"]
    subprocess.run([*pip, str(tmp_path / "demo")], check=True, env=env, cwd=tmp_path)
    tests = subprocess.run(
        [python, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist", str(tmp_path / "demo")],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
    )
    assert tests.returncode == 0, tests.stdout + tests.stderr
    assert "3 passed" in tests.stdout
    played = subprocess.run(
        [python, "-m", "wason.cli", "eval", "demo", "--player", "solver", "--db", str(tmp_path / "d.db")],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
    )
    assert played.returncode == 0, played.stderr
    assert "Run 1: demo by solver [completed]" in played.stdout and "5/5" in played.stdout
    helped = subprocess.run(
        [python, "-m", "wason.cli", "eval", "--help"], capture_output=True, text=True, env=env, cwd=tmp_path
    )
    assert "find the secret k of 'x is a multiple of k'" in helped.stdout  # from its card
