"""The theory reader: the law language read back exactly, hostile text refused in one line, theories checked
against a domain and compared with the hidden laws."""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wason.tasks.lab import laws as laws_module
from wason.tasks.lab.drawing import generate
from wason.tasks.lab.grammar import slot_laws
from wason.tasks.lab.laws import (
    Arith,
    Bool,
    Compare,
    Expr,
    Law,
    Logic,
    Neg,
    Not,
    Num,
    Ref,
    format_expr,
    format_law,
    format_theory,
)
from wason.tasks.lab.theory import (
    MAX_DEPTH,
    Equivalence,
    TheoryError,
    check_theory,
    equivalence,
    parse_theory,
    probe_set,
    read_theory,
    theory_accuracy,
)
from wason.tasks.lab.world import PRESETS, Domain, slots_of, trials


@pytest.fixture(scope="module")
def medium() -> Domain:
    return generate(PRESETS["medium"], "theory|1")


@pytest.fixture(scope="module")
def hard() -> Domain:
    return generate(PRESETS["hard"], "theory|2")


# -- reading ------------------------------------------------------------------------------------------------
def test_every_docstring_example_parses() -> None:
    doc = laws_module.__doc__ or ""
    examples = [line.strip() for line in doc.splitlines() if line.strip().startswith("on ") and ":" in line]
    assert len(examples) == 3
    theory = parse_theory("\n".join(examples))
    assert theory[0] == Law(
        "splorficate",
        1,
        Ref(0, "zibblosity"),
        Arith("*", Ref(0, "zibblosity"), Num(2.0)),
        Ref(0, "quizzleplistic"),
    )
    assert theory[1] == Law("wuzzle", 2, Ref(1, "flurb"), Arith("+", Ref(1, "flurb"), Ref(0, "zibblosity")))
    assert theory[2] == Law("wuzzle", 2, Ref(1, "glowing"), Compare(">", Ref(1, "flurb"), Num(12.0)))


def test_precedence() -> None:
    (law,) = parse_theory("on f(a): a.x = not a.p or a.q and a.y + 2 * -a.z < 3")
    assert law.value == Logic(
        "or",
        Not(Ref(0, "p")),
        Logic(
            "and",
            Ref(0, "q"),
            Compare("<", Arith("+", Ref(0, "y"), Arith("*", Num(2.0), Neg(Ref(0, "z")))), Num(3.0)),
        ),
    )
    (law,) = parse_theory("on f(a): a.x = a.x - 1 - 2 / 4 / 2")
    assert law.value == Arith(
        "-", Arith("-", Ref(0, "x"), Num(1.0)), Arith("/", Arith("/", Num(2.0), Num(4.0)), Num(2.0))
    )
    (law,) = parse_theory("on f(a): a.p = not not a.x >= 2.5e1")
    assert law.value == Not(Not(Compare(">=", Ref(0, "x"), Num(25.0))))


def test_any_parameter_names_fences_bullets_semicolons_comments() -> None:
    text = """```
# my theory
- on wuzzle(actor, target): target.flurb = target.flurb + actor.zib  # the actor's zib adds up
* on poke(thing): thing.glow = TRUE; on poke(thing): thing.n = .5 * thing.n

```"""
    assert parse_theory(text) == (
        Law("wuzzle", 2, Ref(1, "flurb"), Arith("+", Ref(1, "flurb"), Ref(0, "zib"))),
        Law("poke", 1, Ref(0, "glow"), Bool(True)),
        Law("poke", 1, Ref(0, "n"), Arith("*", Num(0.5), Ref(0, "n"))),
    )


def test_round_trip_of_every_grammar_law_on_generated_domains() -> None:
    count = 0
    for difficulty in ("easy", "medium", "hard"):
        for seed in range(1):
            domain = generate(PRESETS[difficulty], f"rt|{seed}")
            assert parse_theory(format_theory(domain.laws)) == domain.laws
            for op in domain.operations:
                for slot, _names in slots_of(domain.types, op):
                    every = slot_laws(slot)
                    for start in range(0, len(every), 60):
                        theory = tuple(every[start : start + 60])
                        assert parse_theory(format_theory(theory)) == theory
                        count += len(theory)
    assert count > 1000


_props = st.sampled_from(["x", "y", "glow"])
_numbers = st.one_of(
    st.integers(-1000, 1000).map(float), st.integers(-2000, 2000).map(lambda k: k / 4), st.just(1.25e9)
)


