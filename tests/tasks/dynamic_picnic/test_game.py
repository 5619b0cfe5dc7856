"""The validated game against a scripted game master: unanimity filtering, de-duplication, rule rejection,
every vote recorded, questions answered by the same oracle, strict verdicts, replay without new calls."""

from __future__ import annotations

import asyncio
import random
from typing import Any

import pytest

from tests.tasks.dynamic_picnic.scripted import ScriptedMaster, ScriptedOracle
from wason.core.game import Malformed
from wason.core.records import CallContext
from wason.models.base import GenerationParams
from wason.tasks.dynamic_picnic import game as game_module
from wason.tasks.dynamic_picnic import vocab
from wason.tasks.dynamic_picnic.game import (
    AskItem,
    Begin,
    DynamicPicnicGame,
    GiveUp,
    GuessRule,
    MoreExamples,
    OracleUnavailable,
    PicnicObservation,
    PicnicSettings,
)
from wason.tasks.dynamic_picnic.master import GameMaster, MasterSettings
from wason.tasks.dynamic_picnic.rules import PicnicRule, published_rules


def rule_starting(text: str) -> PicnicRule:
    (rule,) = [r for r in published_rules() if r.text.startswith(text) and r.duplicate_of is None]
    return rule


CLASSROOM = "Only items that are typically found in a school classroom"
PALINDROMES = "Only items that are palindromes"
F_RULE = "Only items that start with the letter 'F'"
NOUN_P = "The item can be brought to the picnic only if its name is a single-word noun that starts with the letter 'P'"


def make(rule: PicnicRule, master: ScriptedMaster | None, **settings: Any) -> DynamicPicnicGame:
    gm = None
    if master is not None:
        gm = GameMaster(
            ScriptedOracle(master),
            GenerationParams(),
            CallContext(run_id=1, episode_id=2, sample="s"),
            MasterSettings(),
        )
    return DynamicPicnicGame(
        rule, PicnicSettings(**settings), seed=0, master=gm, by_code=master is None and None
    )


def play(game: DynamicPicnicGame, actions: list[Any]) -> tuple[list[PicnicObservation], list[Any]]:
    async def run() -> tuple[list[PicnicObservation], list[Any]]:
        observations, records = [game.start()], []
        for action in actions:
            records.append(await game.settle(action))
            observations.append(game.step(action))
        return observations, records

    return asyncio.run(run())


def shown(observations: list[PicnicObservation]) -> tuple[set[str], set[str]]:
    pos = {i for o in observations for i in o.positives}
    neg = {i for o in observations for i in o.negatives}
    return pos, neg


SCHOOL = {"pencil", "eraser", "ruler", "glue", "chalk", "notebook", "scissors"}


def classroom_master(**kw: Any) -> ScriptedMaster:
    return ScriptedMaster(
        fits=SCHOOL,
        split={"chalk", "notebook"},
        positives="Pencil, eraser, pencil, 1. ruler, glue, chalk, notebook, [scissors]",
        negatives='banana, "surfboard", Banana, cactus, chalk',
        **kw,
    )


def test_only_unanimous_items_reach_the_player_and_every_vote_is_recorded() -> None:
    master = classroom_master()
    game = make(rule_starting(CLASSROOM), master)
    actions = [Begin(), MoreExamples(n=3), MoreExamples(n=3)]
    observations, records = play(game, actions)
    assert observations[0].kind == "preparing" and observations[1].kind == "start"
    assert observations[1].initial == ("pencil", "eraser") and observations[1].initial_negatives == (
        "banana",
        "surfboard",
    )
    pos, neg = shown(observations)
    assert pos == {"pencil", "eraser", "ruler", "glue", "scissors"}  # chalk and notebook split the panel
    assert neg == {"banana", "surfboard", "cactus"}
    prepare = records[0]["prepare"]
    voted = set(prepare["votes"])
    assert voted == SCHOOL | {"banana", "surfboard", "cactus"}  # each distinct item once
    for item, vote in prepare["votes"].items():
        assert len(vote["votes"]) == 3 and len(vote["replies"]) == 3
        assert vote["unanimous"] == (item not in {"chalk", "notebook"})
    assert master.count("panel") == 3 * len(voted)
    # the second writer round was not needed before play: enough validated items after the first
    assert [w["fits"] for w in prepare["writes"]] == [True, False]
    metrics = game.outcome().metrics if game.done else None
    assert metrics is None
    # repeats within a reply are dropped as it is read ("Pencil" twice, "Banana" twice), across replies as
    # items are decided (chalk in both), and later rounds that only repeat add nothing
    writes = prepare["writes"]
    assert writes[0]["items"] == ["pencil", "eraser", "ruler", "glue", "chalk", "notebook", "scissors"]
    assert writes[1]["items"] == ["banana", "surfboard", "cactus", "chalk"]
    assert game.stats.undecided == 2 and game.stats.duplicates == 1 + 2 * 11
    # short of unseen negatives: a writer round is asked for (its items are all repeats here), then what is
    # validated is given
    assert "more" in (records[1] or {}) and observations[2].positives == ("ruler", "glue", "scissors")
    assert observations[2].negatives == ("cactus",) and observations[3].positives == ()
    assert "no more validated examples" in observations[3].message


