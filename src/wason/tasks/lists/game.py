"""The list-rules (Numberwang) game: pure logic over structured actions; see ``protocol.py`` for the text.

Published protocol (the pilot, seed 002): three positive examples; each round the player proposes five test lists
and learns which fit the hidden rule; at most 19 rounds (the prompt's number; the pilot's loop allowed 20 turns);
one final hypothesis. Lists containing anything but integers are "No".

Fixed or added here, each reported with the episode:

* Labels come from the rule's predicate. An optional LLM labeller (the pilot's ``analysis_prompt.txt``) may
  label instead, to reproduce the pilot; every disagreement with the code's label is recorded.
* The episode always ends: after the 19th round the feedback asks for the final hypothesis, and the next reply is
  the last one (its ``final_hypothesis``, else its ``leading_hypothesis``, is taken as final).
* Scoring does not rest on one lenient verdict. After the final hypothesis the game may ask for the same rule as
  a Python predicate over ``xs`` (judged by code on a seeded probe set that always holds every list the episode
  labelled, with the label shown) and then for labels of held-out lists none of which the episode labelled (a
  prediction quiz). The LLM judge, if any, is one of several reported numbers.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from wason.core.family import MAX_FORMAT_ERRORS
from wason.core.game import Malformed, Outcome
from wason.tasks.lists.judge import ListVerdict, judge_list_predicate, quiz_lists
from wason.tasks.lists.rules import ListRule, as_int_list

JUDGES = ("predicate", "quiz", "llm")
# Which judge decides ``success`` when several ran: code before a model's opinion.
PRIMARY_ORDER = ("predicate", "quiz", "llm")


@dataclass(frozen=True)
class TestRound:
    """One round's test lists, as the player wrote them (the game labels non-integer lists "No")."""

    __test__ = False  # not a pytest test class, despite its name

    cases: tuple[object, ...]  # integer lists are tuples of ints, anything else is kept as given
    leading_hypothesis: str | None = None  # the player's current hypothesis, if it stated one
    possible_hypotheses: tuple[str, ...] = ()  # the alternatives it listed (the pilot's prompt asks for six)


@dataclass(frozen=True)
class FinalHypothesis:
    """The player's final rule in words."""

    text: str
    possible_hypotheses: tuple[str, ...] = ()


@dataclass(frozen=True)
class PredicateAnswer:
    """The final rule as a Python predicate over ``xs`` (a ``lambda xs: ...``), when the game asked for one."""

    source: str


@dataclass(frozen=True)
class QuizAnswer:
    """Labels for the held-out quiz lists, in order (None where the player gave none)."""

    labels: tuple[bool | None, ...]


ListsAction = TestRound | FinalHypothesis | PredicateAnswer | QuizAnswer

ObservationKind = Literal["start", "labels", "format_error", "ask_predicate", "ask_quiz", "ended"]
EndReason = Literal["finished", "no_final_hypothesis", "format_errors"]

# The game's oracles are injected by whoever builds it, so this module never imports a model.
Labeller = Callable[[str, Sequence[object]], Awaitable[list[bool | None]]]
HypothesisJudge = Callable[[str, str], Awaitable[Mapping[str, Any]]]


class ListsObservation(BaseModel):
    """What the player learns after an action: ``kind`` is ``labels`` after a round, ``format_error`` after an
    unreadable reply, ``ask_predicate`` and ``ask_quiz`` after the final hypothesis when those follow-ups are on,
    ``ended`` at the end."""

    model_config = ConfigDict(frozen=True)

    kind: ObservationKind
    round: int  # rounds used so far (a round is a reply with tests, or an unreadable reply)
    rounds_left: int
    must_finalize: bool = False  # the rounds are used up; the next reply must be the final hypothesis
    examples: tuple[tuple[int, ...], ...] | None = None
    cases: tuple[object, ...] = ()  # this round's test cases as proposed (at most ``tests_per_round``)
    labels: tuple[bool, ...] = ()  # whether each case fits the rule, as shown to the player
    repeats: tuple[bool, ...] = ()  # whether each case was tested before or is an example
    ignored_cases: int = 0
    reason: str | None = None
    quiz: tuple[tuple[int, ...], ...] = ()  # the held-out lists to label (``ask_quiz``)
    end_reason: EndReason | None = None


