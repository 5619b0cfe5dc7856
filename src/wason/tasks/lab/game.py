"""A lab episode: pure logic over structured actions; ``protocol.py`` holds the text.

The player sees the lab's objects (their types and properties) and the operations (names and arity only).
Each turn it sends a request of up to ``per_turn`` steps - experiments (an operation and its objects), resets
of an object to its initial state, and (when ``allow_create``) fresh objects of a type - and the lab assistant
runs them in order and reports every property that changed, from what to what, or that nothing changed. An
invalid request (an unknown name, a wrong number of objects, an object used twice, more steps than allowed) is
refused whole with one line and costs the turn, as does an unreadable reply. When the experiment budget or the
turns run out, or the player says it is done, the test begins: experiments on fresh objects whose outcomes the
player predicts, with its theory in the law language and a free-text report (both optional).

Scored by code: the predictions (primary: the share of test experiments predicted exactly, numbers within a
relative tolerance), the theory's predictions on the same experiments and its exact equivalence to the hidden
laws on a probe set, and what an ideal learner could predict from the experiments this player ran (the curve
of prediction accuracy against experiments used). An LLM judge of the report, when asked for, is reported
apart and decides nothing.
"""

from __future__ import annotations

import math
import random
import statistics
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict

from wason.core.game import Malformed, Outcome
from wason.core.judged import JudgedMoves
from wason.tasks.lab.laws import Thing, Value, apply, format_law, same_value
from wason.tasks.lab.laws import number_right as number_right
from wason.tasks.lab.theory import TheoryError, equivalence, probe_set, read_theory, theory_accuracy
from wason.tasks.lab.world import Domain, Trial, fresh_thing, trials

MAX_OBJECTS = 40
"""Objects a lab may hold (created ones included)."""
MAX_TEXT = 20_000
"""Characters of a theory or a report kept."""


# -- actions ------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Step:
    """One step of a request: ``experiment`` (``op`` on ``objects``: one, or actor then target), ``reset``
    (``objects[0]`` back to its initial state) or ``create`` (a fresh object of ``type``)."""

    kind: Literal["experiment", "reset", "create"]
    op: str = ""
    objects: tuple[str, ...] = ()
    type: str = ""

    def text(self) -> str:
        if self.kind == "create":
            return f"create({self.type})"
        return f"{self.op if self.kind == 'experiment' else 'reset'}({', '.join(self.objects)})"


@dataclass(frozen=True)
class Request:
    """A turn's steps, run in order."""

    steps: tuple[Step, ...]


@dataclass(frozen=True)
class Finish:
    """The player is done experimenting: the test begins."""


@dataclass(frozen=True)
class Answer:
    """The test's answer: per test experiment the properties the player expects to change, with their new
    values, by object name (what is not named is predicted unchanged; None: no prediction), the player's laws
    in the law language and a free-text report (both may be empty)."""

    predictions: tuple[dict[str, dict[str, Value]] | None, ...]
    theory: str = ""
    report: str = ""


LabAction = Request | Finish | Answer


def experiment_record(
    step: Step, types: Sequence[str], before: list[dict[str, Value]], known: Mapping[str, Mapping[str, Value]]
) -> dict[str, Any]:
    """An entry of :attr:`LabGame.history` (what the learner reads): an experiment's objects before and after."""
    after = [dict(known[n]) for n in step.objects]
    return dict(op=step.op, objects=list(step.objects), types=list(types), before=before, after=after)


# -- observations -------------------------------------------------------------------------------------------
class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True)


class ObjectView(_Frozen):
    name: str
    type: str
    values: dict[str, Value]


class Change(_Frozen):
    object: str
    prop: str
    before: Value
    after: Value


class StepResult(_Frozen):
    """What the lab assistant reports for one step: its text and the changes (none: "nothing changed"), or
    the object a reset or a creation leaves."""

    step: str
    changes: tuple[Change, ...] = ()
    object: ObjectView | None = None


class TrialView(_Frozen):
    """A test experiment: the operation and its fresh objects before it."""

    op: str
    objects: tuple[ObjectView, ...]


ObservationKind = Literal["start", "results", "invalid", "test", "test_invalid", "ended"]


class LabObservation(_Frozen):
    """What the player learns after an action: ``start`` (the ``objects`` and ``operations``); ``results`` of a
    request; ``invalid`` (a refused request or an unreadable reply: ``message``); ``test`` (the ``trials``, the
    objects as they are then, and this turn's ``results`` when the budget ran out on it); ``test_invalid`` (an
    answer that could not be read: ``message``); ``ended`` (``score``: the share predicted right)."""

    kind: ObservationKind
    turn: int
    turns_left: int
    experiments_left: int
    objects: tuple[ObjectView, ...] = ()
    operations: tuple[tuple[str, int], ...] = ()
    results: tuple[StepResult, ...] = ()
    message: str | None = None
    trials: tuple[TrialView, ...] = ()
    attempts_left: int = 0
    score: float | None = None