def _extend(children: st.SearchStrategy[Expr]) -> st.SearchStrategy[Expr]:
    return st.one_of(
        st.builds(Arith, st.sampled_from(["+", "-", "*", "/"]), children, children),
        st.builds(Compare, st.sampled_from(["<", "<=", ">", ">=", "==", "!="]), children, children),
        st.builds(Logic, st.sampled_from(["and", "or"]), children, children),
        st.builds(Not, children),
        # -3 is written for Neg(Num(3)) and reads back as Num(-3): the same value, another tree
        st.builds(Neg, children.filter(lambda e: not isinstance(e, Num))),
    )


_exprs: st.SearchStrategy[Expr] = st.recursive(
    st.one_of(_numbers.map(Num), st.booleans().map(Bool), st.builds(Ref, st.integers(0, 1), _props)),
    _extend,
    max_leaves=12,
)


@settings(max_examples=300, deadline=None)
@given(_exprs, st.one_of(st.none(), _exprs), st.integers(0, 1))
def test_round_trip_of_random_expressions(value: Expr, condition: Expr | None, arg: int) -> None:
    law = Law("blorp", 2, Ref(arg, "x"), value, condition)
    assert parse_theory(format_law(law)) == (law,)


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=200))
def test_arbitrary_text_is_read_or_refused_in_one_line(text: str) -> None:
    try:
        parse_theory(text)
    except TheoryError as exc:
        assert "\n" not in str(exc) and str(exc)


HOSTILE = [
    "__import__('os').system('rm -rf /')",
    "on f(a): a.x = __import__('os')",
    "on f(a): a.x = a.__class__",
    "on f(a): a.__class__ = 1",
    "on f(a): a.x = (lambda: 1)()",
    "on f(a): a.x = lambda q: q",
    "import os",
    "def f(a): return a.x",
    "on f(a): a.x = a.x.y",
    "on f(a): a.x = a.x()",
    "on f(a): a.x = a['x']",
    "on f(a): a.x = " + "(" * 10_000 + "1" + ")" * 10_000,
    "on f(a): a.x = " + "-" * 10_000 + "1",
    "on f(a): a.x = " + "(" * 100 + "1" + ")" * 100,
    "on f(a): a.x = " + "-" * 200 + "a.x",
    "on f(a): a.p = " + "not " * 5_000 + "a.p",
    "on f(a): a.x = " + " + ".join(["1"] * 300),
    "on f(a): a.x = 1" * 70_000,
    "x" * 1_000_000,
    "on f(a): a.x = 1\x00",
    "on f\x00(a): a.x = 1",
    "on f(a): a.x = \u0661\u0662",
    "on f(a): a.x = ４２",
    "on f(a): a.x = 1e999",
    "on f(a): a.x = 1e13",
    "on f(a): a.x = -2e12",
    "on f(a): a.x = 1" + "0" * 50,
    "on f(a): a.x = 1.2.3",
    "on f(a): a.x = 2a",
    "on f(a) a.x = 1",
    "on f(a): a.x = 1 = 2",
    "on f(a): a.x == 1",
    "on f(a, b): c.x = 1",
    "on f(a, b): a.x = c.y",
    "on f(a, b, c): a.x = 1",
    "",
    "   \n\n",
    "# only a comment\n# and another",
    "on f(a, a): a.x = 1",
    "on f(): a.x = 1",
    "on f(a): a.x =",
    "on f(a): a.x = 1 if",
    "on f(a): a.x = 1 < 2 < 3",
    "on f(a): a.x = (1",
    "on f(a): a.x = 1)",
    "on (a): a.x = 1",
    "on on(a): a.x = 1",
    "on f(if): if.x = 1",
    "f(a): a.x = 1",
    "a.x = 1",
    "on f(a): 3 = a.x",
    "on f(a): a.x = y",
    "on f(a): a.x = a.x if a.p = true",
    "on f(a): a.x = a.x ** 2",
    "on f(a): a.x = a.x % 2",
    "on f(a): a.x = a.x && true",
    "on f(a): a.x = 'text'",
    "on f(a): a.x = a.x\u2028+ 1",
    "on f(a): a.x = 0x10",
    "on f(a): a.x = 1_000",
    "on f(a): a.x = nan",
    "on f(a): a.x = inf",
    "on f(a): a.x = 1\non f(a): a.y = ",
    "\n".join(["on f(a): a.x = 1"] * 61),
    "on " + "f" * 100 + "(a): a.x = 1",
    "on f(a): a.x = 1 on f(a): a.y = 2",
    "on f(a): a." + "x" * 65 + " = 1",
]


def test_hostile_corpus_is_large() -> None:
    assert len(HOSTILE) >= 40


