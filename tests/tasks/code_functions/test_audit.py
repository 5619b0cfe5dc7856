"""Code Functions Picnic's reward audit: the solver wins, and no degenerate predicate or hack of the hidden rule
is rewarded; each hack is read as a predicate and refuted by the code on the words where it is wrong. The
solver's moves are written as the replies that make them, under the published protocol (a guess every turn)
and under ``game-api`` (the one that can ask for more words), and their trajectories replay to their reward."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from wason.env import AsyncTextEnv
from wason.env.audit import audit
from wason.env.trajectories import replay, solver_trajectories
from wason.tasks.code_functions.audit import PLAYERS, hacks
from wason.tasks.code_functions.family import FAMILY
from wason.tasks.code_functions.game import GiveUp, Guess, More, PredicateAnswer, QuizAnswer
from wason.tasks.code_functions.protocol import CodeFunctionsProtocol, write_action
from wason.tasks.code_functions.vocabulary import vocabulary

# two turns (every guess costs a judgement over the word list): under the published protocol the solver
# guesses every turn, and wins the game of seed 0 at its first guess
SHORT = {"max_turns": 2}
HACKS = ("carve-out", "range cap")


def test_the_audit_passes_with_every_player_and_hack() -> None:
    checks = {c.name: c for c in asyncio.run(audit("code-functions", SHORT, games=1))}
    expected = {"solver", "format-breaking", "prompt's examples", *PLAYERS, *(f"hack {h}" for h in HACKS)}
    assert set(checks) == expected | {"leaks", "judges"}
    # no LLM judge runs without a model, so the judges report has nothing to compare
    assert {n: c.status for n, c in checks.items() if c.status != "ok"} == {"judges": "skip"}
    assert checks["solver"].detail.startswith("won 1 of 1")


async def _played(reply: str, seed: int) -> dict[str, Any]:
    env = AsyncTextEnv("code-functions", {"max_turns": 1})
    await env.reset(seed=seed)
    while not env.done:
        info = (await env.step(reply)).info
    await env.aclose()
    assert info["format_errors"] == 0  # read, not refused as unreadable
    return {"success": info["success"], **info["metrics"]}


def test_each_hack_is_read_as_a_predicate_and_refuted_where_it_is_wrong() -> None:
    env = AsyncTextEnv("code-functions")
    asyncio.run(env.reset(seed=3))
    assert env.record is not None
    made = hacks(env.record.item)
    assert tuple(sorted(made)) == HACKS
    rarest = vocabulary()[-1]
    for name, (reply,) in made.items():
        metrics = asyncio.run(_played(reply, 3))
        verdict = metrics["history"][0]["verdict"]
        assert not metrics["success"] and metrics["end_reason"] == "no turns left", name
        assert verdict["rejection"] is None and not verdict["equivalent"] and verdict["errors"] == 0, name
        wrong = [c["word"] for c in verdict["counterexamples"]]
        if name == "range cap":  # refuted on 7-letter words only, and on many of them
            assert wrong and all(len(w) == 7 for w in wrong) and verdict["accuracy"] < 0.95
        else:  # the one word flipped, and only it
            assert wrong == [rarest] and verdict["agree"] == verdict["heldout"] - 1


@pytest.mark.parametrize("name", ["always-True", "always-False"])
def test_the_constant_predicates_are_judged(name: str) -> None:
    metrics = asyncio.run(_played(PLAYERS[name][0], 0))
    verdict = metrics["history"][0]["verdict"]
    assert verdict["rejection"] is None and 0.0 < verdict["accuracy"] < 1.0


def test_every_move_is_written_as_a_reply_read_back_as_itself() -> None:
    protocol = CodeFunctionsProtocol("game-api")
    guess = Guess(text='The word ends with "s".\nlambda w: w[-1] == "s"', predicate='lambda w: w[-1] == "s"')
    for action in (More(25), guess, GiveUp()):
        text = write_action(action)
        assert text is not None and protocol.parse(text) == action, action
    assert write_action(PredicateAnswer("lambda w: len(w) > 4")) == "lambda w: len(w) > 4"
    quiz = QuizAnswer((True, None, False))
    assert write_action(quiz) == "1. Yes\n3. No"
    # a guess whose text does not give its predicate is no reply: no message makes it
    assert write_action(Guess(text="The word ends with s.", predicate="lambda w: w[-1] == 's'")) is None
    assert FAMILY.action_message({"type": "Nothing"}) is None
    assert FAMILY.action_message({"type": "GiveUp"}) == "give up"


def test_the_solver_trajectories_replay_to_their_reward() -> None:
    trajectories = asyncio.run(solver_trajectories("code-functions", {"protocol": "game-api"}, n=2))
    for trajectory in trajectories:
        assert trajectory["success"] and trajectory["reward"] == 1.0
        replies = [m["content"] for m in trajectory["messages"] if m["role"] == "assistant"]
        assert replies[0].startswith("more ") and "\nlambda w: " in replies[1]
        reward, info = asyncio.run(replay(trajectory))
        assert reward == 1.0 and info["success"]


def test_under_the_published_protocol_the_solver_guesses_every_turn_and_replays() -> None:
    # the default protocol (as-run) reads every reply as a guess: the solver makes only guesses, learns from
    # each wrong one, and its trajectories replay to their reward (seeds 3-5: games won at the third guess)
    trajectories = asyncio.run(solver_trajectories("code-functions", {}, n=3, seed=3))
    assert {t["config"]["protocol"] for t in trajectories} == {"as-run"}
    for trajectory in trajectories:
        assert trajectory["success"] and trajectory["reward"] == 1.0
        replies = [m["content"] for m in trajectory["messages"] if m["role"] == "assistant"]
        *guesses, quiz = replies
        assert len(guesses) == 3 and len(set(guesses)) == 3
        assert all("\nlambda w: " in g and not g.startswith("more") for g in guesses)
        assert quiz.startswith("1. ")
        reward, info = asyncio.run(replay(trajectory))
        assert reward == trajectory["reward"] and info["success"]
        assert info["metrics"]["requests"] == 0 and info["metrics"]["guesses"] == 3
