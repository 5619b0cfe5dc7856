"""The equivalence judge: decide a guess over the game's own domain and explain the verdict.

A guess is correct exactly when it agrees with the rule on every triple the game accepts as a test (the domain,
:mod:`wason.tasks.wilt.decide`). A verdict is reached one of three ways, and says which:

- ``refuted``: a counterexample a player could have typed, where the rule and the guess differ both in exact
  arithmetic and as the game computes them (Python's floats): first one of the episode's own tests whose
  shown result the guess contradicts, else a probe of the probe set, else the point z3 found;
- ``proved``: z3 found no point of the domain where they differ in exact arithmetic (or the two are the same
  expression), and the guess agrees with every result the episode showed;
- ``sampled``: neither could be had (something z3's encoding does not cover, or past its resource limit): the
  guess agrees with the rule on the episode's tests and on every probe of the domain.

The probe set also gives the paper-style figures (agreement, Jaccard, set inclusion) as before.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Sequence
from typing import Any, Literal

import numpy as np
import numpy.typing as npt
from pydantic import BaseModel, ConfigDict

from wason.sandbox import GuessRejected, Program, compile_rule
from wason.sandbox.exact import Inexact, evaluate_exact, exact_point
from wason.sandbox.pyast import parse
from wason.tasks.wilt.decide import RLIMIT, SOLVER_VERSION, TYPEABLE, Domain, decide, enumerate_domain
from wason.tasks.wilt.probes import PROBE_VERSION, ProbeSet, probe_set

APPROX_JACCARD_THRESHOLD = 0.5
"""A wrong guess is "approximately correct" when its true-set overlaps the rule's with Jaccard >= this.

Jaccard >= 0.5 means the points where both are True outnumber the points where exactly one is. The paper's
near misses score above it on our probe set (x < y < z for x <= y <= z: 0.82; a bound of 6 for 5 on every
coordinate: 0.81; x < 0 for x <= 0: 0.89; its magnitude example, 0 < x < 5 for -1 < x < 7: 0.59, which a 0.6
threshold would miss), while different rules sharing only a corner score far below (x == y == z against
x == y: 0.30, x < y < z against x < y: 0.32, disjoint rules: 0).
"""
MAX_COUNTEREXAMPLES = 5
JUDGE_VERSION = "decided-1"
"""Stored with every verdict. ``decided-1``: decided over the game's domain (the module's docstring), each
verdict saying how (:attr:`Verdict.method`). ``exact-1``: sampled on the probe set, re-decided in exact
arithmetic where the two programs disagreed in floats, counterexamples not limited to typeable points.
Verdicts stored without a version were judged in float64 (``float-1``)."""
MAX_REFUTATIONS = 3
"""Points z3 is asked for before the judge gives up finding one where the game's floats differ too (a point
where only exact arithmetic tells them apart is no counterexample a player could see)."""

Method = Literal["proved", "refuted", "sampled"]
Test = tuple[tuple[float, float, float], bool]
BARE_EXPRESSION = "Invalid lambda function."
"""The reference's reply to a final guess that is not a lambda (its ``eval`` of ``x > y`` raises NameError)."""
MAX_EXACT_POINTS = 200_000
"""Most probes re-decided exactly per judgement; beyond it the remaining ones keep their float result."""
CONFIRMED_ENOUGH = 64
"""Re-deciding stops once this many float disagreements still disagree in exact arithmetic (the verdict is
settled, and the counterexamples, the simplest five, are among them)."""

Point = tuple[float, float, float]


