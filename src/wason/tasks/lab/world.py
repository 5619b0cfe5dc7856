"""Lab domains: random quasi-physical worlds drawn from a seed, and the experiments run on them.

A domain has object types (each with boolean and number properties), objects of each type, operations on one
object or by one object (the actor, ``a``) on another (the target, ``b``), and hidden laws drawn from the
relation grammar (:mod:`wason.tasks.lab.grammar`). Every name is pronounceable nonsense drawn from the seed
and checked against an English word list (wordfreq's), so no name is a real word. Same seed and parameters,
same domain, byte for byte; a domain records the generator, its version, its seed and its parameters.

A drawn domain is kept only if it passes :func:`identifiable` (every law can be seen and told apart within the
experiment budget); otherwise the next draw from the same seed is tried, and the number of rejected draws is
recorded with the domain.
"""

from __future__ import annotations

import itertools
import json
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

from wason.tasks.lab.grammar import BOOLEAN_KINDS, KINDS, NUMBER_KINDS, Slot, kind_of, slot_laws
from wason.tasks.lab.laws import (
    Compare,
    Law,
    Num,
    Ref,
    Thing,
    Value,
    apply,
    format_law,
    law_from_json,
    law_to_json,
    refs,
)
from wason.tasks.lab.reading import parse_theory

GENERATOR = "wason.lab"
GENERATOR_VERSION = 2
"""The version a domain records (a domain of another version is refused when read): of the domain and of the
experiments drawn on it. 2: the half of the test and of the probe set drawn where a law acts counts the law's
condition, and draws each of those experiments' fresh objects again until it changes something (:func:`trials`);
the domains themselves are version 1's, the same but for the version they record (:data:`DRAW_VERSION`)."""
DRAW_VERSION = 1
"""The version in the seed of a domain's draw: the version that last changed how laws and objects are drawn
(version 2 changed only the experiments on fresh objects, so a seed draws the same domain as it did in 1)."""
MAX_DRAWS = 500
"""Draws tried from one seed before giving up (a parameter set that almost never gives an identifiable
domain is refused, naming it)."""


