"""The Dynamic Picnic game, validated: pure logic over structured actions; see ``protocol.py`` for the text.

A hidden rule says which items can be brought to the picnic. Before play the rule is tested: the game master
writes candidate items (the published ``example_generator`` prompt, and ours for items that do not fit), and
each is decided by code where the rule is lexical (its word-language predicate), by a panel of ``k`` validator
votes where it is semantic (the published example judge; only unanimous items are ever shown), or by both
(mixed rules). Items are normalised and de-duplicated before they are decided. A rule without enough decided
items is rejected with the reason and never played. Then the player may ask "Can I bring X?" (answered by
the same oracle), ask for more examples (more items are written and decided when the validated supply runs
short), guess the rule (the published judge, majority of three, read strictly; for lexical rules a predicate
the player gives is checked by code and decides) or give up.

All model work happens in :meth:`DynamicPicnicGame.settle`, which returns every reply and vote as a record;
:meth:`settled` puts a record back, and :meth:`step` derives everything from records by code, so a stored game
replays without asking again. Without a model, lexical rules have their items drawn by code from an English
word list and everything decided by the predicate; the published rules "its name is a single-word noun that ..."
are played on single-word nouns, the word list of :mod:`~wason.tasks.dynamic_picnic.vocab` deciding what is a
noun and the predicate the rest (the player is told at the start, and a predicate guess is checked on nouns).
"""

from __future__ import annotations

import itertools
import random
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from wason.core.family import MAX_FORMAT_ERRORS
from wason.core.game import Malformed, Outcome
from wason.failures import OracleUnavailable
from wason.sandbox.language import GuessRejected
from wason.sandbox.words import MAX_WORD_STEPS, WordProgram, compile_word_rule
from wason.tasks.dynamic_picnic import prompts, vocab
from wason.tasks.dynamic_picnic.master import (
    GameMaster,
    decide,
    needs_vote,
    normalize_item,
    valid_item,
    write_rule,
)
from wason.tasks.dynamic_picnic.rules import PicnicRule, existing_texts, generated_rule, noun_rule


# -- actions --------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Begin:
    """Let the game master prepare the rule (write and validate its items) and show the first examples."""


@dataclass(frozen=True)
class AskItem:
    """ "Can I bring X?"; ``said`` is the player's words, kept for the conversation."""

    item: str
    said: str = ""


@dataclass(frozen=True)
class MoreExamples:
    """Ask for ``n`` more examples (0: the game's default count)."""

    n: int = 0
    said: str = ""


@dataclass(frozen=True)
class GuessRule:
    """A guess of the rule in words, with an optional predicate in the word language (``lambda w: ...``)."""

    text: str
    predicate: str | None = None
    said: str = ""


@dataclass(frozen=True)
class GiveUp:
    said: str = ""


MAX_MORE = 50
MAX_INIT = 20
"""The most items that fit shown at the start (published: 2; the game API's bound too)."""
MAX_TURNS = 1_000
"""The largest turn limit (published runs: 1 to 15)."""
MAX_VALIDATED = 50
"""The most validated items that fit (or do not) a rule may need before play (published: 4 and 2; drawing 100
from the word list took 1.7 s)."""
MAX_CANDIDATES = 100
"""The most items asked of the writer per call."""
MAX_WRITER_ROUNDS = 20
"""The most writer rounds before play (two model calls each)."""
MAX_SAID = 2_000
MAX_GUESS = 1_000
MAX_CHECK_STEPS = 20_000_000
"""The most steps a guess's predicate may take over the domain of the code check (the rule's may too, once):
about 1,100 a word of the vocabulary, six times what the costliest published rule needs (a few seconds at most).
A guess that needs more is wrong: it was not shown to agree with the rule everywhere."""
JUDGE_VERSION = "domain-1"
"""The code check of a predicate guess, recorded with each guess it decided (``code_judge``): ``domain-1``, on
every word of the domain (the vocabulary, or its nouns) and every item of the game. Guesses stored without the
field were checked on the game's items and 2,000 probe words of the domain drawn with the game's seed
(a guess wrong on a word not drawn won)."""

PicnicAction = Begin | AskItem | MoreExamples | GuessRule | GiveUp

Kind = Literal["preparing", "start", "examples", "answer", "verdict", "format_error", "ended"]
EndReason = Literal["won", "gave_up", "turns", "rule_rejected", "format_errors"]
GM = "Game Master"
PLAYER = "Player"