# -- configuration ------------------------------------------------------------------------------------------
MAX_BUDGET = 1_000
"""The most experiments a game allows (easy 20, medium 60, hard 160 by default)."""
MAX_PER_TURN = 50
MAX_TURNS = 2_000
MAX_TEST_SIZE = 500


@dataclass(frozen=True)
class LabConfig:
    """Episode settings. ``max_turns`` counts refused requests and unreadable replies too; ``tolerance`` is the
    relative error within which a predicted number is right; ``pass_mark`` the share of test experiments
    predicted right that counts as a success; ``curve``: compute the ideal learner's curve over the player's
    experiments; ``seed``: of the test, the noise and creations."""

    budget: int = 20
    per_turn: int = 5
    max_turns: int = 30
    allow_create: bool = False
    test_size: int = 20
    tolerance: float = 0.05
    pass_mark: float = 0.9
    answer_attempts: int = 2
    curve: bool = True
    seed: str = "0"

    def __post_init__(self) -> None:
        for ok, problem in (
            (1 <= self.budget <= MAX_BUDGET, f"budget: between 1 and {MAX_BUDGET} experiments"),
            (1 <= self.per_turn <= MAX_PER_TURN, f"per_turn: between 1 and {MAX_PER_TURN} steps"),
            (1 <= self.max_turns <= MAX_TURNS, f"max_turns: between 1 and {MAX_TURNS}"),
            (1 <= self.test_size <= MAX_TEST_SIZE, f"test_size: between 1 and {MAX_TEST_SIZE} experiments"),
            (0 <= self.tolerance < 1, "tolerance: a relative error from 0 to below 1"),
            (0 < self.pass_mark <= 1, "pass_mark: above 0, at most 1"),
            (1 <= self.answer_attempts <= 10, "answer_attempts: between 1 and 10"),
        ):
            if not ok:
                raise ValueError(problem)


ReportJudge = Callable[[str], Awaitable[Mapping[str, Any]]]
"""An LLM judge of the free-text report (injected; returns a JSON record with a boolean ``verdict``)."""