@pytest.mark.parametrize("text", HOSTILE, ids=[f"h{k}" for k in range(len(HOSTILE))])
def test_hostile_or_malformed_text_is_refused_in_one_line(text: str) -> None:
    with pytest.raises(TheoryError) as caught:
        parse_theory(text)
    message = str(caught.value)
    assert message and "\n" not in message and len(message) < 300
    assert re.match(r"(line \d+|theory): ", message), message


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("on f(a, b): c.x = 1", "line 1: unknown parameter 'c' (the law's objects are a, b)"),
        ("\n\non f(p, q): q.x = 1 < 2 < 3", "line 3: comparisons do not chain"),
        ("on f(a): a.x = 1e999", "line 1: the number '1e999' is out of range"),
        ("on f(a, a): a.x = 1", "must differ"),
        ("on f(a, b, c): a.x = 1", "one or two objects"),
        ("on f(a) a.x = 1", "expected ':'"),
        ("on f(a): a.x = " + "(" * 100 + "1" + ")" * 100, f"more than {MAX_DEPTH} levels"),
        ("on f(a): a.x = " + "(" * 5_000 + "1" + ")" * 5_000, "more than 400 tokens"),
        ("on f(a): a.x = 1 = 2", "compare with '=='"),
    ],
)
def test_errors_say_where_and_what(text: str, words: str) -> None:
    with pytest.raises(TheoryError, match=re.escape(words)):
        parse_theory(text)


def test_depth_limit_is_exact() -> None:
    ok = "on f(a): a.x = " + "(" * (MAX_DEPTH - 2) + "a.x" + ")" * (MAX_DEPTH - 2)
    assert parse_theory(ok)[0].value == Ref(0, "x")
    long_sum = "on f(a): a.x = a.x" + " + 1" * MAX_DEPTH
    with pytest.raises(TheoryError, match="nested"):
        parse_theory(long_sum)


# -- checking -----------------------------------------------------------------------------------------------
def _names(domain: Domain) -> dict[str, str]:
    unary = next(o.name for o in domain.operations if o.arity == 1)
    binary = next(o.name for o in domain.operations if o.arity == 2)
    t = domain.types[0]
    return {"un": unary, "bin": binary, "n": t.numbers[0], "m": t.numbers[1], "p": t.booleans[0]}


def test_the_hidden_laws_check_clean(medium: Domain, hard: Domain) -> None:
    for domain in (medium, hard):
        assert check_theory(domain.laws, domain) == []
        assert read_theory(format_theory(domain.laws), domain) == domain.laws


@pytest.mark.parametrize(
    ("template", "words"),
    [
        ("on zzzify(a): a.{n} = 1", "unknown operation 'zzzify'"),
        ("on {un}(a, b): a.{n} = 1", "acts on 1 object, not 2"),
        ("on {bin}(a): a.{n} = 1", "acts on 2 objects, not 1"),
        ("on {un}(a): a.nothing = 1", "unknown property 'nothing'"),
        ("on {un}(a): a.{n} = a.nothing + 1", "unknown property 'nothing'"),
        ("on {un}(a): a.{p} = 3", "sets the boolean property '{p}' to a number"),
        ("on {un}(a): a.{n} = true", "sets the number property '{n}' to a boolean"),
        ("on {un}(a): a.{n} = 1 if a.{m}", "condition is a number"),
        ("on {un}(a): a.{n} = 1 if a.{m} + 1", "condition is a number"),
        ("on {un}(a): a.{p} = a.{p} == 3", "'==' compares a boolean with a number"),
        ("on {un}(a): a.{p} = a.{p} < a.{n}", "'<' applied to a boolean"),
        ("on {un}(a): a.{n} = a.{n} + a.{p}", "'+' applied to a boolean"),
        ("on {un}(a): a.{p} = not a.{n}", "'not' applied to a number"),
        ("on {un}(a): a.{p} = a.{p} and a.{n}", "'and' applied to a number"),
        ("on {un}(a): a.{n} = -a.{p}", "'-' applied to a boolean"),
    ],
)
def test_check_catches_each_kind_of_mistake(medium: Domain, template: str, words: str) -> None:
    names = _names(medium)
    theory = parse_theory(template.format(**names))
    problems = check_theory(theory, medium)
    assert problems, template
    assert any(words.format(**names) in p for p in problems), problems
    assert all("\n" not in p and p.startswith("law 1 (") for p in problems)
    with pytest.raises(TheoryError, match=re.escape(words.format(**names))):
        read_theory(template.format(**names), medium)