class Verdict(BaseModel):
    """The judge's verdict on one guess; its figures are over the ``n_probes`` probes, R and G the points where
    rule and guess are True. Verdicts stored before ``decided-1`` (they were sampled) have no ``method``."""

    model_config = ConfigDict(frozen=True)

    rule: str
    guess: str
    accepted: bool  # False: the sandbox rejected the guess (then wrong, ``rejection`` its one-line reason)
    rejection: str | None
    equivalent: bool  # correct: nothing refutes it on the domain (proved, or sampled; see ``method``)
    agreement: float  # share of the probes where the two agree (0 if rejected)
    n_probes: int
    n_disagree: int
    jaccard: float | None  # |R & G| / |R | G|; None when both are empty
    # paper A.3, over the reference subset: |G| / |R| when G is in R or R in G, otherwise (or if |R| == 0) None
    set_inclusion: float | None
    approximately_correct: bool  # accepted, not equivalent and jaccard >= APPROX_JACCARD_THRESHOLD
    # up to five (point, rule value, guess value) a player could have typed, where the two differ exactly and
    # as the game computes them: the deciding one first (the episode's test, z3's point), then the probes',
    # simplest first (integers before fractions, then smallest magnitude, then probe order)
    counterexamples: list[tuple[Point, bool, bool]]
    probe_seed: int
    probe_version: str
    judge_version: str = "float-1"  # JUDGE_VERSION; ``float-1`` for verdicts stored before
    method: Method | None = None  # None also for rejected guesses
    evidence: str | None = None  # one line saying what decided it (the counterexample's source, z3's proof)
    domain: str | None = None  # the triples it was decided over (Domain.describe)
    solver_resources: int = 0  # z3's rlimit steps spent, 0 when it did not run

    @classmethod
    def rejected(cls, rule: str, guess: str, reason: str, *, probe_seed: int, probe_version: str) -> Verdict:
        """The verdict on a guess the sandbox refused: wrong, with the reason."""
        return cls(
            rule=rule,
            guess=guess,
            accepted=False,
            rejection=reason,
            equivalent=False,
            agreement=0.0,
            n_probes=0,
            n_disagree=0,
            jaccard=None,
            set_inclusion=None,
            approximately_correct=False,
            counterexamples=[],
            probe_seed=probe_seed,
            probe_version=probe_version,
            judge_version=JUDGE_VERSION,
        )


def judge(
    rule: str | Program,
    guess: str,
    *,
    seed: int = 0,
    tests: Sequence[Test] = (),
    domain: Domain = TYPEABLE,
    rlimit: int = RLIMIT,
    solve: bool = True,
) -> Verdict:
    """Judge a guess (any text: one outside the language is judged wrong) against a rule over the ``domain`` a
    player can test, with the probe set for ``seed``; GuessRejected when the *rule* is not in the language.
    A guess contradicting one of the episode's ``tests`` (``((x, y, z), result)``) is wrong, with that test as
    its counterexample; ``solve=False`` decides on the probes and tests alone, without z3."""
    rule_program = rule if isinstance(rule, Program) else compile_rule(rule)
    guess_text = guess if isinstance(guess, str) else repr(guess)
    try:
        guess_program = compile_rule(guess)
    except GuessRejected as exc:
        return Verdict.rejected(
            rule_program.source, guess_text, exc.reason, probe_seed=seed, probe_version=PROBE_VERSION
        )
    probes = probe_set(
        seed,
        _with_negations(rule_program.constants + guess_program.constants),
        corners=_corner_values(rule_program.constants, guess_program.constants),
    )
    (r, _), (g, _) = rule_program.evaluate_together([guess_program], probes.inputs)
    in_domain = probes.typeable if domain == TYPEABLE else _in_box(probes, domain)
    float_differ = r != g
    decided = _decide_exactly(rule_program, guess_program, probes, r, g, in_domain)
    # a counterexample a player could have typed, and seen: it differs exactly and as the game computes it
    counterexamples = _counterexamples(probes, (r != g) & float_differ & decided & in_domain, r, g)
    method, evidence, first, spent = _decide(
        rule_program, guess_program, tests, counterexamples, domain, rlimit=rlimit, solve=solve
    )
    if first is not None:
        counterexamples = [first, *(c for c in counterexamples if c[0] != first[0])][:MAX_COUNTEREXAMPLES]
    return scored(
        rule_program.source,
        guess_text,
        r,
        g,
        equivalent=method != "refuted",
        set_inclusion=_set_inclusion(r[: probes.reference_end], g[: probes.reference_end]),
        counterexamples=counterexamples,
        probe_seed=probes.seed,
        probe_version=probes.version,
        judge_version=JUDGE_VERSION,
        method=method,
        evidence=evidence,
        domain=domain.describe(),
        solver_resources=spent,
    )