@dataclass
class LabGame(JudgedMoves):
    """One lab episode on a domain (its hidden laws), with the LLM judge of the report or None."""

    judge_key: ClassVar[str] = "report_judge"
    domain: Domain
    config: LabConfig = field(default_factory=LabConfig)
    judge: ReportJudge | None = None

    def __post_init__(self) -> None:
        self._rng = random.Random(f"lab.game|{self.config.seed}")
        self.things: dict[str, Thing] = {t.name: t for t in self.domain.things()}
        self.initial: dict[str, Thing] = {t.name: t.copy() for t in self.things.values()}
        self.known: dict[str, dict[str, Value]] = {n: self._measure(t.values) for n, t in self.things.items()}
        self.ops = {o.name: o.arity for o in self.domain.operations}
        self.type_names = [t.name for t in self.domain.types]
        self.turns = self.experiments = self.resets = self.creates = self.invalid = self.format_errors = 0
        self.truncated = 0  # replies cut off at the token limit: they cost what a format error costs
        self.finished_early = False
        self.history: list[dict[str, Any]] = []
        self.test = trials(self.domain, self.config.test_size, f"test|{self.config.seed}")
        self.answer: Answer | None = None
        self.attempts = 0
        self.judged: Mapping[str, Any] | None = None
        self._phase: Literal["lab", "test", "done"] = "lab"
        self._scores: dict[str, Any] | None = None
        self._outcome: Outcome | None = None

    # ------------------------------------------------------------------------------------------ state
    @property
    def done(self) -> bool:
        return self._phase == "done"

    @property
    def phase(self) -> str:
        return self._phase

    @property
    def turns_left(self) -> int:
        return max(0, self.config.max_turns - self.turns)

    @property
    def experiments_left(self) -> int:
        return max(0, self.config.budget - self.experiments)

    def _measure(self, values: Mapping[str, Value]) -> dict[str, Value]:
        """Values as the lab reports them: numbers with the domain's measurement noise (2 decimals)."""
        sd = self.domain.noise
        if not sd:
            return dict(values)
        return {
            k: v if isinstance(v, bool) else round(v + self._rng.gauss(0.0, sd), 2) for k, v in values.items()
        }

    def _view(self, name: str) -> ObjectView:
        return ObjectView(name=name, type=self.things[name].type, values=dict(self.known[name]))

    def _views(self) -> tuple[ObjectView, ...]:
        return tuple(self._view(n) for n in self.known)

    def start(self) -> LabObservation:
        return self._obs("start", objects=self._views(), operations=tuple(self.ops.items()))

    def _obs(self, kind: ObservationKind, **fields: Any) -> LabObservation:
        return LabObservation(
            kind=kind,
            turn=self.turns,
            turns_left=self.turns_left,
            experiments_left=self.experiments_left,
            **fields,
        )

    # ------------------------------------------------------------------------------------- outside work
    async def settle(self, action: object) -> dict[str, Any] | None:
        """Ask the LLM judge about the report of an answer (when there is a judge and a report)."""
        if self._phase != "test" or not isinstance(action, Answer) or self.judge is None:
            return None
        if not action.report.strip():
            return None
        return await self._ask(action, self.judge(action.report[:MAX_TEXT]))

    # ------------------------------------------------------------------------------------------- play
    def step(self, action: LabAction | Malformed) -> LabObservation:
        if self._phase == "done":
            raise ValueError("the game is over")
        if self._phase == "test":
            return self._test_step(action)
        self.turns += 1
        if isinstance(action, Malformed):
            return self._refuse(self._unreadable(action))
        if isinstance(action, Finish):
            self.finished_early = True
            return self._begin_test(())
        if isinstance(action, Answer):
            self.invalid += 1
            return self._refuse("the test has not begun: send experiments, or say you are done")
        problem = self._problem(action)
        if problem:
            self.invalid += 1
            return self._refuse(problem)
        results = tuple(self._run(s) for s in action.steps)
        if self.experiments_left == 0 or self.turns_left == 0:
            return self._begin_test(results)
        return self._obs("results", results=results)

    def _refuse(self, message: str) -> LabObservation:
        """A refused turn (the test begins when it was the last)."""
        if self.turns_left == 0:
            return self._begin_test((), message=message)
        return self._obs("invalid", message=message)

    def _problem(self, request: Request) -> str | None:
        """Why a request is refused (one line), or None."""
        if not request.steps:
            return "the request has no steps"
        if len(request.steps) > self.config.per_turn:
            return f"{len(request.steps)} steps in one turn; at most {self.config.per_turn}"
        n_exp = sum(1 for s in request.steps if s.kind == "experiment")
        if n_exp > self.experiments_left:
            return f"{n_exp} experiments requested, {self.experiments_left} left"
        names = set(self.things)
        created = 0
        for k, s in enumerate(request.steps, start=1):
            where = f"step {k} ({s.text()[:80]})"
            if s.kind == "create":
                if not self.config.allow_create:
                    return f"{where}: creating objects is not allowed in this lab"
                if s.type not in self.type_names:
                    return f"{where}: unknown type {s.type[:40]!r}; types: {', '.join(self.type_names)}"
                if len(names) + created >= MAX_OBJECTS:
                    return f"{where}: the lab holds at most {MAX_OBJECTS} objects"
                created += 1
                names.add(self._next_name(s.type, created))
                continue
            unknown = [o for o in s.objects if o not in names]
            if unknown:
                return f"{where}: unknown object {unknown[0][:40]!r}"
            if s.kind == "reset":
                if len(s.objects) != 1:
                    return f"{where}: reset takes one object"
                if s.objects[0] not in self.initial:
                    return f"{where}: a created object has no initial state to go back to; create another"
                continue
            if s.op not in self.ops:
                return f"{where}: unknown operation {s.op[:40]!r}; operations: {', '.join(self.ops)}"
            arity = self.ops[s.op]
            if len(s.objects) != arity:
                return f"{where}: {s.op} takes {arity} object{'s' if arity > 1 else ''}, not {len(s.objects)}"
            if len(set(s.objects)) != len(s.objects):
                return f"{where}: an object used twice"
        return None

    def _next_name(self, type_name: str, offset: int = 1) -> str:
        k = sum(1 for t in self.things.values() if t.type == type_name) + offset
        while f"{type_name}-{k}" in self.things:
            k += 1
        return f"{type_name}-{k}"

    def _run(self, s: Step) -> StepResult:
        if s.kind != "experiment":
            if s.kind == "create":
                self.creates += 1
                name = self._next_name(s.type)
                self.things[name] = fresh_thing(self.domain, s.type, name, self._rng)
            else:
                self.resets += 1
                name = s.objects[0]
                self.things[name] = self.initial[name].copy()
            self.known[name] = self._measure(self.things[name].values)
            return StepResult(step=s.text(), object=self._view(name))
        self.experiments += 1
        things = [self.things[n] for n in s.objects]
        before = [dict(self.known[n]) for n in s.objects]
        changes = []
        for name, prop, _old, new in apply(self.domain.laws, s.op, things):
            was = self.known[name][prop]
            now = self._measure({prop: new})[prop]
            self.known[name][prop] = now
            changes.append(Change(object=name, prop=prop, before=was, after=now))
        types = [self.things[n].type for n in s.objects]
        self.history.append(experiment_record(s, types, before, self.known))
        return StepResult(step=s.text(), changes=tuple(changes))

    def _begin_test(self, results: Sequence[StepResult], message: str | None = None) -> LabObservation:
        self._phase = "test"
        self.attempts = 0
        return self._obs(
            "test",
            results=tuple(results),
            objects=self._views(),
            trials=self.trial_views(),
            attempts_left=self.config.answer_attempts,
            message=message,
        )

    def trial_views(self) -> tuple[TrialView, ...]:
        return tuple(
            TrialView(
                op=t.op,
                objects=tuple(ObjectView(name=x.name, type=x.type, values=dict(x.values)) for x in t.things),
            )
            for t in self.test
        )

    def _test_step(self, action: LabAction | Malformed) -> LabObservation:
        self.attempts += 1
        problem: str | None
        if isinstance(action, Answer):
            problem = self._answer_problem(action)
        elif isinstance(action, Malformed):
            problem = action.reason
        else:
            problem = "the test has begun: answer with your predictions"
        if problem is None:
            self.answer = action  # type: ignore[assignment]
            self.judged = self._judged(action)
            return self._end()
        if self.attempts >= self.config.answer_attempts:
            return self._end()
        return self._obs(
            "test_invalid",
            message=problem,
            trials=self.trial_views(),
            attempts_left=self.config.answer_attempts - self.attempts,
        )

    def _answer_problem(self, answer: Answer) -> str | None:
        if len(answer.predictions) != len(self.test):
            return f"{len(answer.predictions)} predictions for {len(self.test)} test experiments"
        for k, (pred, trial) in enumerate(zip(answer.predictions, self.test, strict=True), start=1):
            if pred is None:
                continue
            objects = {t.name: t for t in trial.things}
            for name, values in pred.items():
                if name not in objects:
                    return f"prediction {k}: {name[:40]!r} is not an object of test experiment {k}"
                for prop, value in values.items():
                    if prop not in objects[name].values:
                        return f"prediction {k}: {name} has no property {prop[:40]!r}"
                    if isinstance(value, bool) != isinstance(objects[name].values[prop], bool):
                        kind = "true or false" if isinstance(objects[name].values[prop], bool) else "a number"
                        return f"prediction {k}: {name}.{prop} is {kind}"
                    if not isinstance(value, bool) and not math.isfinite(value):
                        return f"prediction {k}: {name}.{prop} is not a finite number"
        return None

    def _end(self) -> LabObservation:
        self._phase = "done"
        self._scores = self._score()
        return self._obs("ended", score=self._scores["prediction_accuracy"])

    # ---------------------------------------------------------------------------------------- scoring
    def predicted_outcome(self, k: int, prediction: Mapping[str, Mapping[str, Value]] | None) -> list[Thing]:
        """Test experiment ``k`` as the player predicts it: its objects with the predicted values."""
        things = [t.copy() for t in self.test[k].things]
        for t in things:
            t.values.update((prediction or {}).get(t.name, {}))
        return things

    def _score(self) -> dict[str, Any]:
        truth = [t.outcome(self.domain.laws) for t in self.test]
        preds = self.answer.predictions if self.answer is not None else (None,) * len(self.test)
        tol = self.config.tolerance
        exact = []
        bools: list[bool] = []
        numbers: list[bool] = []
        changed: list[bool] = []
        rel_errors: list[float] = []
        null_exact = []
        for k, trial in enumerate(self.test):
            guess = self.predicted_outcome(k, preds[k]) if preds[k] is not None else None
            oks, moves = [], []
            for j, (start, real) in enumerate(zip(trial.things, truth[k], strict=True)):
                for prop, value in real.values.items():
                    moved = not same_value(start.values[prop], value)
                    g = None if guess is None else guess[j].values[prop]
                    is_bool = isinstance(value, bool)
                    ok = g is not None and (g == value if is_bool else number_right(float(g), value, tol))
                    if g is not None and moved and not is_bool:
                        rel_errors.append(abs(float(g) - value) / max(1.0, abs(value)))
                    (bools if is_bool else numbers).append(ok)
                    if moved:
                        changed.append(ok)
                    oks.append(ok)
                    moves.append(moved)
            exact.append(guess is not None and all(oks))
            null_exact.append(not any(moves))
        scores: dict[str, Any] = {
            "prediction_accuracy": _mean(exact),
            "predicted": [bool(x) for x in exact],
            "boolean_accuracy": _mean(bools),
            "number_accuracy": _mean(numbers),
            "changed_accuracy": _mean(changed),
            "median_relative_error": statistics.median(rel_errors) if rel_errors else None,
            "null_accuracy": _mean(null_exact),
            "answered": self.answer is not None,
        }
        scores.update(self._theory_scores())
        return scores

    def _theory_scores(self) -> dict[str, Any]:
        keys = ("theory", "theory_error", "theory_accuracy", "theory_equivalent", "counterexample")
        out: dict[str, Any] = dict.fromkeys(keys)
        text = (self.answer.theory if self.answer is not None else "").strip()
        if not text:
            return out

        out["theory"] = text[:MAX_TEXT]
        try:
            theory = read_theory(text[:MAX_TEXT], self.domain)
        except TheoryError as exc:
            out["theory_error"] = str(exc)
            return out
        out["theory_accuracy"] = theory_accuracy(theory, self.domain.laws, self.test)
        eq = equivalence(theory, self.domain.laws, self.domain, probe_set(self.domain))
        out["theory_equivalent"] = eq.equivalent
        out["counterexample"] = eq.counterexample
        return out

    def outcome(self) -> Outcome:
        if self._outcome is not None and self.done:
            return self._outcome  # the curves take a while on hard domains: computed once per finished game
        if self._scores is None:
            self._scores = self._score()
        s = self._scores
        metrics: dict[str, Any] = {
            **s,
            "experiments": self.experiments,
            "resets": self.resets,
            "creates": self.creates,
            "turns": self.turns,
            "invalid_requests": self.invalid,
            "format_errors": self.format_errors,
            "truncated": self.truncated,
            "finished_early": self.finished_early,
            "budget": self.config.budget,
            "test_size": len(self.test),
            "report": (self.answer.report[:MAX_TEXT] if self.answer is not None else "") or None,
            "report_judge": dict(self.judged) if self.judged is not None else None,
            "laws": [format_law(law) for law in self.domain.laws],
            "history": self.history,
        }
        from wason.tasks.lab.learner import curves, reduction_curve  # the learner: off the family's load path

        if self.config.curve:
            tol = self.config.tolerance
            # the learner's accuracy on the test, and the share of its wrong hypotheses ruled out (one pass)
            metrics["curve"], metrics["reduction"] = curves(self.domain, self.history, self.test, tol)
            # the random-experiment player with the same budget, on the same domain and test
            metrics["random_curve"] = random_curve(
                self.domain, self.config.budget, self.test, tol, f"random|{self.config.seed}"
            )
        else:
            # the share of the learner's wrong hypotheses the experiments ruled out, after each experiment
            metrics["reduction"] = reduction_curve(self.domain, self.history)
        out = Outcome(success=s["prediction_accuracy"] >= self.config.pass_mark, metrics=metrics)
        if self.done:
            self._outcome = out
        return out


