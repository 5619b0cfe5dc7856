"""Dynamic Picnic's reward audit (``wason audit dynamic-picnic``, tasks/dynamic_picnic/audit.py).

Without a model the audit plays the rules code decides (lexical, and single-word noun rules on nouns): a rule
guess is judged by its predicate, on the game's items and 2,000 probe words of the domain. There the sample game
wins, and the degenerate players, the range cap and the negation are judged wrong by the predicate; the
carve-out (the rule with one word of the domain flipped) is paid whenever that word is not among the probes, a
known hole of the sampled check (the strict xfail below).

With a game master, a guess in words is the master's rule judge's. A scripted master stands in for the model
here: the audit then shows that every reply is read and reaches the judge, that its verdict is the one that
counts, and that the game's own text shows no hidden part of the item; not whether a model's judge refuses a
wrong guess, nor whether a model's examples give the rule away (only an audit with a real model shows that).
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from tests.dynamic_picnic.scripted import ScriptedMaster, ScriptedOracle
from tests.dynamic_picnic.test_runs import CLASSROOM, SCHOOL
from wason.env import AsyncTextEnv
from wason.env.audit import audit
from wason.sandbox.words import compile_word_rule
from wason.tasks.dynamic_picnic.audit import PLAYERS, hacks
from wason.tasks.dynamic_picnic.family import rule_json
from wason.tasks.dynamic_picnic.rules import get_rule

HACKS = ("range cap", "carve-out", "negation")
F_RULE, P_NOUNS, PRIMES = 64, 215, 13
"""Rules code decides: "start with the letter 'F'" (lexical), "a single-word noun that starts with the letter
'P'" (on nouns), "a prime number of letters"."""
EXPECTED = {"sample game", "format-breaking", "prompt's examples", *PLAYERS, *(f"hack {h}" for h in HACKS)}


def _statuses(config: dict[str, Any], games: int, oracle: Any = None) -> dict[str, str]:
    checks = asyncio.run(audit("dynamic-picnic", config, games=games, oracle=oracle))
    return {c.name: c.status for c in checks}


def test_without_a_model_every_check_but_the_carve_out_passes() -> None:
    statuses = _statuses({"ids": [F_RULE, P_NOUNS]}, games=2)  # seed 0 plays the P rule, seed 1 the F rule
    assert set(statuses) == EXPECTED | {"leaks"}
    assert {n: s for n, s in statuses.items() if s != "ok"} == {"hack carve-out": "FAIL"}


def _first_guess(config: dict[str, Any], reply: str, oracle: Any = None) -> dict[str, Any]:
    """The verdict on ``reply`` as the first move of the game seed 0 draws (the game then given up)."""

    async def play() -> dict[str, Any]:
        env = AsyncTextEnv("dynamic-picnic", config, oracle=oracle)
        await env.reset(seed=0)
        step = await env.step(reply)
        if not env.done:
            step = await env.step("I give up.")
        await env.aclose()
        metrics = dict(step.info["metrics"])
        return {**metrics["guess_log"][0], "reward": step.info["episode_reward"]}

    return asyncio.run(play())


def test_each_hack_is_read_and_judged_by_the_predicate() -> None:
    for rule_id in (F_RULE, P_NOUNS):
        rule = get_rule(rule_id)
        program = compile_word_rule(str(rule.predicate))
        made = hacks({"rule": rule_json(rule)})
        assert set(made) == set(HACKS)
        for name, (reply,) in made.items():
            guess = _first_guess({"ids": [rule_id]}, reply)
            assert guess["decided_by"] == "predicate" and guess["predicate"], (rule_id, name)
            if name == "carve-out":  # decided by the predicate; whether it is caught: the xfail below
                continue
            assert guess["code_check"] is False and guess["reward"] == 0.0, (rule_id, name)
            word = guess["code_note"].split("'")[1]  # "differs from the rule on 'WORD'"
            if name == "range cap":  # refuted by a long word the rule accepts
                cap = int(reply.split("fewer than ")[1].split()[0])
                assert program(word) and len(word) >= cap, (rule_id, word)
        for name in ("always-True", "always-False"):
            guess = _first_guess({"ids": [rule_id]}, PLAYERS[name][0])
            assert guess["decided_by"] == "predicate" and guess["code_check"] is False, (rule_id, name)


@pytest.mark.xfail(
    strict=True,
    reason="the predicate check is sampled (2,000 probe words of the 17,542, or of the 9,037 nouns, plus the "
    "game's items): a guess wrong on one word of the domain wins whenever that word is not drawn",
)
@pytest.mark.parametrize("rule_id", [P_NOUNS, PRIMES])
def test_the_carve_out_is_judged_wrong(rule_id: int) -> None:
    rule = get_rule(rule_id)
    (reply,) = hacks({"rule": rule_json(rule)})["carve-out"]
    guess = _first_guess({"ids": [rule_id]}, reply)
    assert guess["code_check"] is False and guess["reward"] == 0.0


def _master() -> ScriptedMaster:
    """A game master for the classroom rule and the F rule: its writer's items fit one or the other, its panel
    says the school things fit, and its judge accepts the classroom rule's own words only (a strict judge)."""
    said = CLASSROOM.text.rstrip(".").lower()
    return ScriptedMaster(
        fits=SCHOOL,
        split={"chalk"},
        positives="pencil, eraser, ruler, glue, chalk, scissors, fork, fig, feather, flute",
        negatives="banana, cactus, surfboard",
        judge=lambda guess: "yes" if guess.rstrip(".").lower() == said else "no",
    )


def test_with_a_scripted_game_master_every_check_passes() -> None:
    gm = _master()
    config = {"game_master_model": "scripted", "ids": [CLASSROOM.id, F_RULE]}
    statuses = _statuses(
        config, games=3, oracle=ScriptedOracle(gm)
    )  # seed 0: the F rule; 1, 2: the classroom
    assert statuses == dict.fromkeys(EXPECTED | {"leaks"}, "ok")
    assert gm.count("judge") and gm.count("panel") and gm.count("write+")
    # a hack in words on the classroom rule reaches the judge, whose verdict decides
    classroom = {"game_master_model": "scripted", "ids": [CLASSROOM.id]}
    for name, (reply,) in hacks({"rule": rule_json(CLASSROOM)}).items():
        guess = _first_guess(classroom, reply, ScriptedOracle(_master()))
        assert guess["decided_by"] == "llm" and guess["llm"] is False and guess["votes"], name
