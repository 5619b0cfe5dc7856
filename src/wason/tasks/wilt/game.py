"""The WILT game: pure logic over structured actions (no text; see ``protocol.py`` for that).

Protocol as published (paper A.1.2 and the reference harness): up to 30 test cases, each answered True/False with
the attempts remaining, then exactly one final guess. Fixed here, per the reference notes: the remaining count is
the true one (the reference's first reply said 30); the episode always ends (after the guess, after the forced-guess
request is refused, or after too many consecutive unreadable replies, as in the reference); test values are
checked (finite, at most three digits) and a bad one costs an attempt as an invalid test.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from wason.core.family import MAX_FORMAT_ERRORS
from wason.core.game import Malformed, Outcome
from wason.sandbox import Program
from wason.tasks.wilt.decide import Domain
from wason.tasks.wilt.judge import BARE_EXPRESSION, Verdict, is_lambda, judge
from wason.tasks.wilt.probes import PROBE_VERSION
from wason.tasks.wilt.values import InvalidValue, parse_value


@dataclass(frozen=True)
class ProposeTest:
    """Ask the hidden rule about one triple; values are given as typed (strings) or as numbers."""

    values: tuple[str, ...]


@dataclass(frozen=True)
class FinalGuess:
    """The one final guess: an expression in the guess language (usually ``lambda x, y, z: ...``)."""

    expression: str


WiltAction = ProposeTest | FinalGuess

ObservationKind = Literal["start", "result", "invalid_test", "format_error", "verdict", "ended"]
EndReason = Literal["guess", "refused_forced_guess", "format_errors"]


class WiltObservation(BaseModel):
    """What the player learns after an action."""

    model_config = ConfigDict(frozen=True)

    kind: ObservationKind
    remaining: int
    must_guess: bool = False
    values: tuple[float, float, float] | None = None
    result: bool | None = None
    repeat: bool = False
    reason: str | None = None
    correct: bool | None = None
    end_reason: EndReason | None = None


MAX_TESTS = 1_000
"""The most tests before the guess (published: 30): each is a turn, and the solver spends every one."""


@dataclass(frozen=True)
class WiltConfig:
    """Episode settings; the defaults are the published protocol. The guess is judged over the domain a player
    can test: ``integer_range`` (inclusive; the Bayesian prompt's 1 to 100), or any number of at most three
    digits (None: the published prompt); the one-variable game's on every whole number of it (:mod:`.single`)."""

    max_tests: int = 30  # test attempts before the final guess is forced
    # the episode ends after this many unreadable replies in a row (the reference aborts on the second); 0 never
    format_error_limit: int = 2
    probe_seed: int = 0  # of the probe set the final guess is judged on
    integer_range: tuple[int, int] | None = None
    arity: int = 3  # numbers per test and parameters of the guess: 3, or 1 for the single-variable prompt
    # accept a bare expression (``x > y > z``) as the guess's lambda; False (the reference): an invalid guess
    lenient_guess: bool = False

    def __post_init__(self) -> None:
        if not 0 <= self.max_tests <= MAX_TESTS:
            # 0: no tests at all, the guess at once (the test swap, where the tests are given)
            raise ValueError(f"max_tests must be from 0 to {MAX_TESTS}")
        if not 0 <= self.format_error_limit <= MAX_FORMAT_ERRORS:
            raise ValueError(f"format_error_limit must be from 0 (never) to {MAX_FORMAT_ERRORS}")
        if self.arity not in (1, 3):
            raise ValueError("arity must be 3 (the published game) or 1 (the single-variable prompt)")
        if self.arity == 1 and self.integer_range is None:
            raise ValueError("the single-variable game needs its integer_range (its domain)")


class WiltGame:
    """One WILT episode against a hidden rule; ``given`` are tests and results the player is shown without
    making them (a test swap's source tests): the guess is held to them as to its own."""

    def __init__(
        self,
        rule: Program,
        config: WiltConfig | None = None,
        given: Sequence[tuple[tuple[float, float, float], bool]] = (),
    ) -> None:
        self.rule = rule
        self.config = config or WiltConfig()
        self.given = tuple(given)
        self.tests: list[tuple[tuple[float, float, float], bool]] = []
        self.attempts = 0
        self.invalid_tests = 0
        self.format_errors = 0
        self.truncated = 0
        self.repeats = 0
        self.guess: str | None = None
        self.verdict: Verdict | None = None
        self.end_reason: EndReason | None = None
        self._consecutive_format_errors = 0
        self._seen: set[tuple[float, float, float]] = set()

    @property
    def done(self) -> bool:
        return self.end_reason is not None

    @property
    def remaining(self) -> int:
        return self.config.max_tests - self.attempts

    def start(self) -> WiltObservation:
        return WiltObservation(kind="start", remaining=self.remaining)

    def step(self, action: WiltAction | Malformed) -> WiltObservation:
        if self.done:
            raise RuntimeError("the episode has ended")
        if isinstance(action, FinalGuess):
            return self._guess(action.expression)
        if self.remaining <= 0:
            # After the last test the only accepted move is the guess: anything else ends the episode.
            return self._ended("refused_forced_guess")
        if isinstance(action, Malformed):
            return self._format_error(action.reason, truncated=action.truncated)
        return self._test(action.values)

    def _format_error(self, reason: str, *, truncated: bool = False) -> WiltObservation:
        # a reply cut off at the token limit costs what an unreadable one costs; it is only counted apart
        self.attempts += 1
        if truncated:
            self.truncated += 1
        else:
            self.format_errors += 1
        self._consecutive_format_errors += 1
        limit = self.config.format_error_limit
        if limit and self._consecutive_format_errors >= limit:
            return self._ended("format_errors", reason=reason)
        return self._told("format_error", reason=reason)

    def _ended(self, end: EndReason, **fields: Any) -> WiltObservation:
        self.end_reason = end
        return WiltObservation(
            kind="ended", remaining=self.remaining, end_reason=end, correct=False, **fields
        )

    def _told(self, kind: ObservationKind, **fields: Any) -> WiltObservation:
        """An observation while tests may be made, saying whether the guess is now due."""
        return WiltObservation(kind=kind, remaining=self.remaining, must_guess=self.remaining <= 0, **fields)

    def _test(self, tokens: tuple[str, ...]) -> WiltObservation:
        self.attempts += 1
        self._consecutive_format_errors = 0
        try:
            arity = self.config.arity
            if len(tokens) != arity:
                what = "3 numbers" if arity == 3 else "1 number"
                raise InvalidValue(f"a test case needs exactly {what}, got {len(tokens)}")
            # a one-number game keeps its tests as (x, 0, 0): the lifted rule ignores the other two
            x, y, z = (parse_value(t) for t in tokens) if arity == 3 else (parse_value(tokens[0]), 0.0, 0.0)
            if self.config.integer_range is not None:
                low, high = self.config.integer_range
                for v in (x, y, z)[: self.config.arity]:
                    if not (v.is_integer() and low <= v <= high):
                        raise InvalidValue(f"{v:g} is not a whole number from {low} to {high}")
        except InvalidValue as exc:
            self.invalid_tests += 1
            return self._told("invalid_test", reason=str(exc))
        point = (x, y, z)
        repeat = point in self._seen
        self.repeats += repeat
        self._seen.add(point)
        result = bool(self.rule(x, y, z))
        self.tests.append((point, result))
        return self._told("result", values=point, result=result, repeat=repeat)

    def _guess(self, expression: str) -> WiltObservation:
        self.guess = expression
        if not self.config.lenient_guess and not is_lambda(expression):
            self.verdict = Verdict.rejected(
                self.rule.source,
                expression,
                BARE_EXPRESSION,
                probe_seed=self.config.probe_seed,
                probe_version=PROBE_VERSION,
            )
        elif self.config.arity == 1:
            from wason.tasks.wilt.single import judge_single

            self.verdict = judge_single(self.rule, expression)
        else:
            self.verdict = judge(
                self.rule,
                expression,
                seed=self.config.probe_seed,
                tests=[*self.given, *self.tests],
                domain=Domain(integer_range=self.config.integer_range),
            )
        self.end_reason = "guess"
        return WiltObservation(
            kind="verdict",
            remaining=self.remaining,
            correct=self.verdict.equivalent,
            reason=self.verdict.rejection,
            end_reason=self.end_reason,
        )

    def outcome(self) -> Outcome:
        from wason.tasks.wilt.complexity import guess_complexity
        from wason.tasks.wilt.reduction import reduction_curve, uninformative_tests

        v = self.verdict
        verdict = v.model_dump(mode="json") if v else None
        shape = (
            guess_complexity(self.guess, verdict, arity=self.config.arity) if self.guess is not None else None
        )
        metrics: dict[str, Any] = {
            "correct": bool(v and v.equivalent),
            "approximately_correct": bool(v and v.approximately_correct),
            "guessed": self.guess is not None,
            "guess": self.guess,
            "end_reason": self.end_reason,
            "attempts": self.attempts,
            "tests": len(self.tests),
            "invalid_tests": self.invalid_tests,
            "format_errors": self.format_errors,
            "truncated": self.truncated,
            "repeats": self.repeats,
            "verdict": verdict,
            # how the verdict was reached: proved, refuted or sampled (None: no guess, or one the sandbox refused)
            "verdict_method": v.method if v else None,
            # paper A.3 for this guess (None when there was none or the sandbox refused it)
            "operators": shape.operators if shape else None,
            "guess_length": shape.length if shape else None,
            "set_inclusion": shape.set_inclusion if shape else None,
            "history": [[list(p)[: self.config.arity], r] for p, r in self.tests],
        }
        if self.config.arity == 1:
            # the hypothesis space is of three-variable rules: no reduction curve for the one-variable game
            metrics["arity"] = 1
        else:
            curve, space_version = reduction_curve(self.tests)
            metrics["reduction"] = curve
            metrics["uninformative_tests"] = uninformative_tests(curve) if curve is not None else None
            metrics["hypothesis_space"] = space_version
        return Outcome(success=bool(v and v.equivalent), metrics=metrics)
