"""The math-sequence game: pure logic over structured actions; ``protocol.py`` holds the text.

Published protocol (the reference's ``math_game/exp.py``): every turn the player gets five new sequences of 15
terms and answers "More" or "My Guess is: ..."; a right guess wins; at most ``max_turns`` turns (L1 10, L2 15,
L3 20). Fixed here, each reported with the episode:

* Turns are counted from zero, so a game has ``max_turns`` moves (exp.py started at 1: ``max_turns - 1`` moves).
* A reply that is neither "More" nor a guess is a counted format error (exp.py looped without counting it).
* A guess is judged once (exp.py asked the judge twice about a wrong guess, and could read two verdicts).
* Failures end the episode as errored, with the reason (exp.py silently restarted on a new rule).
* Code decides: the guess is judged by its expression ``lambda v, i: ...`` on the rule's whole extension
  (:mod:`wason.tasks.math_rules.expression`). A guess in words without an expression is followed by one request
  for the expression (not a turn); with ``ask_expression`` off it is judged by the LLM judge only, and flagged.
  The published LLM judge, when on, is reported beside the code's verdict for every guess.
* After the game's last guess, an optional quiz asks for the continuation of sequences from fresh starts.
"""

from __future__ import annotations

import random
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from wason.core.game import Malformed, Outcome
from wason.core.guess_game import GiveUp as GiveUp
from wason.core.guess_game import guess_json, padded, quiz_accuracy
from wason.core.judged import JudgedMoves
from wason.tasks.math_rules.expression import ExpressionVerdict, judge_expression
from wason.tasks.math_rules.rules import MathRule, draw_sequences, quiz_starts, sequence

JUDGES = ("expression", "quiz", "llm")
QUIZ_SHOWN = 5
"""Terms of a quiz sequence shown to the player."""
QUIZ_ASKED = 5
"""Terms the player predicts after them."""


@dataclass(frozen=True)
class More:
    """Ask for more sequences (``n``: how many; None: the game's number per turn)."""

    n: int | None = None


@dataclass(frozen=True)
class Guess:
    """A guess: its text (what followed "My Guess is:") and the expression it contains, if any."""

    text: str
    expression: str | None = None


@dataclass(frozen=True)
class ExpressionAnswer:
    """The guess written as ``lambda v, i: ...``, when the game asked for it."""

    source: str


@dataclass(frozen=True)
class QuizAnswer:
    """The continuations the player predicts, one list per quiz sequence (None where it gave none)."""

    values: tuple[tuple[int, ...] | None, ...]


MathAction = More | Guess | ExpressionAnswer | QuizAnswer | GiveUp
ObservationKind = Literal["start", "examples", "wrong", "format_error", "ask_expression", "ask_quiz", "ended"]
EndReason = Literal["won", "wrong", "turns", "gave_up"]

# An LLM judge is injected by whoever builds the game (it returns a JSON record with a ``verdict``).
GuessJudge = Callable[[str], Awaitable[Mapping[str, Any]]]


class MathObservation(BaseModel):
    """What the player learns after an action: the new ``sequences`` it brings, why a reply was unreadable or a
    guess could not be judged by code (``reason``), the quiz's first terms, and only at the end the rule."""

    model_config = ConfigDict(frozen=True)

    kind: ObservationKind
    turn: int
    turns_left: int
    sequences: tuple[tuple[int, ...], ...] = ()
    reason: str | None = None
    quiz: tuple[tuple[int, ...], ...] = ()
    end_reason: EndReason | None = None
    won: bool | None = None
    rule: str | None = None


MAX_MORE = 100
"""Most sequences one request may ask for (and shown at the start, or brought by a turn)."""

MAX_TURNS = 10_000
"""The largest turn limit (published: L1 10, L2 15, L3 20; the game API's games have this one)."""

MAX_QUIZ = 20
"""The most quiz sequences."""


@dataclass(frozen=True)
class MathConfig:
    """Episode settings (defaults: the published harness, with code judging). With ``refill`` every counted turn
    that does not end the game brings ``per_turn`` new sequences, as published; off, only "More" does (the game
    API). ``judges``: ``expression`` (code, decides), ``quiz`` (reported), ``llm`` (the published judge)."""

    max_turns: int = 10
    per_turn: int = 5
    refill: bool = True
    judges: tuple[str, ...] = ("expression", "quiz")
    ask_expression: bool = True
    quiz_size: int = 3
    seed: str = "0"

    def __post_init__(self) -> None:
        if not 1 <= self.max_turns <= MAX_TURNS:
            raise ValueError(f"max_turns must be between 1 and {MAX_TURNS}")
        if not 1 <= self.per_turn <= MAX_MORE:
            raise ValueError(f"per_turn must be between 1 and {MAX_MORE}")
        unknown = [j for j in self.judges if j not in JUDGES]
        if unknown:
            raise ValueError(f"judges: unknown judge(s) {unknown}; choose from {', '.join(JUDGES)}")
        if not any(j in self.judges for j in ("expression", "llm")):
            raise ValueError("judges: a guess needs a judge: expression or llm")
        if not 0 <= self.quiz_size <= MAX_QUIZ:
            raise ValueError(f"quiz_size must be between 0 and {MAX_QUIZ}")

    @property
    def decider(self) -> str:
        """The judge whose verdict ends the game: the code's expression verdict, else the LLM judge."""
        return "expression" if "expression" in self.judges else "llm"