class DomainParams(BaseModel):
    """The generator's difficulty parameters: counts per lab (``types``, ``unary`` and ``binary`` operations,
    ``laws``), per type (``objects``, ``booleans``, ``numbers``); ``conditional``: the chance a law has a
    condition; ``cross``: whether two-object laws may read the other object; ``low..high``: the whole numbers
    initial values are drawn from; ``noise``: the sd of the measurement noise on reported numbers."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    types: int = Field(default=1, ge=1, le=4)
    objects: int = Field(default=3, ge=2, le=8)
    booleans: int = Field(default=1, ge=0, le=3)
    numbers: int = Field(default=1, ge=1, le=3)
    unary: int = Field(default=2, ge=0, le=5)
    binary: int = Field(default=0, ge=0, le=4)
    laws: int = Field(default=2, ge=1, le=12)
    kinds: tuple[str, ...] = ("add", "scale", "set", "toggle")
    conditional: float = Field(default=0.0, ge=0.0, le=1.0)
    cross: bool = False
    low: int = Field(default=1, ge=-1000, le=1000)
    high: int = Field(default=12, ge=-1000, le=1000)
    noise: float = Field(default=0.0, ge=0.0, le=100.0)

    @model_validator(mode="after")
    def _check(self) -> DomainParams:
        unknown = [k for k in self.kinds if k not in KINDS]
        if unknown:
            raise ValueError(f"kinds: unknown {unknown}; choose from {', '.join(KINDS)}")
        if self.unary + self.binary < 1:
            raise ValueError("unary, binary: a domain needs at least one operation")
        if self.high - self.low < 6:
            raise ValueError("low, high: the value range must span at least 7 whole numbers")
        if not any(k in NUMBER_KINDS for k in self.kinds) and self.booleans == 0:
            raise ValueError("kinds: with no boolean properties, at least one number kind is needed")
        return self


PRESETS: dict[str, DomainParams] = {
    "easy": DomainParams(
        types=1, objects=3, booleans=1, numbers=1, unary=2, binary=0, laws=2,
        kinds=("add", "scale", "set", "toggle"), conditional=0.0, cross=False,
    ),
    "medium": DomainParams(
        types=2, objects=4, booleans=1, numbers=2, unary=2, binary=1, laws=4,
        kinds=KINDS, conditional=0.3, cross=True,
    ),
    "hard": DomainParams(
        types=3, objects=4, booleans=1, numbers=2, unary=3, binary=2, laws=7,
        kinds=KINDS, conditional=0.4, cross=True,
    ),
}  # fmt: skip
"""The three difficulties of ``wason eval lab --difficulty``."""


@dataclass(frozen=True)
class ObjectType:
    name: str
    booleans: tuple[str, ...]
    numbers: tuple[str, ...]

    @property
    def properties(self) -> tuple[str, ...]:
        return self.booleans + self.numbers


@dataclass(frozen=True)
class Operation:
    name: str
    arity: int


@dataclass(frozen=True)
class Domain:
    """A generated world: its types, operations, hidden laws and the lab's objects as they start; ``rejected``:
    the draws from its seed that were not identifiable before this one."""

    seed: str
    params: DomainParams
    types: tuple[ObjectType, ...]
    operations: tuple[Operation, ...]
    laws: tuple[Law, ...]
    objects: tuple[tuple[str, str, tuple[tuple[str, Value], ...]], ...]
    rejected: int = 0
    design: int = 0
    version: int = GENERATOR_VERSION

    # -- lookups -------------------------------------------------------------------------------------------
    def type_named(self, name: str) -> ObjectType:
        for t in self.types:
            if t.name == name:
                return t
        raise KeyError(name)

    def things(self) -> list[Thing]:
        """The lab's objects in their initial state (new objects each call)."""
        return [Thing(name, type_, dict(values)) for name, type_, values in self.objects]

    def law_text(self) -> list[str]:
        return [format_law(law) for law in self.laws]

    @property
    def noise(self) -> float:
        return self.params.noise

    # -- JSON ----------------------------------------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        return {
            "generator": GENERATOR,
            "version": self.version,
            "seed": self.seed,
            "params": self.params.model_dump(mode="json"),
            "types": [
                {"name": t.name, "booleans": list(t.booleans), "numbers": list(t.numbers)} for t in self.types
            ],
            "operations": [{"name": o.name, "arity": o.arity} for o in self.operations],
            "laws": [law_to_json(law) for law in self.laws],
            "law_text": self.law_text(),
            "objects": [{"name": n, "type": t, "values": dict(v)} for n, t, v in self.objects],
            "rejected": self.rejected,
            "design": self.design,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Domain:
        if data.get("generator") != GENERATOR or data.get("version") != GENERATOR_VERSION:
            raise ValueError(
                f"domain: made by {data.get('generator')} version {data.get('version')}, "
                f"this is {GENERATOR} version {GENERATOR_VERSION}"
            )
        domain = cls(
            seed=str(data["seed"]),
            params=DomainParams.model_validate(data["params"]),
            types=tuple(
                ObjectType(t["name"], tuple(t["booleans"]), tuple(t["numbers"])) for t in data["types"]
            ),
            operations=tuple(Operation(o["name"], int(o["arity"])) for o in data["operations"]),
            laws=_laws(data),
            objects=tuple(
                (o["name"], o["type"], tuple((k, _value(v)) for k, v in o["values"].items()))
                for o in data["objects"]
            ),
            rejected=int(data.get("rejected", 0)),
            design=int(data.get("design", 0)),
        )
        if "law_text" in data and list(data["law_text"]) != domain.law_text():
            raise ValueError("domain: its laws no longer read as the text stored with them")
        return domain

    def canonical(self) -> str:
        """The domain as canonical JSON text (what "byte for byte" compares)."""
        return json.dumps(self.to_json(), sort_keys=True, separators=(",", ":"))


def _laws(data: Mapping[str, Any]) -> tuple[Law, ...]:
    """A domain's laws from its JSON: the syntax trees, or (an item's hidden part) their text."""
    if "laws" in data:
        return tuple(law_from_json(x) for x in data["laws"])
    return parse_theory("\n".join(data["law_text"])) if data["law_text"] else ()


def _value(v: Any) -> Value:
    return v if isinstance(v, bool) else float(v)


def thresholds(params: DomainParams) -> range:
    """The whole numbers a threshold law may compare with: strictly inside the initial values' range, with
    room on both sides (every number starts within ``low..low+2`` on one object of its type and within
    ``high-2..high`` on another, so both sides of every threshold are in the lab from the start)."""
    return range(params.low + 3, params.high - 2)


