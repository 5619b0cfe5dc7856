"""docs/examples/grpo_loop.py runs as documented: groups of one secret played together against an
OpenAI-compatible endpoint (here the fake server), with their rewards and group-relative advantages."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.fakes.openai_server import FakeOpenAIServer
from tests.inspect.scripted import reply

ROOT = Path(__file__).resolve().parents[2]


def test_the_grpo_example_plays_groups_and_prints_their_advantages() -> None:
    with FakeOpenAIServer(reply=reply, model_name=None) as server:
        done = subprocess.run(
            [sys.executable, str(ROOT / "docs" / "examples" / "grpo_loop.py"), "--base-url", server.base_url,
             "--model", "fake-model", "--config", json.dumps({"ids": [1, 2]}), "--group", "3", "--steps", "2"],
            capture_output=True, text=True, cwd=ROOT,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr[-2000:]
        asked = len(server.bodies)
    steps = [json.loads(line) for line in done.stdout.splitlines()]
    assert [s["step"] for s in steps] == [0, 1]
    # the scripted player tests four times, then guesses x < y < z: lite/2's rule (seed 0), not lite/1's
    assert steps[0]["rewards"] == [1.0] * 3 and steps[1]["rewards"] == [0.0] * 3
    assert all(s["turns"] == [5, 5, 5] and s["advantages"] == [0.0, 0.0, 0.0] for s in steps)
    assert asked == 2 * 3 * 5


def test_advantages_are_group_relative() -> None:
    import importlib.util

    spec = importlib.util.spec_from_file_location("grpo_loop", ROOT / "docs" / "examples" / "grpo_loop.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    got = module.advantages([1.0, 0.0, 0.0, 1.0])
    assert [round(a, 4) for a in got] == [1.0, -1.0, -1.0, 1.0]
    assert module.advantages([0.5, 0.5]) == [0.0, 0.0]