def test_samples_keep_each_vote_and_each_item_apart() -> None:
    master = classroom_master()
    play(make(rule_starting(CLASSROOM), master), [Begin()])
    samples = [s for kind, s, _ in master.calls if kind == "panel"]
    assert len(samples) == len(set(samples))
    assert "s|item|pencil|panel|0" in samples and "s|item|pencil|panel|2" in samples


def test_a_rule_whose_items_cannot_be_validated_is_rejected_with_the_reason() -> None:
    master = ScriptedMaster(
        fits=SCHOOL, split=SCHOOL | {"banana"}, positives="pencil, eraser, ruler", negatives="banana"
    )
    game = make(rule_starting(CLASSROOM), master)
    observations, _ = play(game, [Begin()])
    end = observations[-1]
    assert game.done and end.kind == "ended" and end.end_reason == "rule_rejected"
    assert "too few validated items: 0 that fit and 0 that do not" in (end.rejection or "")
    outcome = game.outcome()
    assert not outcome.success and outcome.metrics["rejected"] is True
    assert master.count("write+") == 2  # both writer rounds were tried
    assert end.positives == () and not any(o.positives for o in observations)


def test_a_lexical_rule_is_decided_by_its_predicate_not_by_the_panel() -> None:
    master = ScriptedMaster(
        fits={"apple"},  # the panel would say apple fits: it is never asked
        positives="kayak, apple, noon, level, racecar, refer",
        negatives="table, tot, chair, lamp",
    )
    game = make(rule_starting(PALINDROMES), master)
    observations, records = play(game, [Begin(), AskItem(item="a Civic?"), AskItem(item="apple")])
    assert master.count("panel") == 0
    assert game.pool["apple"].label is False and game.pool["apple"].by == "predicate"
    assert game.pool["tot"].label is True  # the writer's "non-fitting" palindrome is decided by code
    assert game.stats.writer_misses == 2
    assert observations[2].item == "civic" and observations[2].answer is True
    assert observations[3].answer is False and records[1] == {"ask": {"item": "civic", "vote": None}}


def test_a_mixed_rule_asks_the_panel_only_about_items_its_predicate_accepts() -> None:
    master = ScriptedMaster(
        fits={"pear", "plum", "pizza", "pie"},
        positives="pear, plum, apple, pizza, pencil, pie, party hat",
        negatives="car, paint",
    )
    game = make(rule_starting(NOUN_P), master)
    _, records = play(game, [Begin()])
    asked = {s.split("|")[2] for kind, s, _ in master.calls if kind == "panel"}
    assert asked == {"pear", "plum", "pizza", "pencil", "pie", "paint"}
    assert game.pool["apple"].label is False and game.pool["apple"].by == "predicate"
    assert game.pool["party hat"].label is False  # two words: the predicate says no
    assert game.pool["pencil"].label is False and game.pool["pencil"].by == "predicate+panel"
    assert game.pool["pear"].label is True and game.pool["pear"].by == "predicate+panel"
    assert set(records[0]["prepare"]["votes"]) == asked


def test_questions_are_answered_by_the_panel_once_and_split_votes_are_no_answer() -> None:
    master = classroom_master()
    master.split.add("stapler")
    master.fits.add("stapler")
    game = make(rule_starting(CLASSROOM), master)
    observations, records = play(
        game,
        [
            Begin(),
            AskItem(item="The Stapler."),
            AskItem(item="stapler"),
            AskItem(item="pencil"),
            AskItem(item=""),
        ],
    )
    ask, again, known, empty = observations[2:]
    assert ask.answer is None and "cannot say" in ask.message
    assert again.answer is None and records[2] == {"ask": {"item": "stapler", "vote": None}}
    assert known.answer is True and known.message == "Yes, you can bring pencil."
    assert empty.answer is None and records[4] == {"ask": {"item": "", "vote": None}}
    panel_on_stapler = [s for kind, s, _ in master.calls if kind == "panel" and "|stapler|" in s]
    assert len(panel_on_stapler) == 3  # asked once, three votes; the repeat and the known item cost nothing
    assert game.turn == 4