def scored(
    rule: str,
    guess: str,
    r: npt.NDArray[np.bool_],
    g: npt.NDArray[np.bool_],
    *,
    equivalent: bool,
    counterexamples: list[Counterexample],
    **fields: Any,
) -> Verdict:
    """The verdict on an accepted guess, its figures from the rule's and the guess's values ``r`` and ``g`` at
    the probes (``fields``: the rest of the verdict's)."""
    n_disagree = int(np.count_nonzero(r != g))
    jaccard = _jaccard(r, g)
    return Verdict(
        rule=rule,
        guess=guess,
        accepted=True,
        rejection=None,
        equivalent=equivalent,
        agreement=1.0 - n_disagree / len(r),
        n_probes=len(r),
        n_disagree=n_disagree,
        jaccard=jaccard,
        approximately_correct=not equivalent and jaccard is not None and jaccard >= APPROX_JACCARD_THRESHOLD,
        counterexamples=[] if equivalent else counterexamples,
        **fields,
    )


Counterexample = tuple[Point, bool, bool]


def _decide(
    rule: Program,
    guess: Program,
    tests: Sequence[Test],
    probed: list[Counterexample],
    domain: Domain,
    *,
    rlimit: int,
    solve: bool,
) -> tuple[Method, str, Counterexample | None, int]:
    """How the verdict is reached: ``(method, evidence, the deciding counterexample or None, z3's resources)``."""
    for point, result in tests:
        said = guess(*point)  # as the game computed the rule's result: the sandbox's floats
        if said != bool(result):
            shown = f"the episode's test {_triple(point)} showed {bool(result)}; the guess says {said}"
            return "refuted", shown, (point, bool(result), said), 0
    if probed:
        return "refuted", f"a probe the game accepts: {_triple(probed[0][0])}", None, 0
    if rule.root is guess.root:
        return "proved", "the guess is the rule's own expression", None, 0
    if not solve:
        return "sampled", _sampled(tests), None, 0
    spent = 0
    tried: list[Point] = []
    reason = ""
    for _ in range(MAX_REFUTATIONS):
        decision = decide(rule, guess, domain, rlimit=rlimit, exclude=tried)
        spent += decision.resources
        if decision.kind == "proved":
            found = f"{SOLVER_VERSION} found no triple where they differ"
            if tried:
                apart = ", ".join(_triple(p) for p in tried)
                found += f" apart from {apart}, where only exact arithmetic tells them apart and the game's answers"
                found += " agree"
            return "proved", f"{found} ({spent:,} steps)", None, spent
        if decision.kind == "unknown" or decision.point is None:
            reason = decision.reason or "undecided"
            break
        point = decision.point
        rule_value, guess_value = rule(*point), guess(*point)
        if rule_value != guess_value:
            found = f"{SOLVER_VERSION} found {_triple(point)} ({spent:,} steps)"
            return "refuted", found, (point, rule_value, guess_value), spent
        tried.append(point)  # they differ only in exact arithmetic here: the game would show no difference
    else:
        reason = f"they differ only where the game's floats agree (e.g. {_triple(tried[0])})"
    checked = enumerate_domain(rule, guess, domain)
    if checked.kind == "proved":
        return "proved", f"checked every triple ({SOLVER_VERSION}: {reason})", None, spent
    if checked.kind == "refuted" and checked.point is not None:
        point = checked.point
        return (
            "refuted",
            f"checked every triple: {_triple(point)}",
            (point, rule(*point), guess(*point)),
            spent,
        )
    return "sampled", f"{_sampled(tests)}; {SOLVER_VERSION}: {reason}", None, spent


def _sampled(tests: Sequence[Test]) -> str:
    what = f"the episode's {len(tests)} tests and " if tests else ""
    return f"no counterexample among {what}the probes the game accepts"


def _triple(point: Sequence[float]) -> str:
    return "(" + ", ".join(_number(float(v)) for v in point) + ")"