# -- names --------------------------------------------------------------------------------------------------
_ONSETS = (
    "b", "bl", "br", "d", "dr", "f", "fl", "fr", "g", "gl", "gr", "j", "k", "kr", "l", "m", "n", "p",
    "pl", "pr", "qu", "s", "sk", "sl", "sn", "sp", "spl", "st", "str", "t", "tr", "v", "w", "z", "zw",
)  # fmt: skip
_VOWELS = ("a", "e", "i", "o", "u", "oo", "ee", "ai", "ou")
_CODAS = ("", "", "", "b", "g", "m", "n", "p", "r", "rb", "rk", "rp", "x", "z", "zz")
_ENDINGS = {
    "type": ("le", "et", "ix", "on", "ock", "ump", "er"),
    "boolean": ("istic", "ous", "ish", "y", "ent", "ic", "ative"),
    "number": ("osity", "itude", "ance", "ness", "ion", "ity", "age"),
    "operation": ("ificate", "ize", "le", "ate", "inate", "ify", "ulate"),
}


@cache
def _english() -> frozenset[str]:
    from wordfreq import top_n_list

    return frozenset(top_n_list("en", 300_000))


def is_english(word: str) -> bool:
    """Whether ``word`` is an English word by wordfreq's list (its 300,000 most frequent) or frequency."""
    from wordfreq import zipf_frequency

    return word in _english() or zipf_frequency(word, "en") > 0


def nonsense(rng: random.Random, kind: str, taken: set[str]) -> str:
    """A new pronounceable nonsense name for a ``kind`` of thing (``type``, ``boolean``, ``number``,
    ``operation``): one or two syllables and an ending that sounds like its kind, no English word, none taken,
    and none a prefix of another (so names never read into each other)."""
    for _ in range(10_000):
        syllables = rng.choice((1, 2, 2))
        stem = "".join(
            rng.choice(_ONSETS) + rng.choice(_VOWELS) + (rng.choice(_CODAS) if k == syllables - 1 else "")
            for k in range(syllables)
        )
        name = stem + rng.choice(_ENDINGS[kind])
        if not 5 <= len(name) <= 12 or name in taken or is_english(name) or is_english(stem):
            continue
        if any(name.startswith(t) or t.startswith(name) for t in taken):
            continue
        taken.add(name)
        return name
    raise RuntimeError("no new name found")  # pragma: no cover - the space is vast


# -- drawing a domain ---------------------------------------------------------------------------------------
def draw_domain(params: DomainParams, seed: str, rng: random.Random, rejected: int) -> Domain | None:
    taken: set[str] = set()
    types = tuple(
        ObjectType(
            nonsense(rng, "type", taken),
            tuple(nonsense(rng, "boolean", taken) for _ in range(params.booleans)),
            tuple(nonsense(rng, "number", taken) for _ in range(params.numbers)),
        )
        for _ in range(params.types)
    )
    operations = tuple(
        Operation(nonsense(rng, "operation", taken), arity)
        for arity in [1] * params.unary + [2] * params.binary
    )
    laws = _draw_laws(params, types, operations, rng)
    if laws is None:
        return None
    objects = tuple(
        (f"{t.name}-{k}", t.name, tuple((p, values[p]) for p in t.properties))
        for t in types
        for k, values in enumerate(_starting_values(params, t, laws, rng), start=1)
    )
    return Domain(seed, params, types, operations, laws, objects, rejected)


def _starting_values(
    params: DomainParams, t: ObjectType, laws: Sequence[Law], rng: random.Random
) -> list[dict[str, Value]]:
    """The starting values of a type's objects, laid out so that experiments on them can tell laws apart.

    Objects come in pairs that share every boolean: the first pair one random pattern, the second its
    complement (so every condition is met, and failed, by a pair), further objects at random. Within a pair every
    number is low (``low..low+2``) on one object and high (``high-2..high``) on the other, below and above every
    threshold with the same booleans, which refutes the thresholds a boolean does not follow. Each threshold law
    on the type adds a pair pinning its constant: its number at the two whole numbers on either side of it.
    """
    lo, hi = params.low, params.high

    def pattern() -> dict[str, Value]:
        return {b: rng.random() < 0.5 for b in t.booleans}

    def anyone() -> dict[str, Value]:
        return {**pattern(), **{n: float(rng.randint(lo, hi)) for n in t.numbers}}

    def pair(flags: dict[str, Value]) -> list[dict[str, Value]]:
        first: dict[str, Value] = dict(flags)
        second: dict[str, Value] = dict(flags)
        for n in t.numbers:
            low, high = float(rng.randint(lo, lo + 2)), float(rng.randint(hi - 2, hi))
            first[n], second[n] = (low, high) if rng.random() < 0.5 else (high, low)
        return [first, second]

    base = pattern()
    out = pair(base) + pair({b: not v for b, v in base.items()})
    while len(out) < params.objects:
        out.append(anyone())
    out = out[: params.objects]
    for law in laws:
        if kind_of(law) != "threshold" or law.target.prop not in t.booleans:
            continue
        compare = law.value
        if not isinstance(compare, Compare) or not isinstance(compare.left, Ref):
            continue
        q, c = compare.left.prop, int(compare.right.value) if isinstance(compare.right, Num) else lo
        sides = (c, c + 1) if compare.op == ">" else (c - 1, c)
        out += [{**anyone(), q: float(value)} for value in sides]
    rng.shuffle(out)
    return out