@pytest.mark.parametrize(
    ("reply", "won"),
    [
        ("yes", True),
        ("Yes.", True),
        ("**YES**", True),
        ("[your final answer: yes]", True),
        ("[your final answer: yes or no]", False),  # the echoed format line the reference counted as yes
        ("no", False),
        ("yes, mostly, but no", False),
        ("I would say yes", False),
        ("", False),
    ],
)
def test_the_rule_judge_is_read_strictly(reply: str, won: bool) -> None:
    master = classroom_master(judge=lambda guess: reply)
    game = make(rule_starting(CLASSROOM), master)
    observations, records = play(game, [Begin(), GuessRule(text="things from school")])
    judged = records[1]["judge"]
    assert judged["replies"] == [reply] * 3 and judged["verdict"] is won
    assert game.done is won and observations[-1].kind == ("ended" if won else "verdict")
    if won:
        assert observations[-1].message.startswith("Correct! The rule is Only items that are typically")
        assert game.outcome().metrics["decided_by"] == "llm"


def test_a_lexical_guess_with_a_predicate_is_decided_by_code_beside_the_judge() -> None:
    master = ScriptedMaster(
        positives="kayak, noon, level, refer, madam", negatives="table, chair", judge=lambda g: "yes"
    )
    game = make(rule_starting(PALINDROMES), master)
    wrong = GuessRule(text="palindromes", predicate="lambda w: w[0] == w[-1]")
    right = GuessRule(text="palindromes", predicate="lambda w: w == w[::-1] and len(w) > 1")
    observations, _ = play(game, [Begin(), wrong, right])
    assert observations[2].kind == "verdict" and observations[2].code_check is False
    assert game.guesses[0]["llm"] is True and "differs from the rule" in game.guesses[0]["code_note"]
    assert game.done and game.outcome().metrics["decided_by"] == "predicate"
    hostile = GuessRule(text="x", predicate="lambda w: __import__('os').system('true')")
    game2 = make(
        rule_starting(PALINDROMES), ScriptedMaster(positives="kayak, noon, level, refer", negatives="a b, cd")
    )
    play(game2, [Begin(), hostile])
    assert (
        game2.guesses[0]["code_check"] is False
        and "not in the word language" in game2.guesses[0]["code_note"]
    )