@dataclass
class _GuessRecord:
    text: str
    expression: str | None
    verdict: ExpressionVerdict | None = None
    llm: Mapping[str, Any] | None = None
    asked_expression: bool = False
    decided_by: str | None = None


@dataclass
class MathGame(JudgedMoves):
    """One math-sequence episode against a hidden rule of ``level`` (the domain the expression is judged on)."""

    rule: MathRule
    level: str
    examples: tuple[tuple[int, ...], ...]
    config: MathConfig = field(default_factory=MathConfig)
    judge: GuessJudge | None = None
    judge_key = "llm"

    def __post_init__(self) -> None:
        if "llm" in self.config.judges and self.judge is None:
            raise ValueError("the llm judge is on but no judge was given")
        self._rng = random.Random(f"math_rules.game|{self.config.seed}")
        self.turns = 0
        self.format_errors = 0
        self.truncated = 0
        self.more_requests = 0
        self.shown: list[tuple[int, ...]] = list(self.examples)
        self.guesses: list[_GuessRecord] = []
        self.quiz: list[tuple[tuple[int, ...], tuple[int, ...]]] = []
        self.quiz_answers: tuple[tuple[int, ...] | None, ...] | None = None
        self.end_reason: EndReason | None = None
        self.won = False
        self._phase: Literal["play", "expression", "quiz", "done"] = "play"

    # ------------------------------------------------------------------------------------------ state
    @property
    def done(self) -> bool:
        return self._phase == "done"

    @property
    def turns_left(self) -> int:
        return max(0, self.config.max_turns - self.turns)

    def _obs(self, kind: ObservationKind, **fields: Any) -> MathObservation:
        return MathObservation(kind=kind, turn=self.turns, turns_left=self.turns_left, **fields)

    def start(self) -> MathObservation:
        return self._obs("start", sequences=self.examples)

    # ------------------------------------------------------------------------------------- outside work
    async def settle(self, action: object) -> dict[str, Any] | None:
        """Ask the published LLM judge about a guess (when it is on); the record is stored with the turn."""
        self._pending = None
        if self._phase != "play" or not isinstance(action, Guess) or self.judge is None:
            return None
        if "llm" not in self.config.judges:
            return None
        return await self._ask(action, self.judge(action.text))

    # ------------------------------------------------------------------------------------------ steps
    def step(self, action: MathAction | Malformed) -> MathObservation:
        if self.done:
            raise RuntimeError("the episode has ended")
        pending = self._judged(action)
        if self._phase == "expression":
            source = action.source if isinstance(action, ExpressionAnswer) else None
            record = self.guesses[-1]
            record.expression = source
            record.verdict = judge_expression(self.rule, self.level, source)
            return self._after_verdict(record)
        if self._phase == "quiz":
            self.quiz_answers = padded(
                action.values if isinstance(action, QuizAnswer) else (), len(self.quiz)
            )
            return self._end(self.end_reason or "wrong")
        self.turns += 1
        if isinstance(action, GiveUp):
            return self._end("gave_up")
        if isinstance(action, Guess):
            return self._guess(action, pending)
        if isinstance(action, More):
            self.more_requests += 1
            n = self.config.per_turn if action.n is None else action.n
            if not 1 <= n <= MAX_MORE:
                self.format_errors += 1
                return self._continue(
                    "format_error", reason=f"n_examples must be between 1 and {MAX_MORE}, not {n}"
                )
            return self._continue("examples", n=n, always=True)
        return self._continue("format_error", reason=self._unreadable(action))

    def _draw(self, n: int) -> tuple[tuple[int, ...], ...]:
        drawn = tuple(tuple(s) for s in draw_sequences(self.rule, self.level, self._rng, n))
        self.shown.extend(drawn)
        return drawn

    def _continue(
        self, kind: ObservationKind, *, n: int | None = None, always: bool = False, reason: str | None = None
    ) -> MathObservation:
        if self.turns_left <= 0:
            return self._end("turns" if kind != "wrong" else "wrong", reason)
        count = n if n is not None else self.config.per_turn
        sequences = self._draw(count) if always or self.config.refill else ()
        return self._obs(kind, sequences=sequences, reason=reason)

    def _guess(self, action: Guess, llm: Mapping[str, Any] | None) -> MathObservation:
        record = _GuessRecord(text=action.text, expression=action.expression, llm=llm)
        self.guesses.append(record)
        if "expression" in self.config.judges:
            if action.expression is None and self.config.ask_expression:
                record.asked_expression = True
                self._phase = "expression"
                return self._obs("ask_expression")
            record.verdict = judge_expression(self.rule, self.level, action.expression)
        return self._after_verdict(record)

    def _right(self, record: _GuessRecord) -> bool:
        # words without an expression, where the game may not ask for one: only the LLM judge can read them
        unread = record.expression is None and not record.asked_expression and "llm" in self.config.judges
        decider = record.decided_by = "llm" if unread else self.config.decider
        if decider == "expression":
            return bool(record.verdict and record.verdict.equivalent)
        return bool(record.llm and record.llm.get("verdict") is True)

    def _after_verdict(self, record: _GuessRecord) -> MathObservation:
        self._phase = "play"
        reason = record.verdict.rejection if record.verdict else None
        if self._right(record):
            self.won = True
            return self._ask_quiz_or_end("won")
        if self.turns_left <= 0:
            return self._ask_quiz_or_end("wrong")
        return self._continue("wrong", reason=reason)

    def _ask_quiz_or_end(self, reason: EndReason) -> MathObservation:
        self.end_reason = reason
        if "quiz" not in self.config.judges or not self.config.quiz_size:
            return self._end(reason)
        fresh = quiz_starts(self.rule, self.level)
        if not fresh:  # pragma: no cover - every kept rule has fresh starts in practice
            return self._end(reason)
        rng = random.Random(f"math_rules.quiz|{self.config.seed}")
        chosen = rng.sample(fresh, min(self.config.quiz_size, len(fresh)))
        for s in chosen:
            terms = sequence(self.rule, s)
            self.quiz.append((tuple(terms[:QUIZ_SHOWN]), tuple(terms[QUIZ_SHOWN : QUIZ_SHOWN + QUIZ_ASKED])))
        self._phase = "quiz"
        return self._obs("ask_quiz", quiz=tuple(q for q, _ in self.quiz))

    def _end(self, reason: EndReason, detail: str | None = None) -> MathObservation:
        self._phase = "done"
        self.end_reason = reason
        return self._obs("ended", end_reason=reason, won=self.won, rule=self.rule.text(), reason=detail)

    # ---------------------------------------------------------------------------------------- outcome
    def quiz_accuracy(self) -> float | None:
        return quiz_accuracy(self.quiz_answers, [truth for _, truth in self.quiz])

    def judge_results(self) -> dict[str, bool | None]:
        """Each judge that ran, on the last guess: right, wrong, or None (no guess, or it could not judge)."""
        last = self.guesses[-1] if self.guesses else None
        verdicts: dict[str, bool | None] = {
            "expression": bool(last and last.verdict and last.verdict.equivalent),
            "quiz": self.quiz_accuracy() == 1.0 if self.quiz_answers is not None else False,
            "llm": bool(last and last.llm and last.llm.get("verdict") is True),
        }
        return {name: verdicts[name] for name in self.config.judges}

    def outcome(self) -> Outcome:
        # guesses whose text held no expression (asked for afterwards, or judged by the LLM judge only)
        flagged = [i for i, g in enumerate(self.guesses) if g.asked_expression or g.expression is None]
        return Outcome(
            success=self.won,
            metrics={
                "decider": self.config.decider,
                "judges": self.judge_results(),
                "end_reason": self.end_reason,
                "turns": self.turns,
                "turns_to_solution": self.turns if self.won else None,
                "more_requests": self.more_requests,
                "guesses": [guess_json(g) for g in self.guesses],
                "final_guess": self.guesses[-1].text if self.guesses else None,
                "final_expression": self.guesses[-1].expression if self.guesses else None,
                "guesses_without_expression": flagged,
                "format_errors": self.format_errors,
                "truncated": self.truncated,
                "sequences_seen": len(self.shown),
                "quiz": [[list(q), list(t)] for q, t in self.quiz],
                "quiz_answers": [list(a) if a is not None else None for a in self.quiz_answers]
                if self.quiz_answers is not None
                else None,
                "quiz_accuracy": self.quiz_accuracy(),
                "llm_disagreements": sum(
                    g.llm is not None
                    and g.verdict is not None
                    and g.llm.get("verdict") is not None
                    and g.llm.get("verdict") != g.verdict.equivalent
                    for g in self.guesses
                ),
            },
        )