class PicnicObservation(BaseModel):
    """What the player learns after an action: ``turn`` counts every action but :class:`Begin`; ``initial`` are
    the first examples (the published prompt repeats them every turn); ``answer`` is None where the validators
    did not agree; ``history`` the whole conversation as (speaker, text) lines; the rule only once ended."""

    model_config = ConfigDict(frozen=True)

    kind: Kind
    turn: int = 0
    turns_left: int | None = None
    final: bool = False
    initial: tuple[str, ...] = ()
    initial_negatives: tuple[str, ...] = ()
    positives: tuple[str, ...] = ()
    negatives: tuple[str, ...] = ()
    item: str | None = None
    answer: bool | None = None
    verdict: bool | None = None
    code_check: bool | None = None
    message: str = ""
    history: tuple[tuple[str, str], ...] = ()
    end_reason: EndReason | None = None
    rule: str | None = None
    rejection: str | None = None


@dataclass(frozen=True)
class PicnicSettings:
    """Episode settings (published: 2 initial examples, one per "more", no negatives shown). ``max_turns`` 0 and
    ``format_error_limit`` 0 mean no limit; a rule needs ``min_positives`` and ``min_negatives`` validated items
    before play; a writer round is one call for items that fit and one for items that do not; a predicate guess
    is checked on the game's items, then ``probes`` seeded words of the domain, then the rest of it."""

    init_examples: int = 2
    negatives: bool = True
    more_default: int = 1
    max_turns: int = 10
    min_positives: int = 4
    min_negatives: int = 2
    candidates: int = 8
    writer_rounds: int = 2
    format_error_limit: int = 3
    probes: int = 2000

    def __post_init__(self) -> None:
        for name in ("init_examples", "more_default", "candidates", "writer_rounds", "probes"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be at least 1")
        for name in ("max_turns", "min_negatives", "format_error_limit"):
            if getattr(self, name) < 0:
                raise ValueError(f"{name} must be 0 or more")
        for name, most in (
            ("init_examples", MAX_INIT),
            ("more_default", MAX_MORE),
            ("max_turns", MAX_TURNS),
            ("min_positives", MAX_VALIDATED),
            ("min_negatives", MAX_VALIDATED),
            ("candidates", MAX_CANDIDATES),
            ("writer_rounds", MAX_WRITER_ROUNDS),
            ("format_error_limit", MAX_FORMAT_ERRORS),
        ):
            if getattr(self, name) > most:
                raise ValueError(f"{name} must be at most {most}")
        if self.min_positives < self.init_examples:
            raise ValueError("min_positives must be at least init_examples")


@dataclass
class Entry:
    """One decided item: its label (None: undecided, never shown), who decided, where it came from."""

    item: str
    label: bool | None
    by: str
    source: str  # "writer+", "writer-", "player", "words"
    vote: dict[str, Any] | None = None


@dataclass
class _Stats:
    written: int = 0
    duplicates: int = 0
    invalid: int = 0
    writer_misses: int = 0  # items the writer said fit (or not) that the oracle decided otherwise
    undecided: int = 0
    panel_items: int = 0
    panel_calls: int = 0
    writer_calls: int = 0
    judge_calls: int = 0


@dataclass
class DynamicPicnicGame:
    """One Dynamic Picnic episode; without a ``master`` (no model) only lexical rules with code-drawn items can
    be played; ``seed`` seeds the code's draws (words, probes)."""

    rule: PicnicRule
    settings: PicnicSettings = field(default_factory=PicnicSettings)
    seed: int = 0
    master: GameMaster | None = None
    by_code: bool | None = None

    def __post_init__(self) -> None:
        if self.by_code is None:
            self.by_code = self.master is None
        # a generated rule is written by the game master when the game is prepared
        self.unwritten = self.rule.source == "generated" and not self.rule.text
        self.generation: dict[str, Any] | None = None
        self._set_rule(self.rule)
        self.pool: dict[str, Entry] = {}
        self.shown: set[str] = set()
        self.asked: list[str] = []
        self.initial: tuple[str, ...] = ()
        self.initial_negatives: tuple[str, ...] = ()
        self.history: list[tuple[str, str]] = []
        self.prepared = False
        self.turn = 0
        self.format_errors = 0
        self.truncated = 0
        self.consecutive_errors = 0
        self.guesses: list[dict[str, Any]] = []
        self.questions: list[dict[str, Any]] = []
        self.seen_pos = 0
        self.seen_neg = 0
        self.end_reason: EndReason | None = None
        self.provenance: dict[str, Any] | None = None
        self.stats = _Stats()
        self._pending: dict[str, Any] | None = None
        self._done = False

    def _set_rule(self, rule: PicnicRule) -> None:
        self.rule = rule
        self.program: WordProgram | None = None
        self._rejection: str | None = rule.rejection
        # played by code on single-word nouns: the word list decides the noun, the predicate the rest
        self.nouns = bool(self.by_code) and noun_rule(rule)
        if self.unwritten and not rule.text:
            if self.by_code:
                self._rejection = (
                    "a generated rule needs a game-master model to write it, and none is attached"
                )
            return
        if rule.predicate and self._rejection is None:
            try:
                self.program = compile_word_rule(rule.predicate)
            except GuessRejected as exc:
                self._rejection = f"its predicate is not in the word language: {exc}"
        by_code = rule.kind == "lexical" or self.nouns
        if self.by_code and self._rejection is None and (not by_code or self.program is None):
            self._rejection = "a rule the panel must decide needs a game-master model, and none is attached"

    def _written(self, record: dict[str, Any]) -> None:
        """Put the generated rule in place, derived by code from the writer's record."""
        self.generation = record
        self._set_rule(generated_rule(self.rule.id, self.rule.rule_type, record))

    # -- the game contract ---------------------------------------------------------------------------------
    @property
    def done(self) -> bool:
        return self._done

    def automatic_action(self) -> Begin | None:
        """Before the first examples exist the game master prepares them: the game's own move, not a player's
        (the runner applies it, so a model's first prompt is the published one, with the examples)."""
        return Begin() if not self.prepared and not self._done else None

    def start(self) -> PicnicObservation:
        if self._rejection is not None:
            return self._end("rule_rejected")
        if not self.by_code:
            return PicnicObservation(kind="preparing", turns_left=self._turns_left(), message=PREPARING)
        program = self.program
        if program is None:  # by code only lexical rules with a program get here (_set_rule rejects the rest)
            raise RuntimeError("a rule played by code has no predicate")
        s = self.settings
        pos, neg, provenance = vocab.draw(
            program,
            self.seed,
            s.min_positives + 4 * s.init_examples,
            s.min_negatives + 4 * s.init_examples,
            "nouns" if self.nouns else "words",
        )
        self.provenance = provenance
        by = "predicate+word list" if self.nouns else "predicate"
        for word in pos + neg:
            self.pool[word] = Entry(word, word in pos, by, "words")
        return self._begin()

    async def settle(self, action: Any) -> dict[str, Any] | None:
        """The model work ``action`` needs; every reply and vote goes into the returned record."""
        self._pending = None
        if self._done or self.by_code:
            return None
        record: dict[str, Any] = {}
        if not self.prepared:
            if self.unwritten and self.generation is None:
                written = await write_rule(
                    self._gm(),
                    self.rule.rule_type,
                    existing_texts(self.rule.rule_type),
                    simple=self.rule.level == "L1",
                )
                record["generate"] = written
                self._written(written)
            if self._rejection is None:
                record["prepare"] = await self._write_rounds(
                    self.settings.writer_rounds, turn=0, until_enough=True
                )
        elif isinstance(action, AskItem):
            item = normalize_item(action.item)
            vote = None
            if valid_item(item) and item not in self.pool and needs_vote(self.rule.kind, self.program, item):
                vote = await self._gm().vote(self.rule.text, item, turn=self.turn + 1)
            record["ask"] = {"item": item, "vote": vote}
        elif isinstance(action, MoreExamples):
            n = self._count(action)
            if self._short_of(n):
                record["more"] = await self._write_rounds(1, turn=self.turn + 1, until_enough=False)
        elif isinstance(action, GuessRule):
            guess = action.text[:MAX_GUESS]
            record["judge"] = await self._gm().judge(self.rule.text, guess, turn=self.turn + 1)
        self._pending = record or None
        return self._pending

    def _gm(self) -> GameMaster:
        # asked only when an action needs the model: a restored game replays its other actions without one
        if self.master is None:
            raise OracleUnavailable(
                "this game asks its game-master model, and no model is attached to it here", GM_MISSING
            )
        return self.master

    def settled(self, action: Any, record: dict[str, Any]) -> None:
        self._pending = record

    def step(self, action: PicnicAction | Malformed) -> PicnicObservation:
        if self._done:
            raise ValueError("the game is over")
        pending, self._pending = self._pending or {}, None
        if not self.prepared:
            # Any first action prepares the rule (with a model, the work was done in settle); it is not a turn.
            if "generate" in pending:
                self._written(pending["generate"])
            if self._rejection is not None:
                return self._end("rule_rejected")
            if "prepare" in pending:
                self._apply_writes(pending["prepare"])
            return self._begin()
        if isinstance(action, Malformed):
            return self._format_error(action)
        self.consecutive_errors = 0
        if isinstance(action, Begin):
            return self._observe("examples", message="The game has already started.")
        self.turn += 1
        if isinstance(action, GiveUp):
            self.history.append((PLAYER, action.said[:MAX_SAID] or "I give up."))
            return self._end("gave_up")
        if isinstance(action, AskItem):
            obs = self._ask(action, pending.get("ask"))
        elif isinstance(action, MoreExamples):
            if "more" in pending:
                self._apply_writes(pending["more"])
            obs = self._more(action)
        elif isinstance(action, GuessRule):
            obs = self._guess(action, pending.get("judge"))
        else:
            raise TypeError(f"not a Dynamic Picnic action: {type(action).__name__}")
        if self._done:
            return obs
        if self.settings.max_turns and self.turn >= self.settings.max_turns:
            return self._end("turns")
        return obs

    def outcome(self) -> Outcome:
        won = self.end_reason == "won"
        last = self.guesses[-1] if self.guesses else None
        return Outcome(
            success=won,
            metrics={
                "rule_id": self.rule.id,
                "rule_key": self.rule.key,
                "rule_text": self.rule.text,
                "source": self.rule.source,
                "rule_type": self.rule.rule_type,
                "level": self.rule.level,
                "kind": self.rule.kind,
                "end_reason": self.end_reason,
                "won": won,
                "rejected": self.end_reason == "rule_rejected",
                "rejection": self._rejection,
                # a rule rejected before play is no game: it counts in no win rate (core.game.VOID)
                "void": self._rejection if self.end_reason == "rule_rejected" else None,
                "turns": self.turn,
                "questions": len(self.questions),
                "guesses": len(self.guesses),
                "positives_seen": self.seen_pos,
                "negatives_seen": self.seen_neg,
                "format_errors": self.format_errors,
                "truncated": self.truncated,
                "llm_verdict": last["llm"] if last else None,
                "code_check": last["code_check"] if last else None,
                "decided_by": last["decided_by"] if last else None,
                "judge_votes": last["votes"] if last else None,
                "guess_log": self.guesses,
                "question_log": self.questions,
                "validated_positives": self._validated(True),
                "validated_negatives": self._validated(False),
                "items": dict(self.stats.__dict__),
                "items_provenance": self.provenance,
                "by_code": self.by_code,
                "domain": "nouns" if self.nouns else ("words" if self.by_code else None),
            },
        )

    # -- preparing ---------------------------------------------------------------------------------------------
    def _count(self, action: MoreExamples) -> int:
        """How many items a request gets: its number (at most 50), else the default."""
        n = action.n if isinstance(action.n, int) and action.n > 0 else self.settings.more_default
        return min(n, MAX_MORE)

    def _short_of(self, n: int) -> bool:
        unseen = self._unseen()
        short = [sum(1 for e in unseen if e.label is label) < n for label in (True, False)]
        return short[0] or (self.settings.negatives and short[1])

    def _unseen(self) -> list[Entry]:
        return [e for e in self.pool.values() if e.source != "player" and e.item not in self.shown]

    def _validated(self, label: bool) -> int:
        return sum(1 for e in self.pool.values() if e.label is label)

    def _enough(self) -> bool:
        s = self.settings
        return self._validated(True) >= s.min_positives and (
            not s.negatives or self._validated(False) >= s.min_negatives
        )

    async def _write_rounds(self, rounds: int, *, turn: int, until_enough: bool) -> dict[str, Any]:
        """Writer rounds, each followed by the panel's votes on the new items; the record holds them all.
        The pool is updated as it goes (the same way :meth:`_apply_writes` rebuilds it on replay) and put back
        as it was, so ``step`` applies the record once."""
        master = self._gm()
        s = self.settings
        saved = dict(self.pool), _Stats(**self.stats.__dict__)
        record: dict[str, Any] = {"writes": [], "votes": {}}
        for round_ in range(rounds):
            known = list(self.pool)
            writes = [
                await master.write(
                    self.rule.text, known, self.asked, s.candidates, fits=fits, turn=turn, round_=round_
                )
                for fits in (True, False)[: 1 + s.negatives]
            ]
            fresh = list(dict.fromkeys(i for w in writes for i in w["items"] if i not in self.pool))
            to_vote = [i for i in fresh if needs_vote(self.rule.kind, self.program, i)]
            votes = await master.votes(self.rule.text, to_vote, turn=turn)
            record["writes"] += writes
            record["votes"].update(dict(zip(to_vote, votes, strict=True)))
            self._apply_writes({"writes": writes, "votes": record["votes"]})
            if until_enough and self._enough():
                break
        self.pool, self.stats = saved
        return record

    def _apply_writes(self, record: dict[str, Any]) -> None:
        votes = record.get("votes") or {}
        for write in record.get("writes") or []:
            fits = bool(write.get("fits"))
            self.stats.writer_calls += 1
            for raw in write.get("items") or []:
                item = normalize_item(str(raw))
                self.stats.written += 1
                if not valid_item(item):
                    self.stats.invalid += 1
                    continue
                if item in self.pool:
                    self.stats.duplicates += 1
                    continue
                vote = votes.get(item)
                label, by = self._decide(item, vote)
                if label is None:
                    self.stats.undecided += 1
                elif label != fits:
                    self.stats.writer_misses += 1
                self.pool[item] = Entry(item, label, by, "writer+" if fits else "writer-", vote)

    def _decide(self, item: str, vote: dict[str, Any] | None) -> tuple[bool | None, str]:
        """An item's label and who decided it (:func:`decide`), counting the panel's votes on it."""
        if vote is not None:
            self.stats.panel_items += 1
            self.stats.panel_calls += len(vote.get("votes") or [])
        return decide(self.rule.kind, self.program, item, vote)

    def _deal(self, n: int) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """Up to ``n`` unseen validated items that fit, and as many that do not (when negatives are shown)."""
        unseen = self._unseen()
        pos = tuple([e.item for e in unseen if e.label is True][:n])
        neg = tuple([e.item for e in unseen if e.label is False][:n]) if self.settings.negatives else ()
        self.shown.update(pos + neg)
        self.seen_pos += len(pos)
        self.seen_neg += len(neg)
        return pos, neg

    def _begin(self) -> PicnicObservation:
        self.prepared = True
        if not self._enough():
            s = self.settings
            self._rejection = (
                f"too few validated items: {self._validated(True)} that fit and {self._validated(False)} that "
                f"do not (needs {s.min_positives} and {s.min_negatives if s.negatives else 0})"
            )
            return self._end("rule_rejected")
        self.initial, self.initial_negatives = self._deal(self.settings.init_examples)
        self.history.append((GM, prompts.initial_message(self.initial)))
        if self.initial_negatives:
            self.history.append((GM, cannot_bring(self.initial_negatives)))
        if self.nouns:
            self.history.append((GM, NOUNS_ONLY))
        return self._observe("start", positives=self.initial, negatives=self.initial_negatives)

    # -- turns ---------------------------------------------------------------------------------------------------
    def _ask(self, action: AskItem, record: dict[str, Any] | None) -> PicnicObservation:
        item = normalize_item(action.item)
        self.history.append((PLAYER, action.said[:MAX_SAID] or f"Can I bring {action.item[:MAX_SAID]}?"))
        if not valid_item(item):
            self.questions.append({"item": item, "answer": None, "by": "unreadable"})
            return self._say(
                "answer", "I cannot read an item in that question. Ask: Can I bring ...?", item=item
            )
        entry = self.pool.get(item)
        if entry is None:
            vote = (record or {}).get("vote") if (record or {}).get("item") == item else None
            if self.nouns:
                label, by = self._by_word_list(item)
            elif self.by_code or not needs_vote(self.rule.kind, self.program, item):
                label, by = decide(self.rule.kind, self.program, item, None)
            elif vote is None:
                raise RuntimeError("a question the panel must answer was stepped without its votes")
            else:
                label, by = self._decide(item, vote)
            entry = Entry(item, label, by, "player", vote)
            self.pool[item] = entry
        if item not in self.asked:
            self.asked.append(item)
        if entry.label is True:
            message = f"Yes, you can bring {item}."
        elif entry.label is False and entry.by == "word list":
            message = f"No, you cannot bring {item}: it is not a single-word noun."
        elif entry.label is False:
            message = f"No, you cannot bring {item}."
        elif entry.by == "word list":
            message = f"I cannot say whether you can bring {item}: my word list does not know it."
        else:
            message = f"I cannot say whether you can bring {item}: the validators disagree."
        self.questions.append({"item": item, "answer": entry.label, "by": entry.by})
        return self._say("answer", message, item=item, answer=entry.label)

    def _more(self, action: MoreExamples) -> PicnicObservation:
        n = self._count(action)
        self.history.append(
            (PLAYER, action.said[:MAX_SAID] or f"Can I have {n} more example{'s' if n > 1 else ''}?")
        )
        pos, neg = self._deal(n)
        lines = []
        if pos:
            lines.append(f"You can also bring: {prompts.examples_text(pos)}.")
        if neg:
            lines.append(cannot_bring(neg))
        if not pos:
            lines.append("I have no more validated examples of items you can bring.")
        message = " ".join(lines)
        return self._say("examples", message, positives=pos, negatives=neg)

    def _guess(self, action: GuessRule, judged: dict[str, Any] | None) -> PicnicObservation:
        if judged is None and not self.by_code:
            raise RuntimeError("a rule guess was stepped without its judge's votes")
        llm = None if judged is None else bool(judged["verdict"])
        code_check, code_note = self._code_check(action.predicate)
        if llm is None and code_check is None:
            # no model to judge words and no predicate to check: not judged, not a turn
            self.turn -= 1
            return self._observe("verdict", verdict=None, message=UNJUDGED)
        self.history.append((PLAYER, action.said[:MAX_SAID] or action.text[:MAX_GUESS]))
        if code_check is not None:
            won, decided_by = code_check, "predicate"
        else:
            won, decided_by = bool(llm), ("llm" if llm is not None else "none")
        self.guesses.append(
            {
                "text": action.text[:MAX_GUESS],
                "predicate": (action.predicate or "")[:MAX_SAID] or None,
                "llm": llm,
                "votes": None if judged is None else judged.get("votes"),
                "code_check": code_check,
                "code_note": code_note,
                "code_judge": JUDGE_VERSION if code_check is not None else None,
                "decided_by": decided_by,
            }
        )
        if won:
            return self._end("won")
        return self._say("verdict", "Incorrect. Please try again.", verdict=False, code_check=code_check)

    def _code_check(self, predicate: str | None) -> tuple[bool | None, str | None]:
        """A lexical rule's guess with a predicate: equal to the rule on every item of the game and every word of
        the domain (the vocabulary; for a rule played on single-word nouns, its nouns, and the items that are
        nouns). The game's items go first, then the probe words the game's seed draws, then the rest of the
        domain, so the first word where the two differ, reported, is the one the check of the game's items
        and probes alone found (:data:`JUDGE_VERSION`); a correct guess costs one pass of its predicate over
        the domain, the rule's truth there being computed once per rule (:func:`vocab.rule_labels`)."""
        if not predicate or not (self.rule.kind == "lexical" or self.nouns) or self.program is None:
            return None, None
        try:
            guess = compile_word_rule(predicate)
        except GuessRejected as exc:
            return False, f"the predicate is not in the word language: {exc}"
        domain: vocab.Domain = "nouns" if self.nouns else "words"
        words = vocab.domain_words(domain)
        labels = vocab.rule_labels(self.program.source, domain, MAX_CHECK_STEPS)
        if labels is None:
            return (
                None,
                f"the rule's predicate needs more than {MAX_CHECK_STEPS:,} steps on all {len(words):,} {domain}",
            )
        index = vocab.domain_index(domain)
        known = [item for item in self.pool if vocab.is_noun(item)] if self.nouns else list(self.pool)
        probes = random.Random(self.seed).sample(words, min(self.settings.probes, len(words)))
        budget = MAX_CHECK_STEPS
        checked: set[str] = set()
        for word in itertools.chain(known, probes, words):
            if word in checked:
                continue
            checked.add(word)
            at = index.get(word)
            truth = self.program(word) if at is None else bool(labels[at])
            given = min(budget, MAX_WORD_STEPS)
            outcome = guess.evaluate(word, max_steps=given)
            if outcome.limit and outcome.steps > given and given < MAX_WORD_STEPS:
                return False, (
                    f"the predicate needs more than {MAX_CHECK_STEPS:,} steps to be checked on all {len(words):,} "
                    f"{domain}"
                )
            budget -= outcome.steps
            if outcome.value != truth:
                return False, f"differs from the rule on {word!r}"
        return True, None

    def _by_word_list(self, item: str) -> tuple[bool | None, str]:
        """An item of a rule played on single-word nouns: the predicate's "no" is final; else the word list
        decides whether it is a noun (None: it does not know the word)."""
        if self.program is None or not self.program(item):
            return False, "predicate"
        noun = vocab.is_noun(item)
        if noun is None:
            return None, "word list"
        return (True, "predicate+word list") if noun else (False, "word list")

    def _format_error(self, action: Malformed) -> PicnicObservation:
        self.turn += 1
        self.truncated += (
            action.truncated
        )  # a reply cut off at the token limit costs what a format error costs
        self.format_errors += not action.truncated
        self.consecutive_errors += 1
        self.history.append((PLAYER, "(a reply the game master could not read)"))
        limit = self.settings.format_error_limit
        if limit and self.consecutive_errors >= limit:
            return self._end("format_errors")
        if self.settings.max_turns and self.turn >= self.settings.max_turns:
            return self._end("turns")
        return self._say("format_error", FORMAT_HINT)

    # -- observations --------------------------------------------------------------------------------------------
    def _turns_left(self) -> int | None:
        return max(0, self.settings.max_turns - self.turn) if self.settings.max_turns else None

    def _say(self, kind: Kind, message: str, **fields: Any) -> PicnicObservation:
        """The game master's line ``message``, added to the conversation, as the observation of ``kind``."""
        self.history.append((GM, message))
        return self._observe(kind, message=message, **fields)

    def _observe(self, kind: Kind, **fields: Any) -> PicnicObservation:
        left = self._turns_left()
        return PicnicObservation(
            kind=kind,
            turn=self.turn,
            turns_left=left,
            final=left == 1,
            initial=self.initial,
            initial_negatives=self.initial_negatives,
            history=tuple(self.history),
            **fields,
        )

    def _end(self, reason: EndReason) -> PicnicObservation:
        self._done = True
        self.end_reason = reason
        rule = self.rule.text
        if reason == "gave_up":
            message = prompts.short("base.py:223", rule=rule)
        else:
            message = _ENDINGS[reason].format(rule=rule, rejection=self._rejection)
        ending = {
            "end_reason": reason,
            "rule": rule,
            "rejection": self._rejection,
            "verdict": reason == "won",
        }
        return self._say("ended", message, **ending)


_ENDINGS = {
    "won": "Correct! The rule is {rule}.",
    "rule_rejected": "This rule cannot be played: {rejection}.",
    "format_errors": "Game over: too many replies the game master could not read. The secret rule was: {rule}",
    "turns": "Game over: Maximum attempts reached. The secret rule was: {rule}",
}
# what a game without its game-master model fails as, in reports
GM_MISSING = "no game-master model"

UNJUDGED = (
    "Without a game-master model a rule guess is judged by code only: state the rule as a predicate in the "
    'word language too, e.g. lambda w: w.startswith("f").'
)
NOUNS_ONLY = (
    "Every item in this game is a single-word noun (a word list says which words are nouns). A rule guess is "
    'judged by code: state it as a predicate in the word language too, e.g. lambda w: w.startswith("f"); it is '
    "checked on single-word nouns."
)
"""Ours: the first line of a game played by code on single-word nouns (the published rules "its name is a
single-word noun that ..."), so a predicate about the rest is judged on the nouns, as the player was told."""
PREPARING = "The game master is preparing the game: writing and validating the examples."
FORMAT_HINT = (
    'I could not tell what you want. Ask "Can I bring ...?", ask for more examples, or state your guess as '
    '"The rule is: ...".'
)


def cannot_bring(items: tuple[str, ...] | list[str]) -> str:
    """Ours: the game master's line for validated items that do not fit (the reference shows none)."""
    return f"You cannot bring: {prompts.examples_text(items)}."