def test_a_predicate_guess_is_checked_on_every_word_within_a_step_budget(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # a guess wrong on one word of the vocabulary only (not an item, not a probe word) is wrong; a guess that
    # agrees everywhere but needs more steps than the check allows (a smaller budget here) is wrong too
    monkeypatch.setattr(game_module, "MAX_CHECK_STEPS", 400_000)
    game = make(rule_starting(F_RULE), None)
    game.start()
    last = [w for w in vocab.domain_words("words") if w.startswith("f")][-1]  # the least frequent F word
    assert last not in game.pool and last not in random.Random(0).sample(vocab.domain_words("words"), 2000)
    flipped = GuessRule(text="f", predicate=f"lambda w: w.startswith('f') and w != {last!r}")
    slow = GuessRule(text="f", predicate="lambda w: w.startswith('f') if len(list(range(400))) else 0")
    right = GuessRule(text="f", predicate="lambda w: w[:1] == 'f'")
    observations = [game.step(action) for action in (flipped, slow, right)]
    assert [o.kind for o in observations] == ["verdict", "verdict", "ended"] and game.end_reason == "won"
    assert game.guesses[0]["code_note"] == f"differs from the rule on {last!r}"
    assert "needs more than 400,000 steps to be checked on all 17,542 words" in game.guesses[1]["code_note"]
    assert [g["code_check"] for g in game.guesses] == [False, False, True]
    assert {g["code_judge"] for g in game.guesses} == {game_module.JUDGE_VERSION}


def test_a_stored_game_replays_from_its_records_without_asking_again() -> None:
    master = classroom_master(judge=lambda g: "no")
    actions = [
        Begin(),
        AskItem(item="glue"),
        AskItem(item="a stapler"),
        MoreExamples(n=2),
        GuessRule(text="school things"),
        Malformed("unreadable"),
        GiveUp(),
    ]
    game = make(rule_starting(CLASSROOM), master)
    observations, records = play(game, actions)
    calls = len(master.calls)
    # a stored model game restored where no model is attached
    replay = DynamicPicnicGame(rule_starting(CLASSROOM), PicnicSettings(), seed=0, master=None, by_code=False)
    again = [replay.start()]

    async def restore() -> None:  # as Session.restore does: a stored record is put back, else settle is asked
        for action, record in zip(actions, records, strict=True):
            if record is not None:
                replay.settled(action, record)
            else:
                await replay.settle(action)  # actions that needed no model must not need one now
            again.append(replay.step(action))

    asyncio.run(restore())
    assert records[5] is None and records[6] is None  # an unreadable reply and giving up ask nothing
    assert [o.model_dump() for o in again] == [o.model_dump() for o in observations]
    assert len(master.calls) == calls
    assert replay.outcome() == game.outcome()
    # a new action that needs the model fails as an outside failure, not a crash
    fresh = DynamicPicnicGame(rule_starting(CLASSROOM), PicnicSettings(), seed=0, master=None, by_code=False)
    fresh.start()
    with pytest.raises(OracleUnavailable):
        asyncio.run(fresh.settle(Begin()))


def test_turn_limit_give_up_and_format_errors_end_the_game() -> None:
    game = make(rule_starting(CLASSROOM), classroom_master(), max_turns=2)
    observations, _ = play(game, [Begin(), AskItem(item="pencil"), AskItem(item="glue")])
    assert observations[2].final and observations[-1].end_reason == "turns" and game.turn == 2
    assert observations[-1].rule is not None and observations[2].rule is None
    game = make(rule_starting(CLASSROOM), classroom_master())
    observations, _ = play(game, [Begin(), GiveUp(said="I give up")])
    assert observations[-1].end_reason == "gave_up"
    assert observations[-1].message == f"You gave up, the correct rule was: {game.rule.text}"
    game = make(rule_starting(CLASSROOM), classroom_master(), format_error_limit=2)
    observations, _ = play(
        game, [Begin(), Malformed("x"), AskItem(item="pencil"), Malformed("x"), Malformed("y")]
    )
    assert observations[2].kind == "format_error" and observations[-1].end_reason == "format_errors"
    assert game.outcome().metrics["format_errors"] == 3
    # replies cut off at the token limit cost what a format error costs (and count towards the limit), apart
    game = make(rule_starting(CLASSROOM), classroom_master(), format_error_limit=2)
    cut = Malformed("cut off", truncated=True)
    observations, _ = play(game, [Begin(), cut, Malformed("x")])
    assert observations[2].kind == "format_error" and observations[-1].end_reason == "format_errors"
    assert (game.outcome().metrics["format_errors"], game.outcome().metrics["truncated"]) == (1, 1)


def test_without_a_model_lexical_rules_are_played_by_code_and_others_refused() -> None:
    game = make(rule_starting(PALINDROMES), None)
    first = game.start()
    assert first.kind == "start" and len(first.initial) == 2
    program = game.program
    assert program is not None and all(program(w) for w in first.initial)
    assert not any(program(w) for w in first.initial_negatives)
    again = make(rule_starting(PALINDROMES), None).start()
    assert again.initial == first.initial  # seeded
    unjudged = game.step(GuessRule(text="palindromes"))
    assert unjudged.verdict is None and game.turn == 0 and "predicate" in unjudged.message
    semantic = make(rule_starting(CLASSROOM), None).start()
    assert semantic.end_reason == "rule_rejected" and "needs a game-master model" in (
        semantic.rejection or ""
    )


def test_settings_are_validated_naming_the_field() -> None:
    with pytest.raises(ValueError, match="init_examples"):
        PicnicSettings(init_examples=0)
    with pytest.raises(ValueError, match="min_positives"):
        PicnicSettings(init_examples=5, min_positives=4)
    with pytest.raises(ValueError, match="panel"):
        MasterSettings(panel=0)


def test_hostile_actions_are_bounded() -> None:
    game = make(rule_starting(PALINDROMES), None)
    game.start()
    for n in (-5, 0, 10**9):
        obs = game.step(MoreExamples(n=n))
        assert len(obs.positives) <= 50 and len(obs.negatives) <= 50
    assert len(game.step(MoreExamples(n=-5)).positives) <= 1  # a bad number is the default count
    huge = "x" * 1_000_000
    obs = game.step(AskItem(item=huge, said=huge))
    assert obs.answer is None and max(len(said) for _, said in obs.history) <= 2_000
    obs = game.step(GuessRule(text=huge, predicate="lambda w: " + "(" * 500 + ")" * 500, said=huge))
    assert obs.kind == "verdict" and game.guesses[-1]["code_check"] is False
    assert len(game.guesses[-1]["text"]) == 1_000


def test_unreadable_validator_replies_never_validate_an_item() -> None:
    class Garbled(ScriptedMaster):
        def reply(self, messages: Any) -> str:
            text = super().reply(messages)
            return (
                "Sure! [your final answer: Correct!]... or Incorrect."
                if text.startswith(("Correct", "Incorrect"))
                else text
            )

    master = Garbled(fits=SCHOOL, positives="pencil, eraser, ruler, glue", negatives="banana, cactus")
    game = make(rule_starting(CLASSROOM), master)
    observations, records = play(game, [Begin()])
    votes = records[0]["prepare"]["votes"]
    assert votes and all(v["votes"] == [None, None, None] and not v["unanimous"] for v in votes.values())
    assert observations[-1].end_reason == "rule_rejected" and game.stats.undecided == len(votes)
    assert game.stats.writer_calls == 4  # both rounds were tried
