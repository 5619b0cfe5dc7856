"""The ideal learner of a lab domain: a factorized version space over the relation grammar.

The hidden laws have at most one law per *slot* ``(operation, object, property)``, drawn from the grammar's
candidates (:func:`wason.tasks.lab.grammar.slot_laws`); a slot's hypotheses are the union of its candidates over
the assignments of types to the operation's objects, plus "no law". Within an operation number laws read the
state before it, thresholds read the numbers after the number laws and conditions never read a property the
operation changes, so every slot is learned on its own from the (before, after) records of the experiments:
number laws and conditions from the ``before`` values, thresholds from the ``after`` numbers.

The learner knows only a domain's public part (types, properties, operations, parameters), never its laws:
:func:`public` strips them and every entry point uses it.

Prior (per hypothesis): the generator's own, which is public. A slot holds a law with probability
``laws / slots`` (no law otherwise); its kind is uniform among the slot's kinds, the law uniform among the
unconditional laws of that kind, and it has a condition with probability ``conditional`` (uniform among the
slot's conditions). It is a simplicity prior: no law is the most probable hypothesis of a slot (unless a domain
has more laws than half its slots); then the unconditional ``set``/``toggle``/``scale`` laws, the ``add``
constants, the ``interact``/``threshold`` laws (pools as large or larger, so each as probable or less) and,
least probable, the conditional laws. (A fixed ranking - no law 1, unconditional add/scale/set/toggle 0.3,
interact/threshold 0.1, conditional 0.05 of that - predicted 4 points worse on hard domains.)

The posterior keeps the hypotheses with the fewest observations they contradict (none, when the observations
fit the grammar); with measurement noise of sd ``s`` a number is consistent within ``4 s`` (scaled for the
values a law multiplies), and a threshold whose number is within ``4 s`` of it is consistent either way.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from wason.tasks.lab.grammar import BOOLEAN_KINDS, NUMBER_KINDS, kind_of, slot_laws
from wason.tasks.lab.laws import (
    Arith,
    Bool,
    Compare,
    Law,
    Not,
    Num,
    Ref,
    Thing,
    Value,
    clean,
    format_law,
    outcome_right,
    refs,
)
from wason.tasks.lab.world import Domain, Trial, _ordered, slots_of
from wason.tasks.lab.world import thresholds as world_thresholds

__all__ = ["Learner", "accuracy", "curve", "curves", "public", "reduction_curve"]

NOISE_SDS = 4.0

Key = tuple[str, int, str]
"""A slot: (operation, object 0 or 1, property)."""

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]

# hypothesis kinds in the arrays
_NONE, _NUMBER, _SET, _TOGGLE, _GT, _LT = 0, 1, 2, 3, 4, 5


def public(domain: Domain) -> Domain:
    """The domain without its hidden laws: all a learner or a solver may know."""
    return dataclasses.replace(domain, laws=())


class _Slot:
    """One slot's hypotheses as arrays, and the count of observations each contradicts."""

    def __init__(self, key: Key, arity: int, is_bool: bool, laws: Sequence[Law]) -> None:
        self.key = key
        self.arity = arity
        self.is_bool = is_bool
        self.candidates = list(laws)
        self.laws: list[Law | None] = [None, *laws]
        reads = (r for law in laws for r in refs(law.value) + refs(law.condition) if r != law.target)
        self.refs: list[Ref] = list(dict.fromkeys(reads))
        sentinel = len(self.refs)
        n = len(self.laws)
        self.kind = np.zeros(n, dtype=np.int64)
        self.m = np.ones(n)
        self.c = np.zeros(n)
        self.s = np.zeros(n)
        self.src = np.full(n, sentinel, dtype=np.int64)
        self.cond = np.full(n, sentinel, dtype=np.int64)
        self.want = np.zeros(n)
        self.prior = np.ones(n)
        for h, law in enumerate(laws, start=1):
            self._encode(h, law)
        self.tolfac = np.sqrt(1.0 + self.m**2 + self.s**2)
        self.viol = np.zeros(n, dtype=np.int64)
        self.refuted = 0  # hypotheses some observation contradicts
        self.version = 0
        self.alive: IntArray = np.arange(n)  # the hypotheses with the fewest contradictions
        self.cache: dict[tuple[Any, ...], Any] = {}

    def _encode(self, h: int, law: Law) -> None:
        v = law.value
        if law.condition is not None:
            cond = law.condition
            want = 1.0
            if isinstance(cond, Not):
                cond, want = cond.operand, 0.0
            if not isinstance(cond, Ref):
                raise ValueError(f"law: a condition outside the grammar: {law}")
            self.cond[h] = self.refs.index(cond)
            self.want[h] = want
        if isinstance(v, Bool):
            self.kind[h], self.c[h] = _SET, float(v.value)
        elif isinstance(v, Not):
            self.kind[h] = _TOGGLE
        elif isinstance(v, Compare) and isinstance(v.left, Ref) and isinstance(v.right, Num):
            self.kind[h] = _GT if v.op == ">" else _LT
            self.src[h] = self.refs.index(v.left)
            self.c[h] = v.right.value
        elif isinstance(v, Arith) and isinstance(v.right, Num):
            self.kind[h] = _NUMBER
            if v.op == "*":
                self.m[h] = v.right.value
            else:
                self.c[h] = v.right.value if v.op == "+" else -v.right.value
        elif isinstance(v, Arith) and isinstance(v.right, Ref):
            self.kind[h] = _NUMBER
            self.src[h] = self.refs.index(v.right)
            self.s[h] = 1.0 if v.op == "+" else -1.0
        else:
            raise ValueError(f"law: outside the grammar: {law}")

    # -- state ----------------------------------------------------------------------------------------------
    def _update(self) -> None:
        alive = np.flatnonzero(self.viol == self.viol.min())
        if not np.array_equal(alive, self.alive):
            self.alive = alive
            self.version += 1
            self.cache.clear()

    def vectors(
        self, things: Sequence[Mapping[str, Value]], after: Sequence[Mapping[str, Value]] | None = None
    ) -> tuple[FloatArray, BoolArray, FloatArray]:
        """The values of the slot's references (and a sentinel: 0, present) before and after."""
        n = len(self.refs) + 1
        vals = np.zeros(n)
        avail = np.ones(n, dtype=bool)
        post = np.zeros(n)
        for i, r in enumerate(self.refs):
            if r.arg < len(things) and r.prop in things[r.arg]:
                vals[i] = float(things[r.arg][r.prop])
                src = after if after is not None else things
                post[i] = float(src[r.arg][r.prop])
            else:
                avail[i] = False
        return vals, avail, post

    def predict(
        self, idx: IntArray, x: float, vals: FloatArray, avail: BoolArray, post: FloatArray
    ) -> FloatArray:
        """The target's value after the operation under hypotheses ``idx``."""
        kind = self.kind[idx]
        src = self.src[idx]
        cond = self.cond[idx]
        fires = avail[cond] & (vals[cond] == self.want[idx]) & avail[src]
        if self.is_bool:
            q = post[src]
            t = self.c[idx]
            conditions = [kind == _SET, kind == _TOGGLE, kind == _GT, kind == _LT]
            pred = np.select(conditions, [t, 1.0 - x, q > t, q < t], x).astype(float)
        else:
            with np.errstate(over="ignore", invalid="ignore"):
                pred = x * self.m[idx] + self.c[idx] + self.s[idx] * vals[src]
            fires &= np.isfinite(pred)
        return np.where(fires, pred, x)

    def observe(
        self, before: Sequence[Mapping[str, Value]], after: Sequence[Mapping[str, Value]], noise: float
    ) -> None:
        arg, prop = self.key[1], self.key[2]
        x = float(before[arg][prop])
        y = float(after[arg][prop])
        vals, avail, post = self.vectors(before, after)
        everyone = np.arange(len(self.laws))
        pred = self.predict(everyone, x, vals, avail, post)
        if self.is_bool:
            bad = pred != y
            if noise > 0:
                thresholds = (self.kind == _GT) | (self.kind == _LT)
                near = np.abs(post[self.src] - self.c) <= NOISE_SDS * noise
                bad &= ~(thresholds & near)
        else:
            tol = 1e-6 * max(1.0, abs(y)) + NOISE_SDS * noise * self.tolfac
            with np.errstate(invalid="ignore"):
                bad = ~(np.abs(pred - y) <= tol)
        self.viol += bad
        self.refuted = int(np.count_nonzero(self.viol))
        self._update()

    # -- summaries ------------------------------------------------------------------------------------------
    def outcome(
        self, x: float, vals: FloatArray, avail: BoolArray, post: FloatArray
    ) -> tuple[FloatArray, FloatArray]:
        """The distinct values the surviving hypotheses predict, and their posterior shares."""
        idx = self.alive
        pred = self.predict(idx, x, vals, avail, post)
        key = np.round(pred, 6)
        if len(key) == 1:  # one surviving hypothesis (most slots, once identified): one value, all the weight
            return key, np.ones(1)
        w = self.prior[idx]
        values, inverse = np.unique(key, return_inverse=True)
        share = np.bincount(inverse.ravel(), weights=w)
        return values, share / share.sum()

    def map_law(self) -> Law | None:
        idx = self.alive
        return self.laws[int(idx[np.argmax(self.prior[idx])])]


