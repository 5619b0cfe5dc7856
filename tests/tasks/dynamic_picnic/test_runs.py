"""Dynamic Picnic end to end: `wason eval` over real HTTP with the fake endpoint as player and game master,
the stored votes, reports, a restored session that asks nothing, and the reference's game API (by code)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from tests.fakes.openai_server import FakeOpenAIServer
from tests.reference import reference
from tests.tasks.dynamic_picnic.scripted import ScriptedMaster, openai_reply
from wason.cli import main
from wason.core import session
from wason.games import Games
from wason.report.render import results_terminal
from wason.store import Store
from wason.tasks.dynamic_picnic.family import FAMILY
from wason.tasks.dynamic_picnic.rules import published_rules

SCHOOL = {"pencil", "eraser", "ruler", "glue", "chalk", "scissors"}
CLASSROOM = next(
    r for r in published_rules() if r.text.startswith("Only items that are typically found in a school")
)


def master() -> ScriptedMaster:
    return ScriptedMaster(
        fits=SCHOOL,
        split={"chalk"},
        positives="pencil, eraser, ruler, glue, chalk, scissors",
        negatives="banana, cactus, surfboard",
        judge=lambda guess: "yes" if "school" in guess.lower() else "[your final answer: yes or no]",
    )


def player(prompt: str) -> str:
    if "Player: Can I bring a stapler?" not in prompt:
        return "Can I bring a stapler?"
    if "Player: The rule is: office things" not in prompt:
        return "The rule is: office things"
    return "The rule is: items found in a school classroom."


def test_a_model_plays_against_a_validating_game_master(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = f"sqlite:///{tmp_path / 'dp.db'}"
    gm = master()
    with FakeOpenAIServer(openai_reply(gm, player)) as server:
        args = ["eval", "dynamic-picnic", "--model", "vllm:fake", "--base-url", server.base_url, "--db", db]
        assert main([*args, "--ids", str(CLASSROOM.id), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    (level, total) = data["levels"]
    assert level["level"] == CLASSROOM.level and total["games"] == 1 and total["wins"]["k"] == 1
    assert total["wins"]["n"] == 1 and total["wins"]["rate"] == 1.0 and total["wins"]["interval"][1] == 1.0
    assert total["turns"] == 3.0 and total["llm_judge"]["n"] == 1  # the echoed format line did not pass
    assert total["positives_seen"] == 2 and total["negatives_seen"] == 2
    # every item the writers gave was voted on by three validators, the question too, and the guesses by three
    assert gm.count("panel") == 3 * (6 + 3 + 1) and gm.count("judge") == 6

    store = Store(db)
    run = store.list_runs()[0]
    (episode,) = store.list_episodes(run.id)
    turns = store.list_turns(episode.id)
    prepare = turns[0]["oracle"]["prepare"]
    assert set(prepare["votes"]) == SCHOOL | {"banana", "cactus", "surfboard"}
    assert all(len(v["replies"]) == 3 for v in prepare["votes"].values())
    assert turns[1]["oracle"]["ask"]["vote"]["votes"] == [False, False, False]
    assert turns[2]["oracle"]["judge"]["replies"] == ["[your final answer: yes or no]"] * 3
    # the game master prepared the first examples as the game's own move (turn 0, no reply), so the player's
    # every call is one published turn prompt alone, byte for byte, holding the conversation so far
    assert turns[0]["action"] == {"type": "Begin"} and turns[0]["reply"] is None
    turn = reference("guess_the_rule", "dynamic_picnic", "experiment_player_turn.txt").read_text()
    opening = turn.split("{examples_text}")[0]
    player_calls = [
        c for c in store.list_calls(run_id=run.id) if c["messages"][0]["content"].startswith(opening)
    ]
    assert len(player_calls) == 3 and all(len(c["messages"]) == 1 for c in player_calls)
    assert player_calls[0]["messages"][0]["role"] == "user"
    first_history = (
        'Game Master: To start, here are some examples of items you can bring: "pencil" and "eraser".\n'
        'Game Master: You cannot bring: "banana" and "cactus".'
    )
    assert player_calls[0]["messages"][0]["content"] == turn.replace(
        "{examples_text}", '"pencil" and "eraser"'
    ).replace("{conversation_history}", first_history)
    second = player_calls[1]["messages"][0]["content"]
    assert f"{first_history}\nPlayer: Can I bring a stapler?\n" in second  # its own move is in the prompt

    # restored in this process with no model: the stored records answer, nothing is asked (the server is gone)
    async def restore() -> Any:
        return await session.summary(store, episode.id)

    summary = asyncio.run(restore())
    assert summary["done"] and summary["success"] is True
    assert summary["observation"]["end_reason"] == "won"

    assert main(["show", str(run.id), "--db", db]) == 0
    shown = capsys.readouterr().out
    assert "rules rejected by validation (not counted): 0" in shown and "Seconds" in shown
    assert total["seconds"] >= 0.0
    assert main(["show", str(run.id), "--db", db, "--episode", "0"]) == 0
    out = capsys.readouterr().out
    assert "[Player]\nCan I bring a stapler?" in out and "[Game Master] No, you cannot bring stapler." in out
    # the published prompt, sent every turn, is shown once and folded; --full shows it whole
    assert f"more lines; the whole prompt: wason show {run.id} --episode 0 --full]" in out
    assert main(["show", str(run.id), "--db", db, "--episode", "0", "--full"]) == 0
    whole = capsys.readouterr().out
    assert "more lines; the whole prompt" not in whole and len(whole.splitlines()) > len(out.splitlines())
    # the tables fit an 80-column terminal without cutting a word
    console = Console(width=80, record=True)
    for part in results_terminal(FAMILY.results(store, [run.id])):
        console.print(part)
    text = console.export_text()
    # the one game, won: 1/1, 100% with its Wilson interval
    assert "Won" in text and "100% [21-100]" in text and "1/1" in text
    assert all(len(line) <= 80 for line in text.splitlines()) and "…" not in text
    # the comparison's columns: the win rate with its Wilson interval first, then what the games took
    scores = FAMILY.scores(store, run.id)
    assert [s.short for s in scores] == ["Win", "Turns", "Asked", "Examples", "Agree"]
    assert (scores[0].k, scores[0].n, scores[1].value) == (1, 1, 3.0)
    assert all(len(s.short) <= 8 and s.legend for s in scores)
    store.close()


def test_the_reference_game_api_plays_a_lexical_rule_by_code(tmp_path: Path) -> None:
    from wason.tasks.dynamic_picnic.family import DynamicPicnicGameApi

    games = Games(f"sqlite:///{tmp_path / 'api.db'}")
    # L1 draws among 23 rules now (issue 49): a seed that draws the one about the letter F
    f_rule = "Only items that start with the letter 'F' can be brought to the picnic."
    seed = next(
        s for s in range(200) if DynamicPicnicGameApi().create("L1", 2, s)[1][1]["rule"]["text"] == f_rule
    )

    async def play() -> list[dict[str, Any]]:
        created = await games.create("dynamic_picnic", "L1", 2, seed=seed)
        game_id = created["game_uuid"]
        more = await games.more(game_id, 2)
        words = await games.validate_guess(game_id, "items starting with f")
        summary = await games.summary(game_id)
        right = await games.validate_guess(game_id, 'The rule is: starts with f. lambda w: w.startswith("f")')
        final = await games.summary(game_id)
        return [created, more, words, summary, right, final]

    created, more, words, summary, right, final = asyncio.run(play())
    assert created["system_message"].startswith("Let's play the game 'going on a picnic'.")
    assert len(created["positive_examples"]) == 2 and all(
        w.startswith("f") for w in created["positive_examples"]
    )
    assert not any(w.startswith("f") for w in created["negative_examples"])
    assert len(more["positive_examples"]) == 2 and more["system_message"].startswith("You can bring: ")
    assert words["guess_result"] is None and "predicate" in words["system_message"]
    assert summary["status"] == "ongoing" and "rule" not in summary
    assert right["status"] == "won" and right["guess_result"] is True
    assert final["rule"] == f_rule
    for view in (created, summary, final):
        assert view["game_class_name"] == "DynamicGoingOnAPicnic"
        assert (view["domain"], view["game_gen_type"]) == ("natural_language", "dynamic")
    # the reference's resume text (base.py:37-50): the conversation so far, a user line for each guess only
    conversation = "\n".join(
        [
            f"Assistant: {created['system_message']}",
            f"Assistant: {more['system_message']}",
            "User: items starting with f",
            f"Assistant: {words['system_message']}",
        ]
    )
    resume = reference("guess_the_rule", "dynamic_picnic", "api_resume_message.txt").read_text(
        encoding="utf-8"
    )
    assert summary["system_message"] == resume.replace("{current_conversation}", conversation)
    assert summary["game_history"]["positives"] == created["positive_examples"] + more["positive_examples"]
    # base.py:53 of the reference, quoted
    assert final["system_message"] == (
        f'Game is over. You won. The rule was "{final["rule"]}".\nCheck your stats in the top panel.'
    )
    games.store.close()


def test_the_game_master_calls_use_its_own_temperature() -> None:
    from tests.tasks.dynamic_picnic.scripted import ScriptedOracle
    from wason.core.family import EpisodeContext
    from wason.models.base import GenerationParams
    from wason.tasks.dynamic_picnic.family import DynamicPicnicRunConfig, build_game
    from wason.tasks.dynamic_picnic.game import Begin

    config = DynamicPicnicRunConfig(
        model="m", ids=[CLASSROOM.id], params=GenerationParams(temperature=0.0), game_master_temperature=1.0
    )
    gm = master()
    game = build_game(
        config, config.items()[0][1], EpisodeContext(run_id=1, episode_id=1, oracle=ScriptedOracle(gm))
    )
    game.start()
    asyncio.run(game.settle(Begin()))
    assert gm.temperatures and set(gm.temperatures) == {1.0}
    with pytest.raises(ValueError, match="game_master_temperature"):
        DynamicPicnicRunConfig(model="m", game_master_temperature=3.0)


def test_a_failed_game_master_errors_the_episode_and_resume_repeats_no_finished_call(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = f"sqlite:///{tmp_path / 'resume.db'}"
    gm = master()
    state = {"judge_up": False, "requests": 0}
    inner = openai_reply(gm, player)

    def flaky(messages: list[Any], body: dict[str, Any]) -> str:
        state["requests"] += 1
        if messages[0]["content"].startswith("You are an expert at identifying") and not state["judge_up"]:
            raise ConnectionError("the judge is down")
        return inner(messages, body)

    with FakeOpenAIServer(flaky) as server:
        args = ["eval", "dynamic-picnic", "--model", "vllm:fake", "--base-url", server.base_url, "--db", db]
        assert main([*args, "--ids", str(CLASSROOM.id), "--retries", "0", "--timeout", "5", "--json"]) == 1
        first = json.loads(capsys.readouterr().out)
        assert first["errored"] == 1
        before = state["requests"]
        panel_before = gm.count("panel")
        state["judge_up"] = True
        assert main(["eval", "--resume", str(first["run"]), "--db", db, "--json"]) == 0
    resumed = json.loads(capsys.readouterr().out)
    assert resumed["levels"][-1]["wins"]["k"] == 1 and resumed["errored"] == 0
    # the replayed episode's first three player calls, the writers and the panel came from the cache: new are
    # the judge's six votes (two guesses) and the player's last reply, which the failure came before
    assert gm.count("panel") == panel_before and gm.count("judge") == 6
    assert state["requests"] - before == 6 + 1


def test_runs_fill_the_papers_table_columns() -> None:
    from wason.tasks.dynamic_picnic.family import FAMILY, DynamicPicnicRunConfig

    config = DynamicPicnicRunConfig()  # every level: each episode fills its rule's level's column
    columns = {FAMILY.column(config, item) for _, item in FAMILY.items(config)}
    assert columns == {"DP L1", "DP L2", "DP L3"}
    config = DynamicPicnicRunConfig(level="L2")
    assert {FAMILY.column(config, item) for _, item in FAMILY.items(config)} == {"DP L2"}