def slots_of(
    domain_types: Sequence[ObjectType], op: Operation, cross: bool = True
) -> list[tuple[Slot, tuple[str, ...]]]:
    """Every slot of ``op``: for each assignment of types to its objects, each property of each object."""
    out = []
    for types in itertools.product(domain_types, repeat=op.arity):
        names = tuple(t.name for t in types)
        for arg, t in enumerate(types):
            other = types[1 - arg] if op.arity == 2 and cross else None
            others = (other.numbers, other.booleans) if other is not None else ((), ())
            slots = [
                Slot(op.name, op.arity, arg, p, p in t.booleans, t.numbers, t.booleans, *others)
                for p in t.properties
            ]
            out += [(slot, names) for slot in slots]
    return out


def _draw_laws(
    params: DomainParams, types: Sequence[ObjectType], operations: Sequence[Operation], rng: random.Random
) -> tuple[Law, ...] | None:
    # one law per (operation, object, property); a property belongs to one type, so per (op, arg, prop)
    candidates: dict[tuple[str, int, str], tuple[Slot, bool]] = {}
    for op in operations:
        for slot, _names in slots_of(types, op, params.cross):
            candidates.setdefault((op.name, slot.arg, slot.prop), (slot, slot.is_bool))
    keys = sorted(candidates)
    rng.shuffle(keys)
    chosen: list[Law] = []
    for key in keys:
        if len(chosen) == params.laws:
            break
        slot, is_bool = candidates[key]
        kinds = [k for k in params.kinds if k in (BOOLEAN_KINDS if is_bool else NUMBER_KINDS)]
        if not kinds:
            continue
        kind = rng.choice(kinds)
        pool = [
            law
            for law in slot_laws(slot, (kind,), thresholds(params), conditional=False, cross=params.cross)
            if kind_of(law) == kind
        ]
        if not pool:
            continue
        law = rng.choice(pool)
        if params.conditional and rng.random() < params.conditional:
            conditioned = slot_laws(slot, (kind,), thresholds(params), conditional=True, cross=params.cross)
            conditioned = [c for c in conditioned if c.condition is not None and c.value == law.value]
            if conditioned:
                law = rng.choice(conditioned)
        chosen.append(law)
    if len(chosen) < params.laws:
        return None
    if any(k in NUMBER_KINDS for k in params.kinds) and all(kind_of(c) in BOOLEAN_KINDS for c in chosen):
        return None  # every domain has a law on numbers when its kinds allow one
    return _ordered(chosen)


def _ordered(laws: Sequence[Law]) -> tuple[Law, ...] | None:
    """The laws in their canonical order (by operation; number laws before booleans), or None when they break
    the grammar's constraints: a law reading a number another law of its operation changes, or a condition
    reading a property its operation changes."""
    out: list[Law] = []
    for op in sorted({law.op for law in laws}):
        group = [law for law in laws if law.op == op]
        written = {(law.target.arg, law.target.prop) for law in group}
        for law in group:
            reads = {(r.arg, r.prop) for r in refs(law.value)} - {(law.target.arg, law.target.prop)}
            threshold = kind_of(law) == "threshold"
            if not threshold and reads & written:
                return None
            if law.condition is not None and {(r.arg, r.prop) for r in refs(law.condition)} & written:
                return None
        out += sorted(group, key=lambda law: (kind_of(law) in BOOLEAN_KINDS, format_law(law)))
    return tuple(out)


# -- identifiability (the search for a design: wason.tasks.lab.drawing) ---------------------------------------
def law_problems(domain: Domain) -> list[str]:
    """Laws outside the grammar, and laws that change nothing on any object of the lab."""
    problems: list[str] = []
    things = domain.things()
    prop_type = {p: t.name for t in domain.types for p in t.properties}
    for law in domain.laws:
        text = format_law(law)
        if kind_of(law) == "other":
            problems.append(f"{text}: not a law of the grammar")
            continue
        # a lab object on which the law changes its target
        fired = any(
            apply([law], law.op, [t.copy() for t in objs])
            for objs in itertools.permutations(things, law.arity)
            if objs[law.target.arg].type == prop_type.get(law.target.prop)
        )
        if not fired:
            problems.append(f"{text}: changes nothing on any object of the lab")
    return problems


