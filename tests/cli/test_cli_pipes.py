"""A reader that leaves and an environment someone else uses (issue 49, item 18): ``wason eval ... | head -1``
finishes the run quietly in the store (it stopped between the halves of ``--constrain both``, leaving the second
run unplayed), and ``bash scripts/check.sh`` installs its tools into an environment of its own, leaving the
``.venv`` that ``scripts/install.sh`` made for the main job (and any run playing from it) alone."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.openai_server import FakeOpenAIServer
from wason.store import Store

ROOT = Path(__file__).resolve().parents[2]


def _slow_reply(messages: list[dict[str, Any]], body: dict[str, Any]) -> str:
    time.sleep(0.2)  # the reader has long left when the run ends
    return "Final Guess: ```lambda x, y, z: x < y < z```"


@pytest.mark.parametrize("stderr_too", [False, True], ids=["stdout", "stdout-and-stderr"])
def test_a_reader_that_leaves_after_the_first_line_leaves_every_run_finished(
    stderr_too: bool, tmp_path: Path
) -> None:
    db = f"sqlite:///{tmp_path / 'pipe.db'}"
    with FakeOpenAIServer(_slow_reply) as server:
        argv = ["eval", "wilt", "--ids", "1,2", "--model", "vllm:fake", "--base-url", server.base_url]
        child = subprocess.Popen(
            [sys.executable, "-m", "wason.cli", *argv, "--constrain", "both", "--db", db],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT if stderr_too else subprocess.PIPE,
            text=True,
            env={**os.environ, "COLUMNS": "100"},
        )
        assert child.stdout is not None
        first = child.stdout.readline()  # `| head -1`
        child.stdout.close()
        err = child.stderr.read() if child.stderr is not None else ""
        code = child.wait(timeout=300)
    assert first.startswith("Running run 1: ") or first.startswith("run 1"), first
    assert code == 0, err[-3000:]
    assert "Traceback" not in err and "Broken pipe" not in err, err[-3000:]
    runs = Store(db).list_runs()
    assert [(r.player, r.status) for r in runs] == [("llm", "completed")] * 2 + [("solver", "completed")]
    assert runs[1].config["constrain"] is True and runs[2].config["baseline_for"] == 1
    for run in runs:
        assert all(e.status == "completed" for e in Store(db).list_episodes(run.id))


# -- scripts/check.sh and the main job's environment ------------------------------------------------------
_STUB = """#!/usr/bin/env bash
echo "$(basename "$(dirname "$(dirname "$0")")")/$(basename "$0") $*" >> "$STUB_LOG"
"""

_PYTHON3 = """#!/usr/bin/env bash
echo "python3 $*" >> "$STUB_LOG"
if [[ "$1" == "-m" && "$2" == "venv" ]]; then
    mkdir -p "$3/bin"
    for tool in python ruff mypy; do cp "$STUB_DIR/tool" "$3/bin/$tool"; chmod +x "$3/bin/$tool"; done
fi
"""


def _checkout(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """A checkout with the real scripts, and commands that only say what they were asked (no install, no apt)."""
    checkout = tmp_path / "checkout"
    (checkout / "scripts").mkdir(parents=True)
    for name in ("check.sh", "install.sh"):
        shutil.copy(ROOT / "scripts" / name, checkout / "scripts" / name)
    stubs = tmp_path / "stubs"
    stubs.mkdir()
    (stubs / "python3").write_text(_PYTHON3)
    (stubs / "tool").write_text(_STUB)
    (stubs / "apt-get").write_text('#!/usr/bin/env bash\necho "apt-get $*" >> "$STUB_LOG"\n')
    for stub in stubs.iterdir():
        stub.chmod(0o755)
    env = {
        "PATH": f"{stubs}:/usr/bin:/bin",
        "HOME": str(tmp_path),
        "STUB_LOG": str(tmp_path / "log"),
        "STUB_DIR": str(stubs),
    }
    return checkout, env


def _log(env: dict[str, str]) -> list[str]:
    return Path(env["STUB_LOG"]).read_text().splitlines()


def test_check_sh_leaves_the_main_jobs_environment_alone(tmp_path: Path) -> None:
    checkout, env = _checkout(tmp_path)
    # the main job's environment, as `bash scripts/install.sh` made it
    subprocess.run(["bash", "scripts/install.sh"], cwd=checkout, env=env, check=True)
    made = _log(env)
    assert made[0] == "python3 -m venv .venv" and ".venv/python -m pip install --quiet .[local]" in made, made
    main_job = {p: p.read_bytes() for p in (checkout / ".venv").rglob("*") if p.is_file()}
    Path(env["STUB_LOG"]).unlink()

    done = subprocess.run(
        ["bash", "scripts/check.sh", "-k", "x"], cwd=checkout, env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    log = _log(env)
    assert not any(".venv " in line or line.startswith(".venv/") for line in log), log
    assert {p: p.read_bytes() for p in (checkout / ".venv").rglob("*") if p.is_file()} == main_job
    assert "python3 -m venv .venv-dev" in log
    assert ".venv-dev/python -m pip install --quiet -e .[local,dev]" in log, log
    for tool in (
        "ruff check src tests bench",
        "ruff format --check src tests bench",
        "mypy --strict src/wason",
    ):
        assert f".venv-dev/{tool}" in log, log
    assert ".venv-dev/python -m pytest -q -rs -n 2 -k x" in log, log  # the extra arguments go to pytest


def test_the_checks_environment_is_not_committed() -> None:
    ignored = (ROOT / ".gitignore").read_text().splitlines()
    assert ".venv/" in ignored and ".venv-dev/" in ignored