MAX_ROUNDS = 1_000
"""The most rounds of tests (published: 19)."""

MAX_TESTS_PER_ROUND = 100
"""The most test lists per round (published: 5)."""

MAX_QUIZ = 100
"""The most held-out lists in the quiz, all answered in one reply (default 10)."""


@dataclass(frozen=True)
class ListsConfig:
    """Episode settings. Defaults are the published protocol plus the code-judged follow-ups. ``judges`` run of
    ``predicate``, ``quiz``, ``llm``: ``predicate`` and ``quiz`` add follow-up turns after the final hypothesis
    (the published conversation up to it is unchanged); ``llm`` needs a judge to be given to the game."""

    tests_per_round: int = (
        5  # test lists labelled per round (published: 5; extra ones are ignored and counted)
    )
    max_rounds: int = 19  # rounds of tests (published prompt: 19)
    format_error_limit: int = 2  # the episode ends after this many consecutive unreadable replies; 0 never
    judges: tuple[str, ...] = ("predicate", "quiz")
    quiz_size: int = 10  # held-out lists in the quiz (half fit the rule)
    probe_seed: int = 0  # seed of the probe set predicates are judged on
    quiz_seed: int = 0  # seed of the quiz lists

    def __post_init__(self) -> None:
        if not 1 <= self.tests_per_round <= MAX_TESTS_PER_ROUND:
            raise ValueError(f"tests_per_round must be from 1 to {MAX_TESTS_PER_ROUND}")
        if not 1 <= self.max_rounds <= MAX_ROUNDS:
            raise ValueError(f"max_rounds must be from 1 to {MAX_ROUNDS}")
        if not 0 <= self.format_error_limit <= MAX_FORMAT_ERRORS:
            raise ValueError(f"format_error_limit must be from 0 (never) to {MAX_FORMAT_ERRORS}")
        unknown = [j for j in self.judges if j not in JUDGES]
        if unknown:
            raise ValueError(f"unknown judge(s) {unknown}; choose from {', '.join(JUDGES)}")
        if not 2 <= self.quiz_size <= MAX_QUIZ or self.quiz_size % 2:
            raise ValueError(f"quiz_size must be an even number from 2 to {MAX_QUIZ}")

    @property
    def primary(self) -> str | None:
        """The judge that decides success: the predicate, else the quiz, else the LLM judge."""
        return next((j for j in PRIMARY_ORDER if j in self.judges), None)


@dataclass
class _Round:
    cases: tuple[object, ...]
    code_labels: tuple[bool, ...]
    shown: tuple[bool, ...]
    repeats: tuple[bool, ...]
    leading: str | None
    llm_labels: tuple[bool | None, ...] | None = None


@dataclass
class _Pending:
    """Results of outside work done in :meth:`ListsGame.settle` for the action about to be stepped."""

    llm_labels: list[bool | None] | None = None
    llm_judgement: Mapping[str, Any] | None = None
    for_action: object | None = None