def _in_box(probes: ProbeSet, domain: Domain) -> npt.NDArray[np.bool_]:
    assert domain.integer_range is not None
    low, high = domain.integer_range
    pts = probes.points
    out: npt.NDArray[np.bool_] = ((pts == np.round(pts)) & (pts >= low) & (pts <= high)).all(axis=1)
    return out


def is_lambda(guess: str) -> bool:
    """Whether the guess text is a lambda expression (the reference's form), not a bare expression."""
    try:
        tree = parse(guess.strip(), mode="eval")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return True  # not Python at all: the sandbox says why
    return isinstance(tree.body, ast.Lambda)


def _decide_exactly(
    rule: Program,
    guess: Program,
    probes: ProbeSet,
    r: npt.NDArray[np.bool_],
    g: npt.NDArray[np.bool_],
    in_domain: npt.NDArray[np.bool_],
) -> npt.NDArray[np.bool_]:
    """Re-decide, in place and in exact arithmetic, the probes where rule and guess disagree in floats (only a
    disagreement can be a float artifact), the domain's first, simplest first; the mask of those decided.

    Once :data:`CONFIRMED_ENOUGH` still disagree exactly, the verdict is settled and the rest keep their float
    values: the agreement and Jaccard are then float figures corrected on the points re-decided, and the
    counterexamples, drawn simplest first from those, exact ones. A point too large to carry exactly
    (:class:`Inexact`) keeps its float result, which then decides it."""
    decided = np.zeros(probes.n, dtype=np.bool_)
    idx = np.flatnonzero(r != g)
    if idx.size == 0:
        return decided
    idx = idx[np.lexsort((idx, probes.simplicity[idx], ~in_domain[idx]))][:MAX_EXACT_POINTS]
    shared: dict[int, object] = {}
    confirmed = 0
    known: dict[tuple[float, float, float], tuple[bool, bool] | None] = {}  # a point in several families
    for i, (x, y, z) in _points_in_order(probes, idx):
        key = (x, y, z)
        found = known.get(key)
        if found is not None:
            r[i], g[i] = found
            decided[i] = True
            continue
        point = exact_point(x, y, z)
        try:
            rv = evaluate_exact(rule.root, point, shared)  # type: ignore[arg-type]
            gv = evaluate_exact(guess.root, point, shared)  # type: ignore[arg-type]
        except Inexact:
            # numbers beyond what exact arithmetic carries: the float result stands (9**9**9**9 is inf there,
            # and greater than any x, as the number itself is)
            rv, gv = bool(r[i]), bool(g[i])
        known[key] = (rv, gv)
        r[i], g[i] = rv, gv
        decided[i] = True
        if rv != gv:
            confirmed += 1
        if confirmed >= CONFIRMED_ENOUGH:
            break
    return decided


_CHUNK = 256


def _points_in_order(probes: ProbeSet, idx: npt.NDArray[np.intp]) -> Iterator[tuple[int, list[float]]]:
    """The probes ``idx`` with their points as Python floats, converted a chunk at a time: a verdict usually
    settles within the first few, and converting all of a large disagreement took 12 ms a guess."""
    for start in range(0, idx.size, _CHUNK):
        chunk = idx[start : start + _CHUNK]
        yield from zip(chunk.tolist(), probes.points[chunk].tolist(), strict=True)


def _with_negations(constants: tuple[float, ...]) -> list[float]:
    return [v for c in constants for v in (c, -c)]


def _corner_values(rule: tuple[float, ...], guess: tuple[float, ...]) -> list[float]:
    """The values whose triples are probed: the guess's own constants first (where a guess that departs from
    the rule at a point or a box names it), then 0 (a guess tests it without writing it: ``not z``), then the
    rule's, each with its negation; the probe set keeps the first few it can type. None at all when neither
    has a constant (0 alone makes only (0, 0, 0), which the grid holds)."""
    if not rule and not guess:
        return []
    own = tuple(c for c in guess if c not in rule)
    return [*_with_negations(own), 0.0, *_with_negations(rule)]


