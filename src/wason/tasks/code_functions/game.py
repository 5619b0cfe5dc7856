"""The Code Functions Picnic game: pure logic over structured actions (see ``protocol.py`` for the text).

A hidden rule is a predicate over one word. The player sees labelled words ("I can bring" / "I cannot bring"),
may ask for more, and guesses: a text and a predicate in the word language. The predicate is judged by code on
every word the player has not seen (equivalent on all of them wins); a prediction quiz on held-out words and
the published LLM judge (three votes, two decide) are reported beside it.

Choices, each recorded with the episode:

* Examples are balanced by default: each request for N gives N words the rule accepts and N it rejects (the
  reference's harness handed out such pairs). ``examples="random"`` draws N words at random with replacement,
  labelled by the rule, as the reference's library did.
* Turns: each request for examples, each guess, each give-up and each unreadable reply is one turn; the game is
  lost when ``max_turns`` turns pass without an equivalent predicate (None: no limit). After a wrong guess
  ``after_wrong`` more examples (pairs, when balanced) are shown, as the published harness added a pair each turn.
* A guess without a predicate is followed by a request for one (not published); the text alone is judged only
  by the LLM judge, beside the code.
* The status is ``won`` or ``lost`` (the reference wrote ``win``); running out of examples never turns a right
  guess into a loss.
"""

from __future__ import annotations

import random
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
import numpy.typing as npt
from pydantic import BaseModel, ConfigDict

from wason.core.game import Malformed, Outcome
from wason.core.guess_game import GiveUp as GiveUp
from wason.core.guess_game import More as More
from wason.core.guess_game import guess_json, padded, quiz_accuracy, turns_left
from wason.core.judged import JudgedMoves
from wason.tasks.code_functions.grammar import Rule
from wason.tasks.code_functions.judge import PredicateVerdict, judge_predicate
from wason.tasks.code_functions.vocabulary import vocabulary

JUDGES = ("predicate", "quiz", "llm")
MAX_MORE = 100
"""The most examples (pairs, when balanced) one request may ask for; more are capped. Also the most shown at the
start, or added after a wrong guess."""

MAX_TURNS = 1_000
"""The largest turn limit (published: 1 to 7)."""

MAX_QUIZ = 100
"""The most held-out words in the quiz, all answered in one reply (default 10)."""


@dataclass(frozen=True)
class Guess:
    """A guess: the rule in words, and as a predicate in the word language when the player gave one."""

    text: str
    predicate: str | None = None


@dataclass(frozen=True)
class PredicateAnswer:
    """The predicate asked for after a guess without one."""

    source: str


@dataclass(frozen=True)
class QuizAnswer:
    """Labels of the quiz words, in order (None where none was given)."""

    labels: tuple[bool | None, ...]


Action = More | Guess | PredicateAnswer | QuizAnswer | GiveUp
Kind = Literal["start", "examples", "wrong", "format_error", "ask_predicate", "ask_quiz", "ended"]
Status = Literal["ongoing", "won", "lost"]

# The LLM judge is injected by whoever builds the game: (rule code, guess text) -> JSON record with "verdict".
Judge = Callable[[str, str], Awaitable[Mapping[str, Any]]]


class Observation(BaseModel):
    """What the player learns after an action (never the rule): ``positives``/``negatives`` are the words this
    action shows, ``all_positives``/``all_negatives`` every word shown so far; ``available`` the pairs still
    available (balanced examples, else None); ``quiz`` the words to label once the game is decided."""

    model_config = ConfigDict(frozen=True)

    kind: Kind
    positives: tuple[str, ...] = ()
    negatives: tuple[str, ...] = ()
    all_positives: tuple[str, ...] = ()
    all_negatives: tuple[str, ...] = ()
    turn: int = 0
    turns_left: int | None = None
    available: int | None = None
    capped: int | None = None
    status: Status = "ongoing"
    reason: str | None = None
    quiz: tuple[str, ...] = ()


@dataclass(frozen=True)
class GameSettings:
    """Episode settings (the module docstring says what each choice means): the published harness ran
    ``max_turns`` 1, 3, 5 and 7 and added one pair after a wrong guess; half the quiz's words fit the rule."""

    examples: Literal["balanced", "random"] = "balanced"
    initial: int = 2
    after_wrong: int = 1
    max_turns: int | None = 7
    judges: tuple[str, ...] = ("predicate", "quiz")
    quiz_size: int = 10
    seed: int = 0

    def __post_init__(self) -> None:
        if self.examples not in ("balanced", "random"):
            raise ValueError("examples must be 'balanced' or 'random'")
        if not 1 <= self.initial <= MAX_MORE:
            raise ValueError(f"initial must be from 1 to {MAX_MORE}")
        if not 0 <= self.after_wrong <= MAX_MORE:
            raise ValueError(f"after_wrong must be from 0 to {MAX_MORE}")
        if self.max_turns is not None and not 1 <= self.max_turns <= MAX_TURNS:
            raise ValueError(f"max_turns must be from 1 to {MAX_TURNS} (or None)")
        unknown = [j for j in self.judges if j not in JUDGES]
        if unknown:
            raise ValueError(f"judges: unknown {unknown}; choose from {', '.join(JUDGES)}")
        if "predicate" not in self.judges:
            raise ValueError("judges must include 'predicate' (code is the oracle)")
        if not 2 <= self.quiz_size <= MAX_QUIZ or self.quiz_size % 2:
            raise ValueError(f"quiz_size must be an even number from 2 to {MAX_QUIZ}")


