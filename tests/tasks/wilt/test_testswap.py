"""The test swap (paper A.2, function inversion): another run's tests, reasoning stripped, given to the player in
one turn with the published prompt; one guess, judged like any WILT guess."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from tests.conftest import FakeModel
from tests.reference import reference
from wason.cli import main
from wason.engine import create_run, execute_run, llm_player_factory
from wason.models.base import ChatMessage
from wason.models.client import ModelClient, RetryPolicy
from wason.store import Store
from wason.tasks.wilt import WiltRunConfig
from wason.tasks.wilt.family import FAMILY
from wason.tasks.wilt.report import protocol_name


def _solver_run(db: str, capsys: pytest.CaptureFixture[str], ids: str = "1,2,8") -> int:
    assert main(["eval", "wilt", "--player", "solver", "--ids", ids, "--db", db, "--json"]) == 0
    return int(json.loads(capsys.readouterr().out)["run"])


def _guess_reply(messages: list[ChatMessage]) -> str:
    return "From these cases the rule looks like an ordering.\nFinal Guess: ```lambda x, y, z: x < y < z```"


def test_a_model_gets_the_source_tests_in_the_published_prompt_and_guesses_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = f"sqlite:///{tmp_path / 's.db'}"
    source = _solver_run(db, capsys)
    store = Store(db)
    config = FAMILY.prepare(WiltRunConfig(model="fake:m", protocol="testswap", tests_from=source), store)
    rid = create_run(store, config, FAMILY.items(config))
    model = FakeModel(reply=_guess_reply)
    client = ModelClient(model=model, store=store, policy=RetryPolicy(retries=0, base_delay=0.0))
    asyncio.run(execute_run(store, rid, llm_player_factory(client, config, rid), concurrency=1))

    published = reference("wilt", "instruction_testswap.txt").read_text(encoding="utf-8")
    head, tail = published.split("{testcases}")
    source_eps = {e.item_key: e for e in store.list_episodes(source)}
    episodes = store.list_episodes(rid)
    assert [e.item_key for e in episodes] == list(source_eps)  # the source's rules, in order
    assert len(model.seen) == len(episodes)  # one call per rule
    for sent, episode in zip(model.seen, episodes, strict=True):
        prompt = sent[0].content
        assert sent[0].role == "system" and len(sent) == 1
        assert prompt.startswith(head) and prompt.endswith(tail)
        lines = prompt[len(head) : len(prompt) - len(tail)].split("\n")
        history = (source_eps[episode.item_key].metrics or {})["history"]
        assert (
            len(lines) == len(history) and lines[0].startswith("(") and lines[0].endswith(("True", "False"))
        )
        assert [line.endswith(str(r)) for line, (_, r) in zip(lines, history, strict=True)] == [True] * len(
            lines
        )
        assert episode.metrics is not None and episode.metrics["tests"] == 0
        assert len(store.list_turns(episode.id)) == 1
    correct = {e.item_key: (e.metrics or {})["correct"] for e in episodes}
    assert correct["lite/2"] is True and correct["lite/1"] is False  # lite/2 is x < y < z
    assert "tests of run" in protocol_name(store.get_run(rid).config)
    # the stored configuration holds the tests: a resumed run needs nothing from the source
    stored = store.get_run(rid).config
    assert [s["key"] for s in stored["swap"]] == list(source_eps)


def test_the_solver_reads_the_tests_it_is_given(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = f"sqlite:///{tmp_path / 's.db'}"
    source = _solver_run(db, capsys)
    argv = ["eval", "wilt", "--protocol", "testswap", "--tests-from", str(source), "--player", "solver"]
    assert main([*argv, "--db", db, "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["table"]["accuracy"]["k"] == 3 and report["summary"]["avg_guesses"] == 0


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--protocol", "testswap"], "--protocol testswap and --tests-from RUN go together"),
        (["--tests-from", "1"], "--protocol testswap and --tests-from RUN go together"),
        (["--protocol", "testswap", "--tests-from", "99"], "no run 99"),
        (["--protocol", "testswap", "--tests-from", "2"], "run 2 is lists, not wilt"),
    ],
)
def test_bad_sources_are_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    db = f"sqlite:///{tmp_path / 's.db'}"
    _solver_run(db, capsys)
    assert main(["eval", "lists", "--player", "solver", "--ids", "1", "--db", db, "--json"]) == 0
    capsys.readouterr()
    assert main(["eval", "wilt", *argv, "--db", db]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err and "Value error" not in err
