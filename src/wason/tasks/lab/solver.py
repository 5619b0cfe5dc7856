"""The reference lab solver: an ideal learner choosing its experiments, and a random-experiment baseline.

``information`` design: each turn, up to ``per_turn`` experiments on disjoint objects, chosen greedily by
expected information (the entropy of their predicted outcome under the learner's posterior; an experiment
chosen earlier in the turn covers its slots, so later ones are scored on the slots still open). When no
experiment on the objects as they are is informative, an object may first be reset to its initial state (or,
when the lab allows it, a fresh object created) to reach an informative state. It finishes when the learner has
identified every slot or nothing it can do is informative. ``random`` design: the whole budget on uniformly
random experiments (an operation, then distinct objects). At the test both answer with the learner's
predictions (the properties it expects to change) and its theory in the law language.

The solver knows only the public domain (:func:`wason.tasks.lab.learner.public`): its behaviour is the same
given the full domain.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from itertools import permutations
from typing import Any, Literal

from wason.core.game import Move
from wason.tasks.lab.game import (
    Answer,
    Finish,
    LabAction,
    LabConfig,
    LabObservation,
    Request,
    Step,
    StepResult,
    experiment_record,
)
from wason.tasks.lab.laws import Thing, Value, changes, format_theory, same_values
from wason.tasks.lab.learner import Key, Learner, public
from wason.tasks.lab.world import Domain

__all__ = ["LabSolverPlayer"]

MIN_INFORMATION = 1e-9
"""Expected information (nats) below which an experiment counts as uninformative."""


class LabSolverPlayer:
    """Plays :class:`wason.tasks.lab.game.LabGame` by its actions, on the public part of ``domain``, with
    ``design`` ``information`` or ``random``; deterministic from ``seed``."""

    def __init__(
        self,
        domain: Domain,
        config: LabConfig,
        design: Literal["information", "random"] | str = "information",
        seed: str | int = 0,
    ) -> None:
        if design not in ("information", "random"):
            raise ValueError(f"design: 'information' or 'random', not {design!r:.40}")
        self.domain = public(domain)
        self.config = config
        self.design = design
        self.rng = random.Random(f"lab.solver|{design}|{seed}")
        self.learner = Learner(self.domain)
        self.ops = {o.name: o.arity for o in self.domain.operations}
        self.known: dict[str, dict[str, Value]] = {}
        self.types: dict[str, str] = {}
        self.initial: dict[str, dict[str, Value]] = {}
        self.pending: tuple[Step, ...] = ()
        self.experiments_left = config.budget
        self.turns_left = config.max_turns
        self.answer: Answer | None = None
        self._creations = 0

    # -- the known state -------------------------------------------------------------------------------------
    def _see(self, obs: LabObservation) -> None:
        if obs.objects and not self.known:
            self.known = {o.name: dict(o.values) for o in obs.objects}
            self.types = {o.name: o.type for o in obs.objects}
            self.initial = {o.name: dict(o.values) for o in obs.objects}
        if obs.results:
            self._results(obs.results)
        self.pending = ()
        self.experiments_left = obs.experiments_left
        self.turns_left = obs.turns_left

    def _results(self, results: Sequence[StepResult]) -> None:
        steps = self.pending
        for k, result in enumerate(results):
            step = steps[k] if k < len(steps) else None
            if result.object is not None:
                self.known[result.object.name] = dict(result.object.values)
                self.types[result.object.name] = result.object.type
                continue
            if step is None or step.kind != "experiment":
                continue
            before = [dict(self.known[n]) for n in step.objects]
            for change in result.changes:
                self.known[change.object][change.prop] = change.after
            self.learner.observe(
                experiment_record(step, [self.types[n] for n in step.objects], before, self.known)
            )

    # -- choosing experiments --------------------------------------------------------------------------------
    def _experiments(self, names: Sequence[str]) -> list[tuple[str, tuple[str, ...]]]:
        return [(op, objects) for op, arity in self.ops.items() for objects in permutations(names, arity)]

    def _scored(
        self, states: dict[str, dict[str, Value]], covered: set[Key]
    ) -> list[tuple[float, str, tuple[str, ...], dict[Key, float]]]:
        out = []
        for op, objects in self._experiments(sorted(states)):
            things = [Thing(n, self.types[n], states[n]) for n in objects]
            info = self.learner.slot_information(op, things)
            score = sum(v for k, v in info.items() if k not in covered)
            if score > MIN_INFORMATION:
                out.append((score, op, objects, info))
        out.sort(key=lambda x: (-x[0], x[1], x[2]))
        return out

    def _informative_steps(self) -> list[Step]:
        budget = min(self.config.per_turn, self.experiments_left)
        steps: list[Step] = []
        used: set[str] = set()
        covered: set[Key] = set()
        n_exp = 0
        while n_exp < budget and len(steps) < self.config.per_turn:
            free = {n: v for n, v in self.known.items() if n not in used}
            best = self._scored(free, covered)
            extra: list[Step] = []
            if not best and len(steps) + 2 <= self.config.per_turn:
                # an object back in its initial state may be informative where none is as it is now
                resettable = {
                    n: self.initial[n]
                    for n in free
                    if n in self.initial and not same_values(self.initial[n], self.known[n])
                }
                if resettable:
                    states = {**free, **resettable}
                    best = [b for b in self._scored(states, covered) if set(b[2]) & set(resettable)]
                    if best:
                        extra = [Step("reset", objects=(n,)) for n in best[0][2] if n in resettable]
                        if len(steps) + len(extra) + 1 > self.config.per_turn:
                            best = []
            if not best and not steps and self.experiments_left >= 2 and self.config.per_turn >= 2:
                # nothing is informative as things are: an experiment whose outcome is certain may bring an
                # object to a state where one is
                return self._lookahead(free)
            if not best:
                break
            _score, op, objects, info = best[0]
            steps += extra
            steps.append(Step("experiment", op=op, objects=objects))
            n_exp += 1
            used.update(objects)
            covered.update(info)
        if not steps and self.config.allow_create and self.experiments_left > 0:
            # fresh objects bring new states (their values are seen next turn)
            types = sorted({t for t in self.types.values()})
            room = 40 - len(self.known)
            creates = [Step("create", type=t) for t in types][: min(self.config.per_turn, room)]
            if creates and self._creations < 3:
                self._creations += 1
                return creates
        return steps

    def _lookahead(self, states: dict[str, dict[str, Value]]) -> list[Step]:
        """Two experiments: one that changes some objects (its outcome certain), then the most informative one
        on them as they will be; none when no such pair is informative."""
        best: tuple[float, list[Step]] = (MIN_INFORMATION, [])
        for op, objects in self._experiments(sorted(states)):
            things = [Thing(n, self.types[n], states[n]) for n in objects]
            after = self.learner.predict(op, things)
            moved = {
                t.name: dict(t.values)
                for t, old in zip(after, things, strict=True)
                if not same_values(t.values, old.values)
            }
            if not moved:
                continue
            following = {**states, **moved}
            for score, op2, objects2, _info in self._scored(following, set()):
                if score <= best[0]:
                    break
                if set(objects2) & set(moved):
                    pair = ((op, objects), (op2, objects2))
                    best = (score, [Step("experiment", op=o, objects=names) for o, names in pair])
                    break
        return best[1]

    def _random_steps(self) -> list[Step]:
        names = sorted(self.known)
        ops = sorted(self.ops.items())
        steps = []
        for _ in range(min(self.config.per_turn, self.experiments_left)):
            op, arity = ops[self.rng.randrange(len(ops))]
            steps.append(Step("experiment", op=op, objects=tuple(self.rng.sample(names, arity))))
        return steps

    # -- the test --------------------------------------------------------------------------------------------
    def _answer(self, obs: LabObservation) -> Answer:
        if self.answer is None:
            predictions: list[dict[str, dict[str, Value]] | None] = []
            for trial in obs.trials:
                things = [Thing(o.name, o.type, o.values) for o in trial.objects]
                predictions.append(changes(things, self.learner.predict(trial.op, things)))
            self.answer = Answer(tuple(predictions), theory=format_theory(self.learner.theory()))
        return self.answer

    def _meta(self) -> dict[str, Any]:
        return {
            "identified": self.learner.identified(),
            "hypotheses": self.learner.hypotheses(),
            "design": self.design,
        }

    async def act(self, observation: LabObservation) -> Move[LabAction]:
        self._see(observation)
        if observation.kind in ("test", "test_invalid", "ended"):
            return Move(self._answer(observation), meta=self._meta())
        if self.experiments_left <= 0:
            return Move(Finish(), meta=self._meta())
        if self.design == "random":
            steps = self._random_steps()
        elif self.learner.identified():
            steps = []
        else:
            steps = self._informative_steps()
        if not steps:
            return Move(Finish(), meta=self._meta())
        self.pending = tuple(steps)
        return Move(Request(tuple(steps)), meta=self._meta())
