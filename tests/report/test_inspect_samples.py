"""Inspect logs of every family tell their samples apart and say what each was about: the target is what was
hidden (the rule, the laws, the right answer), the success score's answer what the player guessed, the inputs
differ where the items do (the examples a game opens with, not the same instructions), the plan names who
played, and a run that asked no model has no generation settings (a solver's stored defaults were never used)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.fakes.openai_server import FakeOpenAIServer
from tests.tasks.aiw.test_aiw_runs import alice_reply
from tests.tasks.dynamic_picnic.scripted import openai_reply
from tests.tasks.dynamic_picnic.test_runs import CLASSROOM, master, player
from tests.tasks.lists.test_lists_runs import scientist
from wason.cli import main
from wason.store import Store

SOLVED = {
    "wilt": ["--split", "lite", "--ids", "1,2,3,4"],
    "lists": ["--ids", "1,2,3"],
    "picnic": ["--n", "2"],
    "math": ["--n", "3"],
    "code-functions": ["--n", "3"],
    "lab": ["--n", "3"],
}


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Store, int, Any]]:
    """A run of every family, exported: the solver's where the family has one, a model's for AIW, Dynamic
    Picnic and lists (through the fake endpoint), each log by ``family`` (``family/llm`` for a model's)."""
    pytest.importorskip("inspect_ai", reason="Inspect logs need inspect_ai (the dev extra installs it)")
    from wason.report.inspect_log import eval_log

    db = f"sqlite:///{tmp_path_factory.mktemp('samples') / 'runs.db'}"
    made: dict[str, int] = {}
    for family, args in SOLVED.items():
        assert main(["eval", family, "--player", "solver", *args, "--db", db]) == 0
        made[family] = Store(db).list_runs()[-1].id
    for key, reply, args in [
        ("aiw/llm", alice_reply, ["aiw", "--trials", "1", "--prompt-types", "STANDARD"]),
        (
            "dynamic-picnic/llm",
            openai_reply(master(), player),
            ["dynamic-picnic", "--ids", str(CLASSROOM.id)],
        ),
        ("lists/llm", scientist, ["lists", "--ids", "1,2", "--no-baseline"]),
    ]:
        with FakeOpenAIServer(reply) as server:
            common = ["--model", "vllm:fake", "--base-url", server.base_url, "--max-tokens", "300"]
            assert main(["eval", *args, *common, "--db", db]) == 0
        made[key] = next(
            r.id for r in Store(db).list_runs() if r.player == "llm" and r.id not in made.values()
        )
    store = Store(db)
    return {key: (store, run, eval_log(store, run)) for key, run in made.items()}


def _hidden(family: str, item: dict[str, Any]) -> list[str]:
    """What was hidden, read from the item as each family stores it (every piece must be in the target)."""
    if family == "wilt":
        return [item["rule"]]
    if family == "lab":
        return list(item["domain"]["law_text"])
    if family == "aiw":
        return [str(item["expected"])]
    return [item["rule"]["text"]]


def _guessed(family: str, metrics: dict[str, Any]) -> str | None:
    """The player's last guess, read from the metrics as each family stores it."""
    key = {
        "wilt": "guess",
        "lists": "final_hypothesis",
        "picnic": "final_guess",
        "math": "final_guess",
        "code-functions": "final_guess",
        "lab": "theory",
        "aiw": "answer",
    }.get(family)
    if key is None:  # dynamic picnic: its guesses in order
        guesses = [g["text"] for g in metrics.get("guess_log") or []]
        return guesses[-1] if guesses else None
    return metrics.get(key)


def test_every_familys_samples_have_their_target_and_answer(logs: dict[str, tuple[Store, int, Any]]) -> None:
    for key, (store, run, log) in logs.items():
        family = key.split("/")[0]
        episodes = store.list_episodes(run)
        assert len(log.samples) == len(episodes) > 0, key
        for sample, e in zip(log.samples, episodes, strict=True):
            assert sample.target, (key, e.index)
            assert all(piece in sample.target for piece in _hidden(family, e.item)), (key, sample.target)
            guess = _guessed(family, e.metrics or {})
            assert guess is not None, (key, e.index)
            answer = sample.scores["success"].answer
            assert answer is not None and str(guess) in answer, (key, answer, guess)


def test_inputs_tell_the_samples_of_different_items_apart(logs: dict[str, tuple[Store, int, Any]]) -> None:
    for key, (store, run, log) in logs.items():
        episodes = store.list_episodes(run)
        inputs = {}
        for sample, e in zip(log.samples, episodes, strict=True):
            assert isinstance(sample.input, str) and sample.input.strip(), key
            inputs.setdefault(sample.input, set()).add(e.item_key)
        if len({e.item_key for e in episodes}) > 1:
            assert all(len(keys) == 1 for keys in inputs.values()), (key, inputs)
    # the lists games open with the same instructions: what tells them apart is their examples
    store, run, log = logs["lists/llm"]
    for sample, e in zip(log.samples, store.list_episodes(run), strict=True):
        assert not sample.input.startswith("Hello")
        assert str(e.item["examples"][0]) in sample.input


def test_the_plan_names_the_player_and_only_a_model_has_generation_settings(
    logs: dict[str, tuple[Store, int, Any]],
) -> None:
    for store, run, log in logs.values():
        row = store.get_run(run)
        (step,) = log.plan.steps
        assert step.params["player"] == row.player and step.params["family"] == row.task
        if row.player == "solver":
            assert step.solver == "wason/solver" and step.params["label"] == "solver (reference)"
            # the CLI stored its default settings with the solver's run; it asked no model with them
            assert (row.config.get("params") or {}).get("max_tokens") is not None
            assert log.eval.model_generate_config.model_dump(exclude_none=True) == {}
            assert log.plan.config.model_dump(exclude_none=True) == {}
        else:
            assert step.solver == "wason/llm" and step.params["model"] == "vllm/fake"
            assert log.eval.model_generate_config.max_tokens == 300


def test_a_game_masters_calls_are_not_the_players_conversation(
    logs: dict[str, tuple[Store, int, Any]],
) -> None:
    store, run, log = logs["dynamic-picnic/llm"]
    (sample,) = log.samples
    replies = [t["reply"] for t in store.list_turns(store.list_episodes(run)[0].id) if t["reply"]]
    assert sample.messages[-1].role == "assistant" and sample.messages[-1].text == replies[-1]
    assert "You are a player" in sample.input
    # every call is still an event of the sample: the game master's and the judge's too
    assert len(sample.events) == len(store.list_calls(run_id=run))