@dataclass
class ListsGame:
    """One list-rules episode against a hidden rule, showing the player ``examples``."""

    rule: ListRule
    examples: tuple[tuple[int, ...], ...]
    config: ListsConfig = field(default_factory=ListsConfig)
    # more lists the rule accepts, for the probe set's near misses and the quiz (the examples are used too)
    positives: tuple[tuple[int, ...], ...] = ()
    labeller: Labeller | None = (
        None  # an LLM labeller; when given, its labels are shown (the code's where none)
    )
    judge: HypothesisJudge | None = None  # an LLM judge of the final hypothesis (needed for ``llm`` judging)

    def __post_init__(self) -> None:
        if "llm" in self.config.judges and self.judge is None:
            raise ValueError("the llm judge is on but no judge was given")
        self.rounds: list[_Round] = []
        self.format_errors = 0
        self.truncated = 0
        self.ignored_cases = 0
        self.final_hypothesis: str | None = None
        self.final_forced = False
        self.predicate_source: str | None = None
        self.predicate_verdict: ListVerdict | None = None
        self.quiz: list[tuple[tuple[int, ...], bool]] = []
        self.quiz_answers: tuple[bool | None, ...] | None = None
        self.llm_judgement: Mapping[str, Any] | None = None
        self.end_reason: EndReason | None = None
        self._phase: Literal["testing", "predicate", "quiz", "done"] = "testing"
        self._consecutive_errors = 0
        self._seen: set[tuple[int, ...]] = set(self.examples)
        self._pending = _Pending()

    # ------------------------------------------------------------------------------------------ state

    @property
    def done(self) -> bool:
        return self.end_reason is not None

    @property
    def rounds_used(self) -> int:
        # an unreadable reply costs a round, and so does one cut off at the token limit
        return len(self.rounds) + self.format_errors + self.truncated

    @property
    def rounds_left(self) -> int:
        return max(0, self.config.max_rounds - self.rounds_used)

    def start(self) -> ListsObservation:
        return self._observation("start", examples=self.examples)

    def _observation(self, kind: ObservationKind, **fields: Any) -> ListsObservation:
        return ListsObservation(kind=kind, round=self.rounds_used, rounds_left=self.rounds_left, **fields)

    # ------------------------------------------------------------------------------------- outside work

    async def settle(self, action: object) -> dict[str, Any] | None:
        """Ask the LLM labeller about a round's lists, or the LLM judge about the final hypothesis.

        Returns:
            The record of what they said (stored with the turn, so :meth:`settled` restores the game without
            asking again), or None when no model was asked.
        """
        self._pending = _Pending(for_action=action)
        if self._phase != "testing":
            return None
        if isinstance(action, TestRound) and self.labeller is not None and not self._must_finalize():
            cases = action.cases[: self.config.tests_per_round]
            if cases:
                self._pending.llm_labels = list(await self.labeller(self.rule.text, cases))
        final = self._final_text(action)
        if final is not None and self.judge is not None and "llm" in self.config.judges:
            self._pending.llm_judgement = await self.judge(self.rule.text, final)
        record = {"llm_labels": self._pending.llm_labels, "llm_judgement": self._pending.llm_judgement}
        return {k: v for k, v in record.items() if v is not None} or None

    def settled(self, action: object, record: Mapping[str, Any]) -> None:
        """Restore what :meth:`settle` learnt for ``action`` from its stored record."""
        labels = record.get("llm_labels")
        self._pending = _Pending(
            llm_labels=list(labels) if labels is not None else None,
            llm_judgement=record.get("llm_judgement"),
            for_action=action,
        )

    def _final_text(self, action: object) -> str | None:
        if isinstance(action, FinalHypothesis):
            return action.text
        if isinstance(action, TestRound) and self._must_finalize():
            return action.leading_hypothesis
        return None

    def _must_finalize(self) -> bool:
        return self.rounds_left <= 0

    # ------------------------------------------------------------------------------------------ steps

    def step(self, action: ListsAction | Malformed) -> ListsObservation:
        if self.done:
            raise RuntimeError("the episode has ended")
        pending = self._pending if self._pending.for_action is action else _Pending()
        self._pending = _Pending()
        if self._phase == "predicate":
            self.predicate_source = action.source if isinstance(action, PredicateAnswer) else None
            self._judge_predicate(self.predicate_source or "")
            return self._after_predicate()
        if self._phase == "quiz":
            answers = action.labels if isinstance(action, QuizAnswer) else ()
            n = len(self.quiz)
            self.quiz_answers = tuple(answers[:n]) + (None,) * max(0, n - len(answers))
            return self._end("finished")
        final = self._final_text(action)
        if final is not None:
            self.final_forced = not isinstance(action, FinalHypothesis)
            return self._finalize(final, pending)
        if self._must_finalize():
            return self._end("no_final_hypothesis")
        if isinstance(action, Malformed):
            return self._format_error(action.reason, truncated=action.truncated)
        if not isinstance(action, TestRound):
            return self._format_error(
                f"expected test lists or a final hypothesis, got {type(action).__name__}"
            )
        if not action.cases:
            return self._format_error("no test cases")
        return self._round(action, pending)

    def _round(self, action: TestRound, pending: _Pending) -> ListsObservation:
        self._consecutive_errors = 0
        limit = self.config.tests_per_round
        cases, ignored = action.cases[:limit], max(0, len(action.cases) - limit)
        self.ignored_cases += ignored
        code = tuple(self.rule.accepts(case) for case in cases)
        repeats = []
        for case in cases:
            ints = as_int_list(case)
            repeats.append(ints is not None and ints in self._seen)
            if ints is not None:
                self._seen.add(ints)
        llm = pending.llm_labels
        if llm is not None:
            llm = list(llm[: len(cases)]) + [None] * max(0, len(cases) - len(llm))
            shown = tuple(c if label is None else label for label, c in zip(llm, code, strict=True))
        else:
            shown = code
        llm_labels = tuple(llm) if llm is not None else None
        self.rounds.append(_Round(cases, code, shown, tuple(repeats), action.leading_hypothesis, llm_labels))
        fields = {"cases": cases, "labels": shown, "repeats": tuple(repeats), "ignored_cases": ignored}
        return self._observation("labels", must_finalize=self._must_finalize(), **fields)

    def _format_error(self, reason: str, *, truncated: bool = False) -> ListsObservation:
        # a reply cut off at the token limit costs what an unreadable one costs; it is only counted apart
        if truncated:
            self.truncated += 1
        else:
            self.format_errors += 1
        self._consecutive_errors += 1
        limit = self.config.format_error_limit
        if limit and self._consecutive_errors >= limit:
            return self._end("format_errors", reason)
        return self._observation("format_error", must_finalize=self._must_finalize(), reason=reason)

    def _finalize(self, text: str, pending: _Pending) -> ListsObservation:
        self.final_hypothesis = text
        self.llm_judgement = pending.llm_judgement
        if "predicate" in self.config.judges:
            self._phase = "predicate"
            return self._observation("ask_predicate")
        return self._after_predicate()

    def _after_predicate(self) -> ListsObservation:
        if "quiz" in self.config.judges:
            self._phase = "quiz"
            self.quiz = quiz_lists(
                self.rule.predicate,
                seed=self.config.quiz_seed,
                key=self.rule.key,
                positives=self._positives(),
                n=self.config.quiz_size,
                exclude=self._seen,
            )
            return self._observation("ask_quiz", quiz=tuple(lst for lst, _ in self.quiz))
        return self._end("finished")

    def _judge_predicate(self, source: str) -> None:
        self.predicate_verdict = judge_list_predicate(
            self.rule.predicate,
            source,
            seed=self.config.probe_seed,
            key=self.rule.key,
            positives=self._positives(),
            observations=self.observations(),
        )

    def observations(self) -> tuple[tuple[tuple[int, ...], bool], ...]:
        """Every integer list the episode labelled, with the label the player was shown, in the order shown: the
        examples (as fitting), then each round's tests (a list tested twice appears twice; non-integer lists, which
        no predicate over ``xs`` sees, are left out). The predicate judge probes all; the quiz uses none."""
        found = [
            (ints, label)
            for r in self.rounds
            for ints, label in zip((as_int_list(c) for c in r.cases), r.shown, strict=True)
            if ints is not None
        ]
        return (*((e, True) for e in self.examples), *found)

    def _positives(self) -> tuple[tuple[int, ...], ...]:
        found = [r.cases[i] for r in self.rounds for i, ok in enumerate(r.code_labels) if ok]
        ints = [t for t in (as_int_list(c) for c in found) if t is not None]
        return tuple(dict.fromkeys([*self.examples, *self.positives, *ints]))

    def _end(self, reason: EndReason, detail: str | None = None) -> ListsObservation:
        self._phase = "done"
        self.end_reason = reason
        return self._observation("ended", end_reason=reason, reason=detail)

    # ---------------------------------------------------------------------------------------- outcome

    def judge_results(self) -> dict[str, bool | None]:
        """Each judge that ran: did the player find the rule (None when it could not be judged)."""
        finished = self.final_hypothesis is not None
        results: dict[str, bool | None] = {
            "predicate": bool(self.predicate_verdict and self.predicate_verdict.equivalent),
            "quiz": bool(finished and self.quiz and self.quiz_accuracy() == 1.0),
            "llm": bool(self.llm_judgement and self.llm_judgement.get("equivalent")),
        }
        return {name: results[name] for name in self.config.judges}

    def quiz_accuracy(self) -> float | None:
        if not self.quiz or self.quiz_answers is None:
            return None
        right = sum(
            a is not None and a == truth for a, (_, truth) in zip(self.quiz_answers, self.quiz, strict=True)
        )
        return right / len(self.quiz)

    def outcome(self) -> Outcome:
        results = self.judge_results()
        primary = self.config.primary
        success = bool(primary and results.get(primary))
        lists_tested = sum(len(r.cases) for r in self.rounds)
        disagreements = [
            {"round": i + 1, "list": jsonable(case), "code": code, "llm": llm}
            for i, r in enumerate(self.rounds)
            if r.llm_labels is not None
            for case, code, llm in zip(r.cases, r.code_labels, r.llm_labels, strict=True)
            if llm is not None and llm != code
        ]
        llm_labelled = sum(
            label is not None for r in self.rounds if r.llm_labels is not None for label in r.llm_labels
        )
        verdict = self.predicate_verdict
        # imported here: the solver space's modules load when an episode is scored, not with the game
        from wason.tasks.lists.reduction import SPACE, reduction_curve

        # the share of the solver's hypotheses (those the examples leave) the tests ruled out, after each round
        reduction = reduction_curve(
            self.examples, [tuple(zip(r.cases, r.code_labels, strict=True)) for r in self.rounds]
        )
        return Outcome(
            success=success,
            metrics={
                "primary_judge": primary,
                "judges": results,
                "final_hypothesis": self.final_hypothesis,
                "final_forced": self.final_forced,
                "end_reason": self.end_reason,
                "rounds": len(self.rounds),
                "rounds_used": self.rounds_used,
                "rounds_to_solution": len(self.rounds) if success else None,
                "lists_tested": lists_tested,
                "repeats": sum(sum(r.repeats) for r in self.rounds),
                "non_integer_lists": sum(as_int_list(c) is None for r in self.rounds for c in r.cases),
                "positives_found": sum(sum(r.code_labels) for r in self.rounds),
                "ignored_cases": self.ignored_cases,
                "format_errors": self.format_errors,
                "truncated": self.truncated,
                "predicate": self.predicate_source,
                "predicate_verdict": verdict.model_dump(mode="json") if verdict else None,
                "quiz": [[list(lst), truth] for lst, truth in self.quiz],
                "quiz_answers": list(self.quiz_answers) if self.quiz_answers is not None else None,
                "quiz_accuracy": self.quiz_accuracy(),
                "llm_judgement": dict(self.llm_judgement) if self.llm_judgement is not None else None,
                "labeller": "llm" if self.labeller is not None else "code",
                "llm_labels": llm_labelled,
                "label_disagreements": disagreements,
                "examples": [list(e) for e in self.examples],
                "history": [
                    {
                        "cases": [jsonable(c) for c in r.cases],
                        "labels": list(r.shown),
                        "code_labels": list(r.code_labels),
                        "repeats": list(r.repeats),
                        "leading_hypothesis": r.leading,
                    }
                    for r in self.rounds
                ],
                "reduction": reduction,
                "hypothesis_space": SPACE,
            },
        )


def jsonable(value: object) -> object:
    """Tuples (as a reply's cases are kept) as lists, recursively, for JSON."""
    if isinstance(value, tuple):
        return [jsonable(v) for v in value]
    return value