def _mean(xs: Sequence[bool]) -> float | None:
    return sum(xs) / len(xs) if xs else None


# -- the random-experiment baseline -------------------------------------------------------------------------
def random_history(domain: Domain, budget: int, seed: str | int) -> list[dict[str, Any]]:
    """``budget`` uniformly random experiments (an operation, then distinct objects) run on the lab's objects
    as they evolve under the true laws, through a :class:`LabGame` (so with its measurement noise)."""
    rng = random.Random(f"lab.random|{seed}")
    config = LabConfig(
        budget=budget, per_turn=1, max_turns=budget + 1, test_size=1, curve=False, seed=str(seed)
    )
    game = LabGame(domain, config)
    game.start()
    names = list(game.things)
    ops = list(game.ops.items())
    while not game.done and game.phase == "lab":
        op, arity = ops[rng.randrange(len(ops))]
        objects = tuple(rng.sample(names, arity))
        game.step(Request((Step("experiment", op=op, objects=objects),)))
    return list(game.history)


def random_curve(
    domain: Domain, budget: int, test: Sequence[Trial], tolerance: float, seed: str | int
) -> list[float]:
    """:func:`curve` for a random-experiment design of ``budget`` experiments (:func:`random_history`)."""
    from wason.tasks.lab.learner import curve

    return curve(domain, random_history(domain, budget, seed), test, tolerance)
