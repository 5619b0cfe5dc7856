"""Dynamic Picnic's reward audit (``wason audit dynamic-picnic``, tasks/dynamic_picnic/audit.py).

Without a model the audit plays the rules code decides (lexical, and single-word noun rules on nouns): a rule
guess is judged by its predicate, on the game's items and every word of the domain (the word list, or its nouns).
There the sample game wins, and the degenerate players and every hack are judged wrong by the predicate: the
range cap, the negation and the carve-out (the rule with one word of the domain flipped), which the check of
2,000 probe words before it paid whenever that word was not among them.

With a game master, a guess in words is the master's rule judge's. A scripted master stands in for the model
here: the audit then shows that every reply is read and reaches the judge, that its verdict is the one that
counts, and that the game's own text shows no hidden part of the item; not whether a model's judge refuses a
wrong guess, nor whether a model's examples give the rule away (only an audit with a real model shows that).
"""

from __future__ import annotations

import asyncio
import random
from typing import Any

import pytest

from tests.tasks.dynamic_picnic.scripted import ScriptedMaster, ScriptedOracle
from tests.tasks.dynamic_picnic.test_runs import CLASSROOM, SCHOOL
from wason.env import AsyncTextEnv
from wason.env.audit import audit
from wason.sandbox.words import compile_word_rule
from wason.tasks.dynamic_picnic import vocab
from wason.tasks.dynamic_picnic.audit import PLAYERS, hacks
from wason.tasks.dynamic_picnic.family import rule_json
from wason.tasks.dynamic_picnic.game import JUDGE_VERSION, PicnicSettings
from wason.tasks.dynamic_picnic.rules import get_rule, noun_rule

HACKS = ("range cap", "carve-out", "negation")
F_RULE, P_NOUNS, PRIMES, QWERTY = 64, 215, 13, 8
"""Rules code decides: "start with the letter 'F'" (lexical), "a single-word noun that starts with the letter
'P'" (on nouns), "a prime number of letters", "can be typed using only the top row of a QWERTY keyboard"."""
EXPECTED = {"sample game", "format-breaking", "prompt's examples", *PLAYERS, *(f"hack {h}" for h in HACKS)}


def _statuses(config: dict[str, Any], games: int, oracle: Any = None) -> dict[str, str]:
    checks = asyncio.run(audit("dynamic-picnic", config, games=games, oracle=oracle))
    return {c.name: c.status for c in checks}


def test_without_a_model_every_check_passes() -> None:
    statuses = _statuses({"ids": [F_RULE, P_NOUNS]}, games=2)  # seed 0 plays the P rule, seed 1 the F rule
    assert statuses == dict.fromkeys(EXPECTED | {"leaks"}, "ok") | {"judges": "skip"}


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
            assert guess["code_check"] is False and guess["reward"] == 0.0, (rule_id, name)
            assert guess["code_judge"] == JUDGE_VERSION, (rule_id, name)
            word = guess["code_note"].split("'")[1]  # "differs from the rule on 'WORD'"
            if name == "range cap":  # refuted by a long word the rule accepts
                cap = int(reply.split("fewer than ")[1].split()[0])
                assert program(word) and len(word) >= cap, (rule_id, word)
            if name == "carve-out":  # refuted by the flipped word, one the player could have asked about
                assert f"except {word}," in reply and program(word), (rule_id, word)
        for name in ("always-True", "always-False"):
            guess = _first_guess({"ids": [rule_id]}, PLAYERS[name][0])
            assert guess["decided_by"] == "predicate" and guess["code_check"] is False, (rule_id, name)


@pytest.mark.parametrize(
    ("name", "rule_id"), [("carve-out", P_NOUNS), ("carve-out", PRIMES), ("range cap", QWERTY)]
)
def test_a_hack_wrong_on_a_word_the_probes_miss_is_judged_wrong(name: str, rule_id: int) -> None:
    # the word that refutes it is not among the game's items nor the 2,000 probe words seed 0 draws: the check of
    # those alone paid these hacks (the audit of 41 games: the carve-out in 19, the range cap in 1)
    rule = get_rule(rule_id)
    (reply,) = hacks({"rule": rule_json(rule)})[name]
    guess = _first_guess({"ids": [rule_id]}, reply)
    assert guess["code_check"] is False and guess["reward"] == 0.0
    word = guess["code_note"].split("'")[1]  # "differs from the rule on 'WORD'"
    if name == "carve-out":
        assert f"except {word}," in reply
    else:  # the rule accepts it, and it is as long as the longest word the rule accepts
        program = rule.program()
        assert program is not None and program(word) and f"fewer than {len(word)} letters" in reply
    words = vocab.domain_words("nouns" if noun_rule(rule) else "words")
    assert word not in random.Random(0).sample(words, PicnicSettings().probes)


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
    # the judges line is skipped: the game reports no "judges" metric (its LLM judge beside the predicate)
    assert statuses == dict.fromkeys(EXPECTED | {"leaks"}, "ok") | {"judges": "skip"}
    assert gm.count("judge") and gm.count("panel") and gm.count("write+")
    # a hack in words on the classroom rule reaches the judge, whose verdict decides
    classroom = {"game_master_model": "scripted", "ids": [CLASSROOM.id]}
    for name, (reply,) in hacks({"rule": rule_json(CLASSROOM)}).items():
        guess = _first_guess(classroom, reply, ScriptedOracle(_master()))
        assert guess["decided_by"] == "llm" and guess["llm"] is False and guess["votes"], name