class Learner:
    """An ideal learner over a domain's grammar (its public part: :func:`public` is applied): per slot the
    candidate laws and "no law" with the generator's prior, filtered by every observed experiment; predictions
    are per slot the posterior-weighted majority value."""

    def __init__(self, domain: Domain) -> None:
        domain = public(domain)
        self.domain = domain
        p = domain.params
        self.noise = p.noise
        thresholds = world_thresholds(p)
        conditional = p.conditional > 0
        self.prop_type = {prop: t.name for t in domain.types for prop in t.properties}
        self.ops = {o.name: o.arity for o in domain.operations}
        grouped: dict[Key, tuple[int, bool, dict[Law, None]]] = {}
        for op in domain.operations:
            for slot, _names in slots_of(domain.types, op, p.cross):
                kinds = [k for k in p.kinds if k in (BOOLEAN_KINDS if slot.is_bool else NUMBER_KINDS)]
                key = (op.name, slot.arg, slot.prop)
                entry = grouped.setdefault(key, (op.arity, slot.is_bool, {}))
                if not kinds:
                    continue
                entry[2].update(dict.fromkeys(slot_laws(slot, kinds, thresholds, conditional, p.cross)))
        self.slots: dict[Key, _Slot] = {
            key: _Slot(key, arity, is_bool, list(laws))
            for key, (arity, is_bool, laws) in sorted(grouped.items())
        }
        self._calibrate(p.laws, p.conditional)
        # the slots an operation's objects touch, by the objects' types
        self._by_op: dict[tuple[str, tuple[str, ...]], list[_Slot]] = {}
        self.observed = 0

    def _calibrate(self, laws: int, conditional: float) -> None:
        """The generator's prior (see the module's docstring)."""
        drawable = [slot for slot in self.slots.values() if len(slot.laws) > 1]
        p_law = min(0.9, laws / max(1, len(drawable)))
        for slot in drawable:
            kinds = Counter(kind_of(law) for law in slot.candidates if law.condition is None)
            conds = len({law.condition for law in slot.candidates if law.condition is not None})
            slot.prior[0] = 1.0 - p_law
            for h, law in enumerate(slot.candidates, start=1):
                base = p_law / len(kinds) / kinds[kind_of(law)]
                slot.prior[h] = base * (
                    (1.0 - conditional) if law.condition is None else conditional / max(1, conds)
                )

    # -- the slots an experiment touches --------------------------------------------------------------------
    def slots_for(self, op: str, types: Sequence[str]) -> list[_Slot]:
        """The slots of ``op`` on objects of ``types``: numbers first, then booleans."""
        key = (op, tuple(types))
        if key not in self._by_op:
            self._by_op[key] = [
                self.slots[(op, arg, prop)]
                for arg, t in enumerate(map(self.domain.type_named, types))
                for prop in t.numbers + t.booleans
                if (op, arg, prop) in self.slots
            ]
        return self._by_op[key]

    # -- learning -------------------------------------------------------------------------------------------
    def observe(self, record: Mapping[str, Any]) -> None:
        """Learn from one experiment record (an entry of ``LabGame.history``)."""
        op = str(record["op"])
        types = [str(t) for t in record["types"]]
        before: list[Mapping[str, Value]] = record["before"]
        after: list[Mapping[str, Value]] = record["after"]
        if op not in self.ops or self.ops[op] != len(types):
            raise ValueError(f"record: operation {op[:40]!r} with {len(types)} objects is not of this domain")
        for slot in self.slots_for(op, types):
            slot.observe(before, after, self.noise)
        self.observed += 1

    # -- predicting -----------------------------------------------------------------------------------------
    def _outcomes(self, op: str, things: Sequence[Thing]) -> list[tuple[_Slot, FloatArray, FloatArray]]:
        """Per slot the distinct predicted values and their shares (thresholds read the majority numbers)."""
        before = [t.values for t in things]
        after = [dict(t.values) for t in things]
        before_key = tuple(tuple(sorted(v.items())) for v in before)  # the same for every slot
        out = []
        for slot in self.slots_for(op, [t.type for t in things]):
            arg, prop = slot.key[1], slot.key[2]
            x = float(before[arg][prop])
            state = (
                slot.version,
                before_key,
                tuple(tuple(sorted(v.items())) for v in after) if slot.is_bool else (),
            )
            hit = slot.cache.get(state)
            if hit is None:
                vals, avail, post = slot.vectors(before, after)
                hit = slot.outcome(x, vals, avail, post)
                if len(slot.cache) > 4096:
                    slot.cache.clear()
                slot.cache[state] = hit
            values, share = hit
            out.append((slot, values, share))
            best = float(values[int(share.argmax())])
            after[arg][prop] = (best > 0.5) if slot.is_bool else best
        return out

    def predict(self, op: str, things: Sequence[Thing]) -> list[Thing]:
        """The objects after ``op`` (copies): per slot the posterior-weighted majority value."""
        after = [t.copy() for t in things]
        for slot, values, share in self._outcomes(op, things):
            arg, prop = slot.key[1], slot.key[2]
            best = float(values[int(share.argmax())])
            after[arg].values[prop] = (best > 0.5) if slot.is_bool else clean(best)
        return after

    def slot_information(self, op: str, things: Sequence[Thing]) -> dict[Key, float]:
        """Per slot the entropy (nats) of its predicted outcome under the posterior (slots with none left out)."""
        out: dict[Key, float] = {}
        for slot, _values, share in self._outcomes(op, things):
            if len(share) > 1:
                out[slot.key] = float(-(share * np.log(share)).sum())
        return out

    def expected_information(self, op: str, things: Sequence[Thing]) -> float:
        """The expected reduction in uncertainty (nats) from running ``op`` on ``things`` in their known state:
        the entropy of the predicted outcome partition under the posterior, summed over the slots it touches
        (the posterior is factorized by slot)."""
        return sum(self.slot_information(op, things).values())

    # -- summaries ------------------------------------------------------------------------------------------
    def theory(self) -> tuple[Law, ...]:
        """The most probable law of each slot ("no law" dropped), in the canonical order."""
        laws = [law for slot in self.slots.values() if (law := slot.map_law()) is not None]
        ordered = _ordered(laws)
        if ordered is not None:
            return ordered
        return tuple(sorted(laws, key=lambda x: (x.op, kind_of(x) not in NUMBER_KINDS, format_law(x))))

    def hypotheses(self) -> int:
        """Surviving hypotheses, summed over the slots."""
        return sum(len(slot.alive) for slot in self.slots.values())

    def reduction(self) -> float:
        """The share of the space's wrong hypotheses that some observation contradicts, from 0 to 1.

        The space is every slot's hypotheses ("no law" included), and each slot holds exactly one true one that
        no exact observation contradicts; so the share is of the others: per slot the hypotheses contradicted (at
        most all but one: with noise the true one may be too), summed, over the hypotheses less one a slot. It is 1
        once every slot is identified, never falls, and is 0 for a domain whose slots have nothing to tell apart.
        """
        wrong = sum(len(slot.laws) - 1 for slot in self.slots.values())
        ruled_out = sum(min(slot.refuted, len(slot.laws) - 1) for slot in self.slots.values())
        return ruled_out / wrong if wrong else 0.0

    def unresolved(self) -> list[Key]:
        """The slots with more than one surviving hypothesis."""
        return [key for key, slot in self.slots.items() if len(slot.alive) > 1]

    def identified(self) -> bool:
        """Whether every slot has one surviving hypothesis (distinct laws of a slot differ as functions, so
        this is agreement on every state)."""
        return all(len(slot.alive) == 1 for slot in self.slots.values())


