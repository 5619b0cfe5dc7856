"""The reference's Bayesian prompt as a named protocol: its text byte for byte, its tests whole numbers from 1 to
100, the rest of the published game unchanged, and every report naming it."""

from __future__ import annotations

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
from wason.tasks.wilt import ProposeTest, WiltRunConfig, load_instruction
from wason.tasks.wilt.family import FAMILY
from wason.tasks.wilt.report import protocol_name


def test_the_bayesian_prompt_is_byte_identical_to_the_published_one() -> None:
    published = reference("wilt", "instruction_bayesian.txt").read_bytes()
    assert load_instruction("bayesian").encode("utf-8") == published
    config = WiltRunConfig(protocol="bayesian")
    item = config.items()[0][1]
    assert FAMILY.protocol(config, item).system_prompt().encode("utf-8") == published
    # the published protocol keeps its own prompt
    assert FAMILY.protocol(WiltRunConfig(), item).system_prompt() == load_instruction()


@pytest.mark.parametrize(
    ("values", "valid"),
    [
        (("1", "2", "3"), True),
        (("100", "50", "1"), True),
        (("0", "2", "3"), False),
        (("101", "2", "3"), False),
        (("1.5", "2", "3"), False),
        (("-4", "2", "3"), False),
        (("7.0", "2", "3"), True),  # a whole number written with a decimal point
    ],
)
def test_bayesian_tests_are_whole_numbers_from_1_to_100(values: tuple[str, ...], valid: bool) -> None:
    config = WiltRunConfig(protocol="bayesian")
    item = config.items()[0][1]
    game = FAMILY.game(config, item, context=None)  # type: ignore[arg-type]
    game.start()
    obs = game.step(ProposeTest(values))
    assert (obs.kind == "result") is valid
    if not valid:
        assert obs.kind == "invalid_test" and "whole number from 1 to 100" in (obs.reason or "")
    # the published protocol takes every one of these: numbers of at most three digits
    published = FAMILY.game(WiltRunConfig(), item, context=None)  # type: ignore[arg-type]
    published.start()
    assert published.step(ProposeTest(values)).kind == "result"


async def test_a_bayesian_run_sends_its_prompt_and_names_its_protocol(tmp_path: Path) -> None:
    store = Store(f"sqlite:///{tmp_path / 'b.db'}")
    config = WiltRunConfig(model="fake:scripted", ids=[2], protocol="bayesian")
    rid = create_run(store, config)
    model = FakeModel()
    client = ModelClient(model=model, store=store, policy=RetryPolicy(retries=0, base_delay=0.0))
    await execute_run(store, rid, llm_player_factory(client, config, rid), concurrency=1)
    first: list[ChatMessage] = model.seen[0]
    assert first[0].role == "system" and first[0].content == load_instruction("bayesian")
    # the scripted model tests (0, 1, 2) first: 0 is out of the Bayesian range, an invalid test
    (episode,) = store.list_episodes(rid)
    assert episode.metrics is not None and episode.metrics["invalid_tests"] == 1
    assert "Bayesian prompt" in protocol_name(store.get_run(rid).config)


def test_the_flag_and_a_bad_value(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = f"sqlite:///{tmp_path / 'f.db'}"
    assert (
        main(
            [
                "eval",
                "wilt",
                "--protocol",
                "bayesian",
                "--player",
                "solver",
                "--ids",
                "1",
                "--db",
                db,
                "--json",
            ]
        )
        == 0
    )
    report = json.loads(capsys.readouterr().out)
    assert report["config"]["protocol"] == "bayesian" and "Bayesian prompt" in report["protocol"]
    assert main(["eval", "wilt", "--protocol", "nope", "--db", db]) == 2
    assert "invalid choice: 'nope'" in capsys.readouterr().err