@dataclass
class _GuessRecord:
    turn: int
    text: str
    predicate: str | None
    verdict: PredicateVerdict | None = None
    llm: Mapping[str, Any] | None = None


@dataclass
class CodeFunctionsGame(JudgedMoves):
    """One game against a hidden word rule, given its ``truth`` on every word of the list; ``judge_code`` is the
    code the LLM judge reads as the rule (the published function, else the predicate)."""

    rule: Rule
    truth: npt.NDArray[np.bool_]
    settings: GameSettings = field(default_factory=GameSettings)
    judge: Judge | None = None
    judge_code: str | None = None

    def __post_init__(self) -> None:
        if "llm" in self.settings.judges and self.judge is None:
            raise ValueError("the llm judge is on but no judge was given")
        self._rng = random.Random(f"code-functions|examples|{self.settings.seed}")
        words = vocabulary()
        if len(self.truth) != len(words):
            raise ValueError("the rule's truth table does not match the word list")
        self._pos_pool, self._neg_pool = self._split(range(len(words)))
        self._rng.shuffle(self._pos_pool)
        self._rng.shuffle(self._neg_pool)
        self.positives: list[str] = []
        self.negatives: list[str] = []
        self._seen: set[int] = set()
        self.turns = 0
        self.format_errors = 0
        self.truncated = 0
        self.guesses: list[_GuessRecord] = []
        self.status: Status = "ongoing"
        self.end_reason: str | None = None
        self.quiz: list[tuple[str, bool]] = []
        self.quiz_answers: tuple[bool | None, ...] | None = None
        self.requests = 0
        self._phase: Literal["play", "predicate", "quiz", "done"] = "play"
        self._start: Observation | None = None
        self._initial = self._draw(self.settings.initial)

    # -- examples -------------------------------------------------------------------------------------------
    def _take(self, pool: list[int], n: int) -> list[int]:
        out: list[int] = []
        while pool and len(out) < n:
            i = pool.pop()
            if i not in self._seen:
                out.append(i)
        return out

    def _draw(self, n: int) -> tuple[tuple[str, ...], tuple[str, ...], int | None]:
        words = vocabulary()
        capped = None
        if n > MAX_MORE:
            n, capped = MAX_MORE, n
        if self.settings.examples == "balanced":
            pos = self._take(self._pos_pool, n)
            neg = self._take(self._neg_pool, n)
            chosen = pos + neg
        else:
            chosen = [self._rng.randrange(len(words)) for _ in range(n)]
            pos, neg = self._split(chosen)
        self._seen.update(chosen)
        new_pos = tuple(words[i] for i in pos)
        new_neg = tuple(words[i] for i in neg)
        self.positives.extend(new_pos)
        self.negatives.extend(new_neg)
        return new_pos, new_neg, capped

    def _split(self, indices: Iterable[int]) -> tuple[list[int], list[int]]:
        """The words of ``indices`` the rule accepts, and those it rejects."""
        indices = list(indices)
        return [i for i in indices if self.truth[i]], [i for i in indices if not self.truth[i]]

    def available(self) -> int | None:
        """Pairs still available (balanced examples), else None."""
        if self.settings.examples != "balanced":
            return None
        pos = sum(1 for i in self._pos_pool if i not in self._seen)
        neg = sum(1 for i in self._neg_pool if i not in self._seen)
        return min(pos, neg)

    def heldout(self) -> list[int]:
        """Every word of the list not shown to the player."""
        return [i for i in range(len(self.truth)) if i not in self._seen]

    # -- state ----------------------------------------------------------------------------------------------
    @property
    def done(self) -> bool:
        return self._phase == "done"

    @property
    def turns_left(self) -> int | None:
        return turns_left(self.settings.max_turns, self.turns)

    def _obs(self, kind: Kind, **fields: Any) -> Observation:
        fields.update(
            all_positives=tuple(self.positives), all_negatives=tuple(self.negatives), turn=self.turns
        )
        fields.update(turns_left=self.turns_left, available=self.available(), status=self.status)
        return Observation(kind=kind, **fields)

    def start(self) -> Observation:
        pos, neg, _ = self._initial
        self._start = self._obs("start", positives=pos, negatives=neg)
        return self._start

    # -- outside work -----------------------------------------------------------------------------------------
    async def settle(self, action: object) -> dict[str, Any] | None:
        """Ask the LLM judge about a guess's text (when it is on); the record is stored with the turn."""
        self._pending = None
        if self._phase != "play" or not isinstance(action, Guess) or self.judge is None:
            return None
        if "llm" not in self.settings.judges:
            return None
        return await self._ask(action, self.judge(self.judge_code or self.rule.source, action.text))

    # -- steps ----------------------------------------------------------------------------------------------
    def step(self, action: Action | Malformed) -> Observation:
        if self.done:
            raise RuntimeError("the game is over")
        llm = self._judged(action)
        if self._phase == "predicate":
            source = ""
            if isinstance(action, PredicateAnswer):
                source = action.source
            elif isinstance(action, Guess):
                source = action.predicate or action.text
            return self._judge_last(source)
        if self._phase == "quiz":
            labels = action.labels if isinstance(action, QuizAnswer) else ()
            self.quiz_answers = padded(labels, len(self.quiz))
            return self._finish()
        self.turns += 1
        if isinstance(action, More):
            self.requests += 1
            pos, neg, capped = self._draw(max(1, int(action.n)))
            if self.turns_left == 0:
                return self._decide("lost", "no turns left")
            return self._obs("examples", positives=pos, negatives=neg, capped=capped)
        if isinstance(action, GiveUp):
            return self._decide("lost", "gave up")
        if isinstance(action, Guess):
            self.guesses.append(_GuessRecord(self.turns, action.text, action.predicate, llm=llm))
            if action.predicate is None:
                self._phase = "predicate"
                return self._obs("ask_predicate")
            return self._judge_last(action.predicate)
        return self._wrong("format_error", self._unreadable(action))

    def _judge_last(self, source: str) -> Observation:
        record = self.guesses[-1]
        record.predicate = source
        record.verdict = judge_predicate(self.truth, source, self.heldout())
        self._phase = "play"
        if record.verdict.equivalent:
            return self._decide("won", "equivalent predicate")
        reason = record.verdict.rejection
        return self._wrong("wrong", None if reason is None else f"your predicate could not be used: {reason}")

    def _wrong(self, kind: Kind, reason: str | None) -> Observation:
        if self.turns_left == 0:
            return self._decide("lost", "no turns left")
        if not self.settings.after_wrong:
            return self._obs(kind, reason=reason)
        pos, neg, _ = self._draw(self.settings.after_wrong)
        return self._obs(kind, positives=pos, negatives=neg, reason=reason)

    def _decide(self, status: Status, reason: str) -> Observation:
        self.status = status
        self.end_reason = reason
        if "quiz" in self.settings.judges:
            self._phase = "quiz"
            self.quiz = self._quiz_words()
            return self._obs("ask_quiz", quiz=tuple(w for w, _ in self.quiz), reason=reason)
        return self._finish()

    def _finish(self) -> Observation:
        self._phase = "done"
        return self._obs("ended", reason=self.end_reason)

    def _quiz_words(self) -> list[tuple[str, bool]]:
        rng = random.Random(f"code-functions|quiz|{self.settings.seed}")
        half = self.settings.quiz_size // 2
        pos, neg = self._split(self.heldout())
        chosen = rng.sample(pos, min(half, len(pos))) + rng.sample(neg, min(half, len(neg)))
        rng.shuffle(chosen)
        words = vocabulary()
        return [(words[i], bool(self.truth[i])) for i in chosen]

    # -- outcome --------------------------------------------------------------------------------------------
    def quiz_accuracy(self) -> float | None:
        return quiz_accuracy(self.quiz_answers, [t for _, t in self.quiz])

    def llm_won_at(self) -> int | None:
        """The turn of the first guess the LLM judge accepted (the reference's win), or None."""
        for g in self.guesses:
            if g.llm is not None and g.llm.get("verdict") is True:
                return g.turn
        return None

    def outcome(self) -> Outcome:
        won = self.status == "won"
        judges: dict[str, bool | None] = {"predicate": won}
        if "quiz" in self.settings.judges:
            acc = self.quiz_accuracy()
            judges["quiz"] = None if acc is None else acc == 1.0
        if "llm" in self.settings.judges:
            judges["llm"] = self.llm_won_at() is not None
        last = self.guesses[-1].verdict if self.guesses and self.guesses[-1].verdict else None
        return Outcome(
            success=won,
            metrics={
                "status": self.status,
                "end_reason": self.end_reason,
                "judges": judges,
                "turns": self.turns,
                "requests": self.requests,
                "guesses": len(self.guesses),
                "format_errors": self.format_errors,
                "truncated": self.truncated,
                "positives_seen": len(self.positives),
                "negatives_seen": len(self.negatives),
                "examples_seen": len(self.positives) + len(self.negatives),
                "final_guess": self.guesses[-1].text if self.guesses else None,
                "final_predicate": self.guesses[-1].predicate if self.guesses else None,
                "final_accuracy": last.accuracy if last else None,
                "llm_won_at": self.llm_won_at(),
                "quiz": [[w, t] for w, t in self.quiz],
                "quiz_answers": list(self.quiz_answers) if self.quiz_answers is not None else None,
                "quiz_accuracy": self.quiz_accuracy(),
                "history": [guess_json(g) for g in self.guesses],
                "positives": list(self.positives),
                "negatives": list(self.negatives),
            },
        )
