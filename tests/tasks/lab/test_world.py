"""Domains from a seed: deterministic to the byte, valid, named in nonsense, identifiable within the budget."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest

from wason.tasks.lab.drawing import generate, identifiability_problems
from wason.tasks.lab.grammar import BOOLEAN_KINDS, kind_of
from wason.tasks.lab.laws import Arith, Law, Num, Ref, refs
from wason.tasks.lab.world import (
    BUDGETS,
    PRESETS,
    Domain,
    DomainParams,
    ObjectType,
    Operation,
    is_english,
    trials,
)


@pytest.mark.parametrize("difficulty", list(PRESETS))
def test_same_seed_same_domain_byte_for_byte(difficulty: str) -> None:
    a = generate(PRESETS[difficulty], "7|1")
    b = generate(PRESETS[difficulty], "7|1")
    assert a.canonical() == b.canonical()
    assert generate(PRESETS[difficulty], "7|2").canonical() != a.canonical()


def test_same_domain_in_a_new_process() -> None:
    code = (
        "from wason.tasks.lab.drawing import generate; from wason.tasks.lab.world import PRESETS; "
        "print(generate(PRESETS['hard'], '3|4').canonical())"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == generate(PRESETS["hard"], "3|4").canonical()


def test_domain_records_generator_version_seed_and_params() -> None:
    data = generate(PRESETS["medium"], "x").to_json()
    assert data["generator"] == "wason.lab" and data["version"] == 2 and data["seed"] == "x"
    assert DomainParams.model_validate(data["params"]) == PRESETS["medium"]
    assert data["law_text"] and all(line.startswith("on ") for line in data["law_text"])


def test_json_round_trip_and_refusals() -> None:
    domain = generate(PRESETS["hard"], 11)
    again = Domain.from_json(json.loads(domain.canonical()))
    assert again.canonical() == domain.canonical()
    data = domain.to_json()
    with pytest.raises(ValueError, match="version"):
        Domain.from_json({**data, "version": 99})
    with pytest.raises(ValueError, match="no longer read"):
        Domain.from_json({**data, "law_text": ["on x(a): a.y = 1"] * len(data["law_text"])})


@pytest.mark.parametrize("difficulty", list(PRESETS))
def test_generated_domains_are_valid(difficulty: str) -> None:
    params = PRESETS[difficulty]
    for k in range({"easy": 40, "medium": 30, "hard": 12}[difficulty]):
        domain = generate(params, f"valid|{k}")
        assert identifiability_problems(domain) == []
        assert len(domain.laws) == params.laws
        assert len(domain.types) == params.types and len(domain.operations) == params.unary + params.binary
        assert all(kind_of(law) in params.kinds for law in domain.laws)
        # one law per (operation, object, property)
        slots = [(law.op, law.target.arg, law.target.prop) for law in domain.laws]
        assert len(set(slots)) == len(slots)
        arity = {o.name: o.arity for o in domain.operations}
        for law in domain.laws:
            assert law.arity == arity[law.op]
            assert all(r.arg < law.arity for r in [law.target, *refs(law.value), *refs(law.condition)])
        # within an operation: number laws before booleans; nothing reads what another law of it writes,
        # except a threshold reading numbers; conditions read nothing the operation writes
        for op in arity:
            group = [law for law in domain.laws if law.op == op]
            kinds = [kind_of(law) in BOOLEAN_KINDS for law in group]
            assert kinds == sorted(kinds)
            written = {(law.target.arg, law.target.prop) for law in group}
            for law in group:
                reads = {(r.arg, r.prop) for r in refs(law.value)} - {(law.target.arg, law.target.prop)}
                if kind_of(law) != "threshold":
                    assert not reads & written
                assert not {(r.arg, r.prop) for r in refs(law.condition)} & written
        # every boolean starts both ways among a type's objects
        for t in domain.types:
            objects = [dict(v) for _, type_name, v in domain.objects if type_name == t.name]
            for b in t.booleans:
                assert {o[b] for o in objects} == {True, False}
        if any(k in ("add", "scale", "interact") for k in params.kinds):
            assert any(kind_of(law) not in BOOLEAN_KINDS for law in domain.laws)


def test_names_are_pronounceable_nonsense() -> None:
    seen: set[str] = set()
    for k in range(20):
        domain = generate(PRESETS["hard"], f"names|{k}")
        names = [t.name for t in domain.types] + [o.name for o in domain.operations]
        names += [p for t in domain.types for p in t.properties]
        assert len(set(names)) == len(names)
        for name in names:
            assert re.fullmatch(r"[a-z]{5,12}", name), name
            assert re.search(r"[aeiou]", name)
            assert not is_english(name), name
            others = [n for n in names if n != name]
            assert not any(o.startswith(name) for o in others)
        seen |= set(names)
    assert len(seen) > 200  # names vary with the seed
    assert is_english("table") and is_english("zebra")  # the check does find real words


def test_params_are_validated_naming_the_field() -> None:
    with pytest.raises(ValueError, match="kinds"):
        DomainParams(kinds=("add", "warp"))
    with pytest.raises(ValueError, match="unary, binary"):
        DomainParams(unary=0, binary=0)
    with pytest.raises(ValueError, match="low, high"):
        DomainParams(low=3, high=8)


def test_unidentifiable_domains_are_rejected() -> None:
    base = generate(PRESETS["easy"], "id")
    t = base.types[0]
    number = t.numbers[0]
    op = base.operations[0].name
    identity = Law(op, 1, Ref(0, number), Arith("*", Ref(0, number), Num(1.0)))
    broken = Domain(base.seed, base.params, base.types, base.operations, (identity,), base.objects)
    assert any("changes nothing" in p for p in identifiability_problems(broken))
    assert any("no design of at most 1 experiments" in p for p in identifiability_problems(base, budget=1))
    assert 0 < base.design <= BUDGETS["easy"]


def test_impossible_params_are_refused_in_one_line() -> None:
    # one operation on one number cannot hold seven laws
    params = DomainParams(types=1, booleans=0, numbers=1, unary=1, binary=0, laws=7, kinds=("add",))
    with pytest.raises(ValueError, match="no identifiable domain"):
        generate(params, 0)


def test_trials_are_deterministic_and_mostly_lively() -> None:
    domain = generate(PRESETS["medium"], "t")
    a = trials(domain, 20, "s")
    b = trials(domain, 20, "s")
    assert [x.to_json() for x in a] == [x.to_json() for x in b]
    assert [x.to_json() for x in trials(domain, 20, "other")] != [x.to_json() for x in a]
    moved = [any(o != t for o, t in zip(x.outcome(domain.laws), x.things, strict=True)) for x in a]
    assert all(moved[::2])  # half are drawn where a law acts, redrawn until they change something
    names = [t.name for x in a for t in x.things]
    assert len(set(names)) == len(names) and all(n.startswith("new-") for n in names)


def test_the_lively_half_is_drawn_where_a_law_can_fire_and_does() -> None:
    """A law conditioned on a property of the actor counts only where the actor has it (on a zorple acting on a
    zorple it never fires), and each experiment of the lively half is drawn again until it changes something
    (here, until the actor glows)."""
    zorple = ObjectType("zorple", ("shiny",), ("zib",))
    blick = ObjectType("blick", ("glow",), ("flurb",))
    law = Law("zap", 2, Ref(1, "zib"), Arith("+", Ref(1, "zib"), Num(1.0)), condition=Ref(0, "glow"))
    params = DomainParams(types=2, unary=0, binary=1, laws=1)
    domain = Domain("hand", params, (zorple, blick), (Operation("zap", 2),), (law,), ())
    test = trials(domain, 40, "s")
    assert [x.to_json() for x in test] == [x.to_json() for x in trials(domain, 40, "s")]
    for trial in test[::2]:
        assert [t.type for t in trial.things] == ["blick", "zorple"]
        assert trial.outcome(domain.laws) != list(trial.things)
    assert {tuple(t.type for t in x.things) for x in test[1::2]} != {("blick", "zorple")}  # the rest: any
