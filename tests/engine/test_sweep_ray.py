"""``wason sweep --ray`` on a real one-node Ray cluster with a shared PostgreSQL store: a worker killed halfway
through a cell loses no cell and duplicates none.

Ray binds the machine's external interface and probes a public DNS address when it can, so the cluster, the
store and the fake endpoint run in a private network namespace with loopback only (``unshare``, as root),
driven by tests/engine/ray_sweep_child.py. Where that cannot be done the test skips and says why.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXPECTED_CELLS = 3  # the solver, and the model at two temperatures


def _namespace_command() -> list[str]:
    """``unshare`` of a network namespace (loopback only) and a process namespace, or a skip saying why not."""
    if importlib.util.find_spec("ray") is None:
        pytest.skip(
            "Ray is not installed: pip install 'wason[ray]' (scripts/install.sh local,dev installs it)"
        )
    unshare, ip = shutil.which("unshare"), shutil.which("ip") or "/usr/sbin/ip"
    if unshare is None or not Path(ip).exists():
        pytest.skip("needs unshare and ip (util-linux, iproute2) to give the Ray cluster a private network")
    if os.geteuid() != 0:
        pytest.skip("needs root to make a private network namespace for the Ray cluster (unshare -n)")
    # --pid --fork --mount-proc: the cluster's processes live in the namespace and die with its first process
    command = [unshare, "--net", "--pid", "--fork", "--mount-proc", "--kill-child"]
    probe = subprocess.run([*command, ip, "link", "set", "lo", "up"], capture_output=True, text=True)
    if probe.returncode != 0:
        pytest.skip(f"cannot make a private network namespace here: {probe.stderr.strip()}")
    return command


def test_a_ray_sweep_survives_a_killed_worker(tmp_path: Path) -> None:
    command = _namespace_command()
    env = {**os.environ, "RAY_USAGE_STATS_ENABLED": "0", "COLUMNS": "120"}
    script = f"ip link set lo up && exec {sys.executable} -m tests.engine.ray_sweep_child {tmp_path}"
    child = subprocess.run(
        [*command, "sh", "-c", script], cwd=ROOT, env=env, capture_output=True, text=True, timeout=420
    )
    result_file = tmp_path / "result.json"
    assert result_file.exists(), f"the child wrote no result:\n{child.stdout[-3000:]}\n{child.stderr[-3000:]}"
    result: dict[str, Any] = json.loads(result_file.read_text())
    if result.get("ray_dir"):
        shutil.rmtree(result["ray_dir"], ignore_errors=True)
    if "skip" in result:
        pytest.skip(result["skip"])
    report = json.dumps({k: v for k, v in result.items() if k != "stdout"}, indent=1)[-6000:]

    killed = result["killed"]
    assert killed is not None, f"no worker was caught halfway through a cell:\n{report}"
    assert killed["cmdline"].startswith("ray::"), killed  # it was a Ray worker running a cell
    assert not result["killed_pid_alive"]
    assert result["returncode"] == 0, report

    rows = json.loads(result["stdout"])
    assert len(rows) == EXPECTED_CELLS and all(r["status"] == "completed" for r in rows), report
    cells = result["cells"]
    # no cell lost, none made twice: one run per cell, the same runs the summary shows
    assert len(cells) == EXPECTED_CELLS and len({c["cell"] for c in cells}) == EXPECTED_CELLS
    assert sorted(c["run"] for c in cells) == sorted(r["run"] for r in rows)
    assert killed["run"] in {c["run"] for c in cells}
    for cell in cells:
        n = len(cell["episodes"])
        assert n == 8 and cell["status"] == "completed" and set(cell["episodes"]) == {"completed"}, cell
        if cell["player"] == "llm":
            # every episode has its four turns once, the one cut by the kill included
            assert all(turns == [0, 1, 2, 3] for turns in cell["turns"]), cell
            assert [(status, size) for _, status, size in cell["baselines"]] == [("completed", n)], cell
        else:
            assert cell["baselines"] == []
    # the cells' runs and one baseline per model cell, nothing else
    assert result["runs"] == EXPECTED_CELLS + 2