def _jaccard(r: npt.NDArray[np.bool_], g: npt.NDArray[np.bool_]) -> float | None:
    union = int(np.count_nonzero(r | g))
    if union == 0:
        return None
    return int(np.count_nonzero(r & g)) / union


def _set_inclusion(r: npt.NDArray[np.bool_], g: npt.NDArray[np.bool_]) -> float | None:
    n_rule = int(np.count_nonzero(r))
    if n_rule == 0:
        return None
    guess_in_rule = not bool(np.any(g & ~r))
    rule_in_guess = not bool(np.any(r & ~g))
    if not (guess_in_rule or rule_in_guess):
        return None
    return int(np.count_nonzero(g)) / n_rule


def _counterexamples(
    probes: ProbeSet, disagree: npt.NDArray[np.bool_], r: npt.NDArray[np.bool_], g: npt.NDArray[np.bool_]
) -> list[tuple[Point, bool, bool]]:
    idx = np.flatnonzero(disagree)
    keys = probes.simplicity[idx]
    if idx.size > _CANDIDATES:
        # only the simplest few need sorting; keep every tie of the cut-off key so the choice is well defined
        few = keys <= np.partition(keys, _CANDIDATES - 1)[_CANDIDATES - 1]
        out = _unique_points(probes, idx[few][np.lexsort((idx[few], keys[few]))], r, g)
        if len(out) == MAX_COUNTEREXAMPLES:
            return out  # else many copies of the same point: sort them all
    return _unique_points(probes, idx[np.lexsort((idx, keys))], r, g)


_CANDIDATES = 64


def _unique_points(
    probes: ProbeSet, ordered: npt.NDArray[np.intp], r: npt.NDArray[np.bool_], g: npt.NDArray[np.bool_]
) -> list[tuple[Point, bool, bool]]:
    out: list[tuple[Point, bool, bool]] = []
    seen: set[Point] = set()
    for i in ordered.tolist():  # several families can hold the same point: show each once
        x, y, z = (float(v) for v in probes.points[i])
        if (x, y, z) in seen:
            continue
        seen.add((x, y, z))
        out.append(((x, y, z), bool(r[i]), bool(g[i])))
        if len(out) == MAX_COUNTEREXAMPLES:
            break
    return out


def _number(v: float) -> str:
    return str(int(v)) if v.is_integer() and abs(v) < 1e16 else repr(v)


def format_verdict(v: Verdict) -> str:
    """A few human-readable lines describing a verdict, for the command line (no trailing newline)."""
    lines = [f"rule:    {v.rule}", f"guess:   {v.guess}"]
    if not v.accepted:
        lines.append(f"verdict: WRONG - the guess was rejected by the sandbox: {v.rejection}")
        return "\n".join(lines)
    over = v.domain or "the probes"
    if v.equivalent:
        how = {
            "proved": f"proved: it agrees with the rule on {over}",
            "sampled": f"sampled, not proved: it agrees with the rule on every probe of {over}",
        }.get(v.method or "", f"agrees with the rule on all {v.n_probes:,} probes")
        lines.append(f"verdict: CORRECT - {how}")
    else:
        kind = (
            f"approximately correct (Jaccard {v.jaccard:.3f} >= {APPROX_JACCARD_THRESHOLD})"
            if v.approximately_correct
            else "not approximately correct"
        )
        lines.append(f"verdict: WRONG - {kind}")
        for point, rule_value, guess_value in v.counterexamples:
            lines.append(f"  e.g. {_triple(point)}: rule {rule_value}, guess {guess_value}")
    if v.evidence:
        lines.append(f"decided: {v.method} - {v.evidence}")
    lines.append(
        f"agreement: {v.agreement:.2%} of {v.n_probes:,} probes ({v.n_disagree:,} disagree)"
        + ("" if v.jaccard is None else f", Jaccard {v.jaccard:.3f}")
    )
    if v.set_inclusion is not None:
        lines.append(f"set inclusion |G|/|R|: {v.set_inclusion:.3f}")
    lines.append(f"probes: {v.probe_version}, seed {v.probe_seed}; judge {v.judge_version}")
    return "\n".join(lines)
