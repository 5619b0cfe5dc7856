"""The Static Picnic game: pure logic over structured actions; see ``protocol.py`` for the published text.

Published (``static_picnic/base.py``, ``llm_gameplay.py``): a hidden rule over the 511 items; the player first sees
``n`` positives and ``n`` negatives; each turn it asks for ``more N`` (N new positives and N new negatives, never
repeated), guesses the rule, or gives up. Creation is turn 1 and each request or guess adds one. In the published
LLM protocol the host hands out the last requested number of new examples at every turn, also after a wrong guess
(``examples_each_turn``), a request is capped at what is left (``min(unseen positives, unseen negatives)``), and a
wrong guess when no examples are left ends the game.

Fixed here (each recorded with the episode):

* A right guess always wins. The reference overwrites it to a loss when the positives have run out
  (``base.py:252-257``).
* A guess is judged by code: right when it accepts exactly the rule's items over all 511 (``guess.py``). The
  published LLM judge, when on, is reported beside it; it decides only a guess the code cannot read (no known
  category), and that is flagged.
* When nothing is left a request gives nothing and says so; the reference then hands out *all* remaining negatives
  (``llm_gameplay.py:100-104`` with ``:291-297``).
* ``give up`` is its own action (the library judges it as a guess).
* Negatives are drawn with a seed; ``informative`` negatives (near misses of the rule) are an option.
* An item named like a category the rule covers is never a negative: the item ``fruit`` carries only its
  ancestors (``food``), so under the rule fruit (or food and fruit) the reference could show "cannot bring:
  fruit" (:func:`~wason.tasks.picnic.catalog.named_within`).
"""

from __future__ import annotations

import random
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from wason.core.game import Malformed, Outcome
from wason.core.guess_game import GiveUp as GiveUp
from wason.core.guess_game import More as More
from wason.core.guess_game import turns_left
from wason.core.judged import JudgedMoves
from wason.tasks.picnic.catalog import Catalog, PicnicRule, catalog, named_within, near_miss_mask
from wason.tasks.picnic.guess import judge_guess

Negatives = Literal["random", "informative"]
NEGATIVES: tuple[Negatives, ...] = ("random", "informative")
MAX_REQUEST = 511
MAX_TURNS = 1_000
"""The largest turn limit (published options: 1 to 15)."""
PUBLISHED_DEFAULT_MORE = 2
"""The published protocol's count for a ``more`` without a number (``llm_gameplay.py:335``)."""


@dataclass(frozen=True)
class Guess:
    """A guess of the rule, as written (read by :mod:`wason.tasks.picnic.guess`)."""

    text: str


PicnicAction = More | Guess | GiveUp

ObservationKind = Literal["start", "examples", "wrong_guess", "format_error", "ended"]
EndReason = Literal["correct", "gave_up", "wrong_no_examples", "turn_limit"]
# The game's LLM judge is injected by whoever builds it: (guess, rule text, positives shown) -> a Verdict record.
Judge = Callable[[str, str, list[str]], Awaitable[Mapping[str, Any]]]


class PicnicObservation(BaseModel):
    """What the player learns after an action; never the rule before the game ends. ``turn`` is the published
    turn number of the next move; ``capped``: fewer examples were left than ``requested``.

    ``remaining`` (``min(unseen positives, unseen negatives)``, published) is not in the observation's JSON (what
    sessions store and ``/api/sessions`` answers): at the start it is the rule's size less the examples shown,
    which names the rule to anyone who knows the data. The published routes (``total_examples_available``) and
    the published model protocol read it from the game.
    """

    model_config = ConfigDict(frozen=True)

    kind: ObservationKind
    turn: int
    turns_left: int | None
    positives: tuple[str, ...] = ()
    negatives: tuple[str, ...] = ()
    requested: int | None = None
    capped: bool = False
    remaining: int = Field(default=0, exclude=True)
    final_turn: bool = False
    reason: str | None = None
    end_reason: EndReason | None = None
    guess_right: bool | None = None
    rule: str | None = None


@dataclass(frozen=True)
class PicnicConfig:
    """Episode settings: ``max_turns`` None is the library's no limit; ``examples_each_turn`` is the published
    LLM protocol's new examples after a wrong guess (off in the library game: ``wason.games``, the HTTP API)."""

    num_init_examples: int = 2
    max_turns: int | None = 10
    negatives: Negatives = "random"
    examples_each_turn: bool = True
    llm_judge: bool = False

    def __post_init__(self) -> None:
        if not 1 <= self.num_init_examples <= MAX_REQUEST:
            raise ValueError(f"num_init_examples must be between 1 and {MAX_REQUEST}")
        if self.max_turns is not None and not 1 <= self.max_turns <= MAX_TURNS:
            raise ValueError(f"max_turns must be from 1 to {MAX_TURNS} (or None for no limit)")
        if self.negatives not in NEGATIVES:
            raise ValueError(f"negatives must be one of {', '.join(NEGATIVES)}")