def test_a_law_on_a_type_the_operation_never_meets_is_allowed(medium: Domain) -> None:
    names = _names(medium)
    other = medium.types[1]
    text = f"on {names['un']}(a): a.{other.numbers[0]} = a.{other.numbers[0]} + a.{names['n']}"
    assert check_theory(parse_theory(text), medium) == []


# -- equivalence and accuracy -------------------------------------------------------------------------------
def _mutated(domain: Domain) -> tuple[Law, ...]:
    """The hidden laws with the first law's first constant changed."""

    def bump(e: Expr) -> tuple[Expr, bool]:
        if isinstance(e, Num):
            return Num(e.value + 1), True
        if isinstance(e, Neg | Not):
            inner, done = bump(e.operand)
            return type(e)(inner), done
        if isinstance(e, Arith | Compare | Logic):
            left, done = bump(e.left)
            if done:
                return type(e)(e.op, left, e.right), True  # type: ignore[arg-type]
            right, done = bump(e.right)
            return type(e)(e.op, e.left, right), done  # type: ignore[arg-type]
        return e, False

    out = list(domain.laws)
    for k, law in enumerate(out):
        value, done = bump(law.value)
        if done:
            out[k] = Law(law.op, law.arity, law.target, value, law.condition)
            return tuple(out)
    raise AssertionError("no constant to change")


def _with_constant(seed_prefix: str) -> Domain:
    for seed in range(50):
        domain = generate(PRESETS["hard"], f"{seed_prefix}|{seed}")
        if any(isinstance(r, Num) for law in domain.laws for r in _leaves(law.value)):
            return domain
    raise AssertionError("no domain with a constant")


def _leaves(e: Expr) -> list[Expr]:
    if isinstance(e, Neg | Not):
        return _leaves(e.operand)
    if isinstance(e, Arith | Compare | Logic):
        return _leaves(e.left) + _leaves(e.right)
    return [e]


def test_the_truth_is_equivalent_to_itself_and_a_mutation_is_not() -> None:
    domain = _with_constant("eq")
    probes = probe_set(domain)
    same = equivalence(domain.laws, domain.laws, domain, probes)
    assert same == Equivalence(True, len(probes), len(probes), None)
    mutated = _mutated(domain)
    assert mutated != domain.laws
    verdict = equivalence(mutated, domain.laws, domain, probes)
    assert not verdict.equivalent and verdict.agree < verdict.total == len(probes)
    example = verdict.counterexample
    assert example is not None
    json.dumps(example)
    assert example["theory"] != example["truth"]
    assert example["trial"]["op"] in {law.op for law in domain.laws}


def test_an_algebraic_rewrite_is_equivalent(medium: Domain) -> None:
    names = _names(medium)
    doubled = parse_theory(f"on {names['un']}(a): a.{names['n']} = a.{names['n']} * 2")
    added = parse_theory(f"on {names['un']}(p): p.{names['n']} = p.{names['n']} + p.{names['n']}")
    tripled = parse_theory(f"on {names['un']}(a): a.{names['n']} = a.{names['n']} * 3")
    probes = probe_set(medium)
    assert equivalence(added, doubled, medium, probes).equivalent
    assert not equivalence(tripled, doubled, medium, probes).equivalent


def test_probe_set_covers_every_operation_and_assignment_of_types(hard: Domain) -> None:
    probes = probe_set(hard, n=10)
    seen = {(p.op, tuple(t.type for t in p.things)) for p in probes}
    for op in hard.operations:
        for _slot, names in slots_of(hard.types, op):
            assert (op.name, names) in seen
    # the same domain, the same probes
    again = probe_set(hard, n=10)
    assert [p.to_json() for p in again] == [p.to_json() for p in probes]


def test_theory_accuracy(medium: Domain) -> None:
    test = trials(medium, 60, seed="acc")
    assert theory_accuracy(medium.laws, medium.laws, test) == 1.0
    nothing = theory_accuracy((), medium.laws, test)
    assert 0.0 <= nothing < 1.0
    changed = sum(t.outcome(()) != t.outcome(medium.laws) for t in test)
    assert nothing == pytest.approx(1 - changed / len(test))
    assert theory_accuracy(medium.laws, medium.laws, []) == 0.0


def test_format_expr_and_parse_agree_on_a_negative_constant() -> None:
    (law,) = parse_theory("on f(a): a.x = a.x * -1")
    assert law.value == Arith("*", Ref(0, "x"), Num(-1.0))
    assert format_expr(law.value) == "a.x * -1"