# -- curves -------------------------------------------------------------------------------------------------
def accuracy(
    learner: Learner, test: Sequence[Trial], truth: Sequence[Sequence[Thing]], tolerance: float
) -> float:
    """The share of test trials the learner predicts exactly."""
    if not test:
        return 0.0
    right = sum(
        outcome_right(learner.predict(t.op, t.things), real, tolerance)
        for t, real in zip(test, truth, strict=True)
    )
    return right / len(test)


def curve(
    domain: Domain, history: Sequence[Mapping[str, Any]], test: Sequence[Trial], tolerance: float
) -> list[float]:
    """The share of ``test`` an ideal learner predicts exactly after 0, 1, ..., len(history) experiments of
    ``history`` (it learns from the public domain; the true laws only score it)."""
    return curves(domain, history, test, tolerance)[0]


def curves(
    domain: Domain, history: Sequence[Mapping[str, Any]], test: Sequence[Trial], tolerance: float
) -> tuple[list[float], list[float]]:
    """:func:`curve` and :func:`reduction_curve` of ``history``, from one pass of the learner."""
    truth = [t.outcome(domain.laws) for t in test]
    learner = Learner(public(domain))
    out = [accuracy(learner, test, truth, tolerance)]
    reduction: list[float] = []
    for record in history:
        versions = [s.version for s in learner.slots.values()]
        learner.observe(record)
        reduction.append(learner.reduction())
        if versions == [s.version for s in learner.slots.values()]:
            out.append(out[-1])
        else:
            out.append(accuracy(learner, test, truth, tolerance))
    return out, reduction


def reduction_curve(domain: Domain, history: Sequence[Mapping[str, Any]]) -> list[float]:
    """The share of the learner's wrong hypotheses (:meth:`Learner.reduction`) ruled out after each experiment of
    ``history`` (one value an experiment; the learner reads the public domain only, so the hidden laws are never
    used). The text environments pay its last value as the "information" reward."""
    return curves(domain, history, (), 0.0)[1] if history else []  # no experiment: no need of the learner
