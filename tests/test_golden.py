"""Golden outputs: `wason show RUN --json`, the results tables and transcripts of WILT, list-rules and AIW runs
are byte for byte what the release before the family registry printed (captured before it was written).

Each case runs `wason eval` against the fake OpenAI-compatible server with a scripted model, then the report
commands. Only what differs between two identical runs is masked: the fake server's port, the temporary store's
path and creation times. Regenerate (after a deliberate change of output) with
``WASON_UPDATE_GOLDEN=1 pytest tests/test_golden.py`` and review the diff.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.openai_server import FakeOpenAIServer
from tests.tasks.aiw.test_aiw_runs import alice_reply
from tests.tasks.lists.test_lists_runs import scientist
from wason.cli import main

GOLDEN = Path(__file__).parent / "golden"
UPDATE = os.environ.get("WASON_UPDATE_GOLDEN") == "1"


def wilt_reply(messages: list[dict[str, Any]], body: dict[str, Any]) -> str:
    """Tests (n, n+1, n+2) for three turns, one unreadable reply, then guesses x < y < z."""
    turn = sum(m["role"] == "assistant" for m in messages)
    if turn < 3:
        return f"Ordering?\nTest Case: ```({turn}, {turn + 1}, {turn * 2 + 2})```"
    if turn == 3:
        return "Hmm, let me think."
    return "I am confident.\nFinal Guess: ```lambda x, y, z: x < y < z```"


CASES: dict[str, tuple[Callable[..., str], list[str]]] = {
    "wilt": (wilt_reply, ["wilt", "--ids", "1,2,3"]),
    "lists": (scientist, ["lists", "--ids", "1,2", "--trials", "2"]),
    "aiw": (alice_reply, ["aiw", "--trials", "2", "--prompt-types", "STANDARD,THINKING"]),
}


def _mask(text: str, db: str, port: str) -> str:
    # the port only where it is one: as digits it may also be inside a number of the report (0.9793917921...)
    text = text.replace(db, "<db>").replace(f"127.0.0.1:{port}", "127.0.0.1:<port>")
    return re.sub(r"\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d(\.\d+)?(\+00:00)?", "<time>", text)


def _centred(text: str) -> str:
    # a title centred over a table moves with the length of the temporary store's path it names
    return "\n".join(line.strip() if "<db>" in line else line for line in text.split("\n"))


def _capture(name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, str]:
    reply, args = CASES[name]
    db = f"sqlite:///{tmp_path / 'golden.db'}"
    out: dict[str, str] = {}
    with FakeOpenAIServer(reply) as server:
        port = server.base_url.split(":")[2].split("/")[0]
        common = ["--model", "vllm:fake", "--base-url", server.base_url, "--db", db]
        assert main(["eval", *args, *common, "--json"]) == 0
        out["eval.json"] = capsys.readouterr().out
    run = str(json.loads(out["eval.json"])["run"])
    commands = {
        "show.json": ["show", run, "--json"],
        "show.txt": ["show", run],
        "episode0.json": ["show", run, "--episode", "0", "--json"],
        "episode0.txt": ["show", run, "--episode", "0"],
        "episode1.txt": ["show", run, "--episode", "1"],
        "runs.json": ["runs", "--json"],
        "runs.txt": ["runs"],
    }
    for key, argv in commands.items():
        assert main([*argv, "--db", db]) == 0, key
        out[key] = capsys.readouterr().out
    masked = {k: _mask(v, db, port) for k, v in out.items()}
    for key in ("runs.json", "runs.txt"):  # how long a run took differs between two identical runs
        masked[key] = re.sub(r'("duration_s": )[0-9.e-]+', r"\1<seconds>", masked[key])
        # every form the runs list writes (4.2s, 37s, 3m05s, 2h04m): a loaded machine takes longer
        masked[key] = re.sub(r" +(\d+\.\ds|\d+s|\d+m\d\ds|\d+h\d\dm) +", " <s> ", masked[key])
        masked[key] = re.sub(r"\d{4}-\d\d-\d\d \d\d:\d\d", "<time>", masked[key])
    return masked


@pytest.mark.parametrize("name", sorted(CASES))
def test_reports_are_unchanged(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "160")  # the tables' width, as when piped
    got = _capture(name, tmp_path, capsys)
    folder = GOLDEN / name
    if UPDATE:
        folder.mkdir(parents=True, exist_ok=True)
        for key, text in got.items():
            (folder / key).write_text(text)
    expected = {p.name: p.read_text() for p in sorted(folder.iterdir())}
    assert sorted(expected) == sorted(got)
    for key in sorted(got):
        assert _centred(got[key]) == _centred(expected[key]), f"{name}/{key} differs from the golden output"