BUDGETS: dict[str, int] = {"easy": 20, "medium": 60, "hard": 160, "custom": 160}
"""Experiments a player may run, by difficulty."""


def difficulty_of(params: DomainParams) -> str:
    """The preset ``params`` are (noise aside), or ``custom``."""
    for name, preset in PRESETS.items():
        if preset == params.model_copy(update={"noise": 0.0}):
            return name
    return "custom"


# -- fresh objects, held-out experiments, probes ------------------------------------------------------------
def fresh_thing(domain: Domain, type_name: str, name: str, rng: random.Random, wide: bool = False) -> Thing:
    """A new object of a type with values drawn like the lab's (``wide``: from a wider range, with negatives
    and halves, for probes)."""
    t = domain.type_named(type_name)
    values: dict[str, Value] = {b: rng.random() < 0.5 for b in t.booleans}
    lo, hi = domain.params.low, domain.params.high
    for n in t.numbers:
        if wide:
            span = hi - lo
            values[n] = rng.randint(2 * (lo - span), 2 * (hi + span)) / rng.choice((1, 1, 2))
        else:
            values[n] = float(rng.randint(lo, hi))
    return Thing(name, type_name, values)


@dataclass(frozen=True)
class Trial:
    """One experiment on fresh objects: the operation and its objects as they are before it."""

    op: str
    things: tuple[Thing, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "op": self.op,
            "objects": [{"name": t.name, "type": t.type, "values": dict(t.values)} for t in self.things],
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Trial:
        return cls(
            str(data["op"]),
            tuple(
                Thing(o["name"], o["type"], {k: _value(v) for k, v in o["values"].items()})
                for o in data["objects"]
            ),
        )

    def outcome(self, laws: Sequence[Law]) -> list[Thing]:
        """The objects after the operation under ``laws`` (copies)."""
        things = [t.copy() for t in self.things]
        apply(laws, self.op, things)
        return things


LIVELY_DRAWS = 50
"""Draws of the fresh objects of a test experiment on a lively operation and types (:func:`trials`) before one that
changes nothing is kept: a law there may act only on some values (a condition, a set to what is already there),
and the bound keeps drawing finite where no values make it act."""


def trials(domain: Domain, n: int, seed: str, wide: bool = False, prefix: str = "new") -> list[Trial]:
    """``n`` experiments on fresh objects, for the prediction test (``wide``: the probe set of the exact
    equivalence check). Half of them (rounded up) use an operation and types on which some law can act (its
    target, value and condition all read properties of those types), with fresh objects drawn again (up to
    :data:`LIVELY_DRAWS` times, from the same seeded stream) until the experiment changes something, so the test
    is not won by predicting that nothing happens; the rest are drawn uniformly."""
    rng = random.Random(f"{GENERATOR}|trials|{seed}|{wide}")
    combos = [
        (op, tuple(t.name for t in types))
        for op in domain.operations
        for types in itertools.product(domain.types, repeat=op.arity)
    ]
    prop_type = {p: t.name for t in domain.types for p in t.properties}

    def active(op: Operation, names: tuple[str, ...]) -> bool:
        # a law whose condition reads a property the objects lack never fires on them
        return any(
            law.op == op.name
            and all(
                prop_type.get(r.prop) == names[r.arg]
                for r in [law.target, *refs(law.value), *refs(law.condition)]
                if r.arg < len(names)
            )
            for law in domain.laws
        )

    lively = [c for c in combos if active(*c)]
    out: list[Trial] = []
    counter = 0
    for k in range(n):
        must_act = k % 2 == 0 and bool(lively)
        pool = lively if must_act else combos
        op, names = pool[rng.randrange(len(pool))]
        labels = [f"{prefix}-{type_name}-{counter + i}" for i, type_name in enumerate(names, start=1)]
        counter += len(names)
        for _ in range(LIVELY_DRAWS if must_act else 1):
            things = tuple(
                fresh_thing(domain, type_name, label, rng, wide)
                for type_name, label in zip(names, labels, strict=True)
            )
            if not must_act or apply(domain.laws, op.name, [t.copy() for t in things]):
                break
        out.append(Trial(op.name, things))
    return out