@dataclass
class _Move:
    action: dict[str, Any]
    positives: tuple[str, ...] = ()
    negatives: tuple[str, ...] = ()
    requested: int | None = None
    capped: bool = False
    code: dict[str, Any] | None = None
    llm: Mapping[str, Any] | None = None
    right: bool | None = None
    decided_by: str | None = None


@dataclass
class PicnicGame(JudgedMoves):
    """One Static Picnic episode; ``seed`` seeds the examples handed out, ``judge`` is needed with ``llm_judge``."""

    rule: PicnicRule
    seed: int
    config: PicnicConfig = field(default_factory=PicnicConfig)
    judge: Judge | None = None

    def __post_init__(self) -> None:
        if self.config.llm_judge and self.judge is None:
            raise ValueError("the LLM judge is on but no judge was given")
        self.catalog: Catalog = catalog()
        self.members = self.rule.members()
        # never dealt as negatives: items named like a category the rule covers (`fruit` under fruit)
        self._not_negative = named_within(tuple(self.rule.categories))
        self.rng = random.Random(self.seed)
        self.seen_pos: list[str] = []
        self.seen_neg: list[str] = []
        self._seen_pos_mask = 0
        self._seen_neg_mask = 0
        self._near = near_miss_mask(self.rule.categories) if self.config.negatives == "informative" else 0
        self.moves: list[_Move] = []
        self.format_errors = 0
        self.truncated = 0
        self.capped_requests = 0
        self.empty_requests = 0
        self.end_reason: EndReason | None = None
        self.last_count = self.config.num_init_examples
        self.initial: tuple[tuple[str, ...], tuple[str, ...], bool] = ((), (), False)
        self._started = False

    # ------------------------------------------------------------------------------------------ state

    @property
    def done(self) -> bool:
        return self.end_reason is not None

    @property
    def turn(self) -> int:
        """The published turn count: creation is turn 1, each move adds one."""
        return 1 + len(self.moves)

    @property
    def turns_left(self) -> int | None:
        return turns_left(self.config.max_turns, len(self.moves))

    def remaining(self) -> int:
        """Examples still available: ``min(unseen positives, unseen negatives)``, as published."""
        everything = self.catalog.everything
        pos = bin(self.members & ~self._seen_pos_mask).count("1")
        neg = bin(everything & ~self.members & ~self._not_negative & ~self._seen_neg_mask).count("1")
        return min(pos, neg)

    def start(self) -> PicnicObservation:
        if self._started:
            raise RuntimeError("the game has started")
        self._started = True
        n = self.config.num_init_examples
        pos, neg, capped = self._deal(n)
        self.initial = (pos, neg, capped)
        return self._observation("start", positives=pos, negatives=neg, requested=n, capped=capped)

    # ------------------------------------------------------------------------------------- outside work

    async def settle(self, action: object) -> dict[str, Any] | None:
        """Ask the LLM judge about a guess (when it is on); the record is stored with the turn."""
        self._pending = None
        if self.done or not isinstance(action, Guess) or not self.config.llm_judge or self.judge is None:
            return None
        return await self._ask(action, self.judge(action.text, self.rule.text, list(self.seen_pos)))

    # ------------------------------------------------------------------------------------------ steps

    def step(self, action: PicnicAction | Malformed) -> PicnicObservation:
        if self.done:
            raise RuntimeError("the episode has ended")
        if not self._started:
            raise RuntimeError("start the game first")
        llm = self._judged(action)
        if isinstance(action, More):
            return self._more(action)
        if isinstance(action, GiveUp):
            self.moves.append(_Move(action={"type": "GiveUp"}))
            return self._end("gave_up")
        if isinstance(action, Guess):
            return self._guess(action, llm)
        reason = self._unreadable(action, "not a move:")
        self.moves.append(_Move(action={"type": "Malformed", "reason": reason}))
        if self.turns_left == 0:
            return self._end("turn_limit")
        return self._observation("format_error", reason=reason)

    def _more(self, action: More) -> PicnicObservation:
        n = max(0, min(int(action.n), MAX_REQUEST))
        self.last_count = n
        pos, neg, capped = self._deal(n)
        self.capped_requests += capped
        self.empty_requests += not pos
        self.moves.append(_Move({"type": "More", "n": int(action.n)}, pos, neg, requested=n, capped=capped))
        if self.turns_left == 0:
            return self._end("turn_limit")
        return self._observation("examples", positives=pos, negatives=neg, requested=n, capped=capped)

    def _guess(self, action: Guess, llm: Mapping[str, Any] | None) -> PicnicObservation:
        code = judge_guess(action.text, self.members)
        llm_verdict = llm.get("verdict") if llm is not None else None
        if code.equivalent is not None:
            right, decided = bool(code.equivalent), "code"
        elif llm_verdict is not None:
            right, decided = bool(llm_verdict), "llm"
        else:
            right, decided = False, "unreadable"
        no_examples = self.remaining() == 0
        action_json = {"type": "Guess", "text": action.text}
        move = _Move(action_json, code=code.as_json(), llm=llm, right=right, decided_by=decided)
        self.moves.append(move)
        if right:
            return self._end("correct")
        if no_examples:
            return self._end("wrong_no_examples")
        if self.turns_left == 0:
            return self._end("turn_limit")
        fields: dict[str, Any] = {"requested": self.last_count if self.config.examples_each_turn else None}
        if self.config.examples_each_turn and self.last_count > 0:
            pos, neg, capped = self._deal(self.last_count)
            move.positives, move.negatives, move.requested, move.capped = pos, neg, self.last_count, capped
            fields.update(positives=pos, negatives=neg, capped=capped)
        return self._observation("wrong_guess", guess_right=False, **fields)

    # ------------------------------------------------------------------------------------------ dealing

    def _deal(self, n: int) -> tuple[tuple[str, ...], tuple[str, ...], bool]:
        """Up to ``n`` unseen positives and as many unseen negatives (capped at what is left, published)."""
        k = min(n, self.remaining())
        cat = self.catalog
        pos_pool = cat.names(self.members & ~self._seen_pos_mask)
        positives = tuple(self.rng.sample(pos_pool, k)) if k else ()
        negatives: list[str] = []
        if k:
            unseen = cat.everything & ~self.members & ~self._not_negative & ~self._seen_neg_mask
            near = unseen & self._near
            if near:
                first = cat.names(near)
                negatives = self.rng.sample(first, min(k, len(first)))
            if len(negatives) < k:
                rest = cat.names(unseen & ~near)
                negatives += self.rng.sample(rest, k - len(negatives))
        for p in positives:
            self._seen_pos_mask |= 1 << cat.index(p)
        for q in negatives:
            self._seen_neg_mask |= 1 << cat.index(q)
        self.seen_pos += positives
        self.seen_neg += negatives
        return positives, tuple(negatives), k < n

    def _observation(self, kind: ObservationKind, **fields: Any) -> PicnicObservation:
        left = self.turns_left
        base = dict(turn=self.turn, turns_left=left, remaining=self.remaining(), final_turn=left == 1)
        return PicnicObservation(kind=kind, **(base | fields))

    def _end(self, reason: EndReason) -> PicnicObservation:
        self.end_reason = reason
        last = self.moves[-1] if self.moves else None
        right = last.right if last is not None and last.action["type"] == "Guess" else None
        return self._observation(
            "ended", final_turn=False, end_reason=reason, guess_right=right, rule=self.rule.text
        )

    # ---------------------------------------------------------------------------------------- outcome

    def guesses(self) -> list[_Move]:
        return [m for m in self.moves if m.action["type"] == "Guess"]

    def outcome(self) -> Outcome:
        guesses = self.guesses()
        last = guesses[-1] if guesses else None
        won = self.end_reason == "correct"
        code_right = bool(last and last.code and last.code["equivalent"])
        llm_right = bool(last and last.llm and last.llm.get("verdict")) if self.config.llm_judge else None
        return Outcome(
            success=won,
            metrics={
                "status": "won" if won else "lost",
                "end_reason": self.end_reason,
                "judges": {"code": code_right, "llm": llm_right},
                "decided_by": last.decided_by if last else None,
                "llm_decided": any(m.decided_by == "llm" for m in guesses),
                "unreadable_guesses": sum(m.decided_by == "unreadable" for m in guesses),
                "final_guess": last.action["text"] if last else None,
                "final_code_verdict": last.code if last else None,
                "final_llm_verdict": dict(last.llm) if last and last.llm else None,
                "turns": self.turn,
                "moves": len(self.moves),
                "requests": sum(m.action["type"] == "More" for m in self.moves),
                "guesses": len(guesses),
                "positives_seen": len(self.seen_pos),
                "negatives_seen": len(self.seen_neg),
                "examples_seen": len(self.seen_pos) + len(self.seen_neg),
                "rule_positives": bin(self.members).count("1"),
                "capped_requests": self.capped_requests,
                "empty_requests": self.empty_requests,
                "format_errors": self.format_errors,
                "truncated": self.truncated,
                "max_turns": self.config.max_turns,
                "negatives_mode": self.config.negatives,
                "initial": {"positives": list(self.initial[0]), "negatives": list(self.initial[1])},
                "history": [
                    {
                        "action": m.action,
                        "positives": list(m.positives),
                        "negatives": list(m.negatives),
                        "capped": m.capped,
                        "right": m.right,
                        "decided_by": m.decided_by,
                        "code": m.code,
                        "llm": dict(m.llm) if m.llm is not None else None,
                    }
                    for m in self.moves
                ],
            },
        )
