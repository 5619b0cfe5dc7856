"""AIW problem families: a template with named number slots and a solver for the right answer.

Template syntax (parsed by regular expressions, never evaluated):

* ``{name}`` -- the slot value alone;
* ``{name:singular|plural}`` -- the value followed by the noun in the form the records use
  ("1 sister", "3 sisters"); symbolic values (AIW-Param's "M", "X") take the plural, as published.

A family with ``words=True`` writes its counts as English number words ("four brothers", "one sister", up to
"one hundred" so the exaggerated range fits), capitalised at the start of a sentence; with ``article=True`` as
well, a count of one is written "a" ("a sister"), as some published records do. The slots stay ints.

Slots are ints, or single capital letters for the symbolic AIW-Param family. Answers are ints, or for
symbolic slots a normalised expression string such as ``"M + 1"``; a model's symbolic answer is compared with
it algebraically (sympy) when answers are judged, so the string form here only needs to be canonical.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass

Slot = int | str
Slots = Mapping[str, Slot]
Answer = int | str

SLOT_RE = re.compile(r"\{(\w+)(?::([^|{}]+)\|([^{}]+))?\}")

_UNITS = [
    "zero",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
    "thirteen",
    "fourteen",
    "fifteen",
    "sixteen",
    "seventeen",
    "eighteen",
    "nineteen",
]
_TENS = ["twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]
MAX_WORD_NUMBER = 100


def number_word(n: int) -> str:
    """Spell a count in 0..:data:`MAX_WORD_NUMBER` in lower-case English words ("seven", "forty-two", "one
    hundred"); ValueError outside that range."""
    if not 0 <= n <= MAX_WORD_NUMBER:
        raise ValueError(f"no number word for {n}; words cover 0..{MAX_WORD_NUMBER}")
    if n == 100:
        return "one hundred"
    if n < 20:
        return _UNITS[n]
    tens, units = divmod(n, 10)
    return _TENS[tens - 2] + (f"-{_UNITS[units]}" if units else "")


# Reverse lookup for parsing; keys are lower-case, so callers fold the case of sentence-initial words.
WORD_NUMBERS: Mapping[str, int] = {number_word(n): n for n in range(MAX_WORD_NUMBER + 1)}


def add(*terms: Slot) -> Answer:
    """Sum slot values (ints or symbol names): an int when every term is numeric, else a normalised expression
    like ``"M + 1"``, the symbols' names joined by `` + `` with the integer part last."""
    symbols = [t for t in terms if isinstance(t, str)]
    constant = sum(t for t in terms if isinstance(t, int))
    if not symbols:
        return constant
    parts = [*symbols, str(constant)] if constant else symbols
    return " + ".join(parts)


@dataclass(frozen=True)
class Family:
    """One problem family.

    Attributes:
        name: stable identifier ``group.form``; the form distinguishes word orders and phrasings.
        group: the family as the paper names it (coverage is reported per group).
        template: problem text with named slots (see module docstring).
        solver: computes the right answer from the slots.
        symbolic: slots are symbol names (AIW-Param) rather than numbers.
        min_value: smallest value a slot may take (exaggerated-numbers instances use large values).
        consistent: whether slot values describe a possible situation; most families accept any counts,
            but AIW+ totals ("7 nephews and nieces") must at least cover the children already named.
        words: counts are written as number words ("four brothers") instead of digits.
        article: with ``words``, a count of one is written "a" ("a sister") rather than "one".
        published_only: a wording only its published records use, whose text fixes its counts (every sibling
            named) or carries a one-off typo ("by ,Alice"): it renders, parses and solves, but fresh variations
            are not drawn from it.
    """

    name: str
    group: str
    template: str
    solver: Callable[[Slots], Answer]
    symbolic: bool = False
    min_value: int = 0
    consistent: Callable[[Slots], bool] = lambda s: True
    words: bool = False
    article: bool = False
    published_only: bool = False

    @property
    def slots(self) -> tuple[str, ...]:
        """Slot names in order of first appearance."""
        seen: dict[str, None] = {}
        for m in SLOT_RE.finditer(self.template):
            seen.setdefault(m.group(1), None)
        return tuple(seen)


Solver = Callable[[Slots], Answer]


def _count(name: str, singular: str, plural: str | None = None) -> str:
    return "{%s:%s|%s}" % (name, singular, plural or singular + "s")  # noqa: UP031 - braces are template syntax


_FAMILIES: list[Family] = []


def _family(name: str, group: str, template: str, solver: Solver, **kw: object) -> None:
    _FAMILIES.append(Family(name, group, template, solver, **kw))  # type: ignore[arg-type]


def _sum(*terms: str | int) -> Solver:
    """A solver adding the values of the named slots and the int terms (see :func:`add`)."""
    return lambda s: add(*(s[t] if isinstance(t, str) else t for t in terms))


_B, _S = _count("brothers", "brother"), _count("sisters", "sister")
_MALE, _FEMALE = _count("male", "male friend"), _count("female", "female friend")
# The two word orders of a pair of counts: brothers or sisters first, male or female friends first.
_ORDERS = {"bs": (_B, _S), "sb": (_S, _B), "mf": (_MALE, _FEMALE), "fm": (_FEMALE, _MALE)}


def _has(order: str, pronoun: str = "she") -> str:
    first, second = _ORDERS[order]
    return f"{first} and {pronoun} also has {second}"


def _orders(
    group: str, name: str, orders: str, text: str, question: str, solver: Solver, **kw: object
) -> None:
    """A family ``name.ORDER`` for each word order in ``orders``: ``text`` with the counts at its ``{}`` ("he also
    has" after Bob or a boy), then ``question``."""
    pronoun = "he" if text.startswith(("Bob", "A boy")) else "she"
    for order in orders.split():
        template = f"{text.replace('{}', _has(order, pronoun))} {question}"
        _family(f"{name}.{order}", group, template, solver, **kw)


_S1, _B1, _F1 = _sum("sisters", 1), _sum("brothers", 1), _sum("female", 1)
_S_1 = _sum("sisters", -1)  # a sister count seen from a brother includes the sister asked about
_SIBS, _BROTHERS, _SISTERS = _sum("brothers", "sisters"), _sum("brothers"), _sum("sisters")
_ALICE_Q = "How many sisters does Alice's brother have?"
_BOB_Q = "How many brothers does Bob's sister have?"
_SISTER_Q = "How many brothers does Alice's sister have?"
_ALICE = "Alice has {}."
_BOOST, _EXT_G, _FRIENDS, _WORK_G = "AIW female boost", "AIW Ext", "AIW Friends", "AIW Colleagues"

# AIW original, its exaggerated-number instances and AIW-Param share the wording; they differ in slot values.
_orders("AIW", "aiw", "bs sb", _ALICE, _ALICE_Q, _S1)
_orders("AIW exaggerated numbers", "exaggerated", "bs sb", _ALICE, _ALICE_Q, _S1, min_value=50)
_orders("AIW-Param", "param", "bs sb", _ALICE, _ALICE_Q, _S1, symbolic=True)
_orders("AIW-Param", "param.light", "sb", _ALICE, _SISTER_Q, _BROTHERS, symbolic=True)
# Word twins of the original and female-boost wordings (records 3-4, 9-10, 144-177 spell the counts out; 9-10
# write one as "a"). Same groups as the digit forms: only the spelling of the numbers differs.
_orders("AIW", "aiw.words", "bs sb", _ALICE, _ALICE_Q, _S1, words=True)
_orders("AIW", "aiw.words_a", "bs sb", _ALICE, _ALICE_Q, _S1, words=True, article=True)
_orders(_BOOST, "female_boost.words", "bs sb", "Alice is female and has {}.", _ALICE_Q, _S1, words=True)
_orders("AIW Bob", "bob", "bs sb", "Bob has {}.", _BOB_Q, _B1)
# The in-context-learning records (72-73) write a space before the period of the problem to solve; the same
# problems otherwise, kept as published in a group of their own (never drawn for generated variations of AIW).
_ICL_GROUP = "AIW in-context learning (as published)"
_family("aiw.bs.spaced", _ICL_GROUP, f"Alice has {_has('bs')} . {_ALICE_Q}", _S1)
_family("bob.bs.spaced", _ICL_GROUP, f"Bob has {_has('bs', 'he')} . {_BOB_Q}", _B1)
_orders(_BOOST, "female_boost", "bs sb", "Alice is female and has {}.", _ALICE_Q, _S1)
_orders(_BOOST, "female_boost.a_female", "bs", "Alice is a female, she has {}.", _ALICE_Q, _S1)
_orders(_BOOST, "female_boost.girl", "bs sb", "Alice is a girl and has {}.", _ALICE_Q, _S1)
_orders("AIW male boost", "male_boost", "bs sb", "Bob is male and has {}.", _BOB_Q, _B1)

# AIW Light: same family facts, questions that do not need the "Alice is one of the sisters" step
# (Family: a sister's brothers; Arithmetic Siblings; Total Girls) or only ask for Alice's sex.
_orders("AIW Light Family", "light_family", "bs sb", _ALICE, _SISTER_Q, _BROTHERS)
_SIBLINGS, _TOTAL = "AIW Light Arithmetic Siblings", "AIW Light Arithmetic Total Girls"
_orders(_SIBLINGS, "light_siblings", "bs sb", _ALICE, "How many siblings does Alice have?", _SIBS)
_orders(_TOTAL, "light_total_girls", "sb", _ALICE, "How many girls are there in total?", _S1)
_orders(_TOTAL, "light_total_sisters", "sb", _ALICE, "How many sisters are there in total?", _S1)
_ATTRIBUTE = "AIW Light attribute control"
_orders(_ATTRIBUTE, "light_attribute", "bs sb", _ALICE, "Is Alice male or female?", lambda s: "female")

# AIW Ext: Alice's sisters and Bob's brothers are given; each asks for the other sibling set.
_EXT = f"Alice and Bob are sister and brother. Alice has {_S} and Bob has {_B}."
_ALICE_BROTHERS, _BOB_SISTERS = "How many brothers does Alice have?", "How many sisters does Bob have?"
_family("ext.alice_brothers", _EXT_G, f"{_EXT} {_ALICE_BROTHERS}", _B1)
_family("ext.bob_sisters", _EXT_G, f"{_EXT} {_BOB_SISTERS}", _S1)
_EXT_BOOST = f"Alice and Bob are sister and brother. Alice is female and has {_S}. Bob is male and has {_B}."
_family("ext_boost.alice_brothers", _EXT_G, f"{_EXT_BOOST} {_ALICE_BROTHERS}", _B1)
# Records 154-155 state both sexes before the Ext facts ("Alice is a female and Bob is a male.").
_SEXES = f"Alice is a female and Bob is a male. {_EXT}"
_family("ext_sexes.alice_brothers", _EXT_G, f"{_SEXES} {_ALICE_BROTHERS}", _B1)
_family("ext_sexes.bob_sisters", _EXT_G, f"{_SEXES} {_BOB_SISTERS}", _S1)

_FRIENDS_Q = "How many female friends does male friend of Alice have?"
_THEY_ALL = "They all are friends with each other and have no other friends aside."
_AB = "All mentioned persons are friends with each other and have no other friends aside."
for _form, _clause in (("they_all", _THEY_ALL), ("all_mentioned", _AB)):
    _orders(_FRIENDS, f"friends.{_form}", "mf fm", f"{_ALICE} {_clause}", _FRIENDS_Q, _F1)
_orders(
    _BOOST, "female_boost.friends", "mf fm", f"Alice is female who has {{}}. {_THEY_ALL}", _FRIENDS_Q, _F1
)

# Other published wordings of the sibling problem. Haret and "a girl" keep the AIW question; the Bob forms ask
# for Bob's brother's sisters (Bob is male, so they are just Bob's sisters) or Bob's siblings.
_orders("AIW Haret", "haret", "bs sb", "Haret has {}.", "How many sisters does Haret's brother have?", _S1)
_orders("AIW A girl", "girl", "bs sb", "A girl has {}.", "How many sisters does girl's brother have?", _S1)
_BROTHER_SISTERS = "How many sisters does Bob's brother have?"
_orders("AIW Bob", "bob.brother_sisters", "bs sb", "Bob has {}.", _BROTHER_SISTERS, _SISTERS)
_orders(_SIBLINGS, "bob_light_siblings", "sb", "Bob has {}.", "How many siblings does Bob have?", _SIBS)
# Bob named as one of Alice's brothers: his sisters are Alice's sisters and Alice.
_NAMED_G = "AIW named brother"
_orders(_NAMED_G, "named_bob", "bs sb", f"{_ALICE} Bob is a brother of Alice.", _BOB_SISTERS, _S1)
_HIS_NAME = f"Alice has {_S} and she also has a brother. His name is Bob. {_BOB_SISTERS}"
_family("named_bob.his_name", _NAMED_G, _HIS_NAME, _S1)
_SAME_PARENTS = (
    f"{_ALICE} Alice and all her mentioned siblings have the same two parents, the description of Alice's family is "
    "complete and no person is left out."
)
_orders("AIW complete family", "same_parents", "bs sb", _SAME_PARENTS, _ALICE_Q, _S1)
_MARY = "Alice and Mary are sisters who also have further"
_family("alice_and_mary", "AIW Alice and Mary", f"{_MARY} {_S} and {_B}. {_ALICE_Q}", _sum("sisters", 2))
_ALICE_SISTERS = "How many sisters does Alice have?"
_EACH_BROTHER = f"Alice has {_B} and each of her brothers has {_S}."
_family("sisters_of_brothers", "AIW Light Family", f"{_EACH_BROTHER} {_ALICE_SISTERS}", _S_1)
_BROTHER_BOB = f"Alice is a girl and has a brother, Bob. Bob has {_S}."
_family("brother_bob.alice_sisters", _EXT_G, f"{_BROTHER_BOB} {_ALICE_SISTERS}", _S_1)
# Ext wordings: Alice's sisters and Bob's brothers given (the usual Ext facts), or crossed (Alice's brothers and
# Bob's sisters). Alice's brother has her sisters and Alice; Bob's sister has his brothers and Bob. The published
# answers to "How many siblings do Alice and Bob have?" count the siblings besides Alice and Bob themselves.
_family("ext.alice_brother_sisters", _EXT_G, f"{_EXT} {_ALICE_Q}", _S1)
_family("ext.bob_sister_brothers", _EXT_G, f"{_EXT} {_BOB_Q}", _B1)
_family("ext.siblings", _EXT_G, f"{_EXT} How many siblings do Alice and Bob have?", _SIBS)
_CROSS = f"Alice and Bob are sister and brother. Alice has {_B} and Bob has {_S}."
_family("ext_cross.bob_sister_sisters", _EXT_G, f"{_CROSS} How many sisters does Bob's sister have?", _S_1)
_family("ext_cross.alice_sisters", _EXT_G, f"{_CROSS} {_ALICE_SISTERS}", _S_1)
_GIRL_BOY = f"A girl and a boy are sister and brother. The girl has {_S} and the boy has {_B}."
_family("ext_girl_boy.boy_sisters", _EXT_G, f"{_GIRL_BOY} How many sisters does the boy have?", _S1)
_family("ext_girl_boy.girl_brothers", _EXT_G, f"{_GIRL_BOY} How many brothers does the girl have?", _B1)
_OTHER_GIRLS = f"Alice and {_count('others', 'other girl')} are sisters. How many sisters are there in total?"
_family("light_total_sisters.other_girls", _TOTAL, _OTHER_GIRLS, _sum("others", 1))

# Friends: Alice and Bob in one group where everybody is friends with everybody. Alice's female friends are Bob's
# female friends without Alice; Alice's male friends are Bob's male friends and Bob.
_BF, _BM = _count("bob_female", "female friend"), _count("bob_male", "male friend")
_AF, _AM = _count("alice_female", "female friend"), _count("alice_male", "male friend")
_AB_FRIENDS = "Alice and Bob are female and male friends."
_ALICE_FEMALE = "How many female friends does Alice have?"
_ALICE_MALE = "How many male friends does Alice have?"
_BF_1, _BM1 = _sum("bob_female", -1), _sum("bob_male", 1)
_SEXES_AB = "Alice and Bob are friends. Alice is female. Bob is male."
_BESIDES_EACH = (
    f"{_AB_FRIENDS} Besides each other, Alice has {_count('alice_male', 'other male friend')} and Bob has "
    f"{_count('bob_female', 'other female friend')}."
)
_INCLUDING = f"{_AB_FRIENDS} In total, including each other, Alice has {_AM} and Bob has {_BF}."
for _name, _given, _question, _solver in (
    ("alice_female", f"{_AB_FRIENDS} Alice has {_AM}. Bob has {_BF}.", _ALICE_FEMALE, _BF_1),
    ("alice_male", f"{_AB_FRIENDS} Alice has {_AF}. Bob has {_BM}.", _ALICE_MALE, _BM1),
    ("including.alice_female", _INCLUDING, _ALICE_FEMALE, _BF_1),
    ("besides.bob_female", _BESIDES_EACH, "How many female friends does Bob have?", _sum("bob_female", 1)),
    (
        "sexes.alice_female",
        f"{_SEXES_AB} Alice has {_AM} in total. Bob has {_BF} in total.",
        _ALICE_FEMALE,
        _BF_1,
    ),
    ("sexes.alice_male", f"{_SEXES_AB} Alice has {_AF} in total. Bob has {_BM} in total.", _ALICE_MALE, _BM1),
):
    _family(f"friends_ab.{_name}", _FRIENDS, f"{_given} {_AB} {_question}", _solver)
# "Alice and N other females": the women are Alice and the others, and each man is friends with all of them.
_WHO_ALL = ", who are all friends with each other and have no other friends aside."
for _kind, _friends in (("friends", "friends"), ("female_friends", "female friends")):
    for _form, _tail in (("who", _WHO_ALL), ("they_all", f". {_THEY_ALL}")):
        _family(
            f"friends.other_females.{_kind}.{_form}",
            _FRIENDS,
            f"Alice and {_count('others', 'other female')} are {_friends} and she also has {_MALE}{_tail} {_FRIENDS_Q}",
            _sum("others", 1),
        )


# Extended friends (records 578-588): a friend of Alice and a friend of that friend, all in one group where everybody
# is friends with everybody. Alice's female friends are Bob's without Alice, Bob's male friends Alice's without Bob;
# Lewis's female friends are all the women (Alice and her female friends); two members of the group have everybody
# else in common: the women (Alice and her female friends) and the men (Bob and his male friends, Lewis among them)
# but those two.
def _at_least_one(*names: str) -> Callable[[Slots], bool]:
    return lambda s: all(isinstance(v, int) and v >= 1 for v in (s[name] for name in names))


_ALICE_BOB = (
    f"Alice has {_AM} in total and she also has female friends. Bob is one of Alice's male friends, and he has {_BF} "
    f"in total. {_AB}"
)
_LEWIS = (
    f"Alice has {_AF} in total. She also has male friends. Bob is one of Alice's male friends. He has {_BM} in "
    f"total. He also has female friends. Lewis is one of Bob's male friends. {_AB}"
)
_MATILDA = (
    f"Alice has {_AM} in total. She also has female friends. Matilda is one of Alice's female friends. She has "
    f"{_count('matilda_female', 'female friend')} in total. She also has male friends. Lewis is one of Matilda's "
    f"male friends. {_AB}"
)
_IN_COMMON = "How many friends do {} and Lewis have in common?"
_LEWIS_FEMALE = "How many female friends does Lewis have?"
_BOB_GROUP, _LEWIS_GROUP = _at_least_one("alice_male", "bob_female"), _at_least_one("bob_male")
_WOMEN_AND_MEN = _sum("alice_female", "bob_male")
for _name, _text, _question, _solver, _consistent in (
    ("alice_female", _ALICE_BOB, _ALICE_FEMALE, _BF_1, _BOB_GROUP),
    ("bob_male", _ALICE_BOB, "How many male friends does Bob have?", _sum("alice_male", -1), _BOB_GROUP),
    ("lewis.female", _LEWIS, _LEWIS_FEMALE, _sum("alice_female", 1), _LEWIS_GROUP),
    ("lewis.alice_in_common", _LEWIS, _IN_COMMON.format("Alice"), _WOMEN_AND_MEN, _LEWIS_GROUP),
    ("lewis.bob_in_common", _LEWIS, _IN_COMMON.format("Bob"), _WOMEN_AND_MEN, _LEWIS_GROUP),
    # the men are Alice's male friends (Lewis among them), the women Matilda and her female friends
    (
        "matilda.alice_lewis_in_common",
        _MATILDA,
        _IN_COMMON.format("Alice"),
        _sum("alice_male", "matilda_female", -1),
        _at_least_one("alice_male", "matilda_female"),
    ),
):
    _family(f"friends_ext.{_name}", _FRIENDS, f"{_text} {_question}", _solver, consistent=_consistent)

# Colleagues: every colleague works with every other, so a colleague of the other kind has all of Alice's
# colleagues of her kind and Alice. Records 394-414 give the facts in the other order (".reversed").
_WORK = "They all are working with each other and have no other colleagues aside."
_FC, _MC = _count("female", "female colleague"), _count("male", "male colleague")
_SCI = _count("scientists", "scientist colleague")
_ENG, _NON = _count("others", "software engineer colleague"), _count("others", "non-scientist colleague")
_SCIENTIST_WHO = "Alice is a scientist who has {} and she also has {}."
_HERSELF = "Alice has {}. She is herself a scientist and she also has {}."
_NON_Q, _SCI1 = "How many scientist colleagues does a non-scientist have?", _sum("scientists", 1)
_ENG_Q = "How many scientist colleagues does a software engineer have?"
_MALE_COLLEAGUE_Q = "How many female colleagues does Alice's male colleague have?"
_COLLEAGUES = (
    ("male_female", "Alice has {} and she also has {}.", _FC, _MC, _MALE_COLLEAGUE_Q, _F1),
    ("scientist.engineers", _SCIENTIST_WHO, _SCI, _ENG, _ENG_Q, _SCI1),
    ("scientist.non_scientists", _SCIENTIST_WHO, _SCI, _NON, _NON_Q, _SCI1),
    ("scientist.herself", _HERSELF, _SCI, _NON, _NON_Q, _SCI1),
)


def _colleagues(reverse: bool) -> None:
    for name, facts, first, second, question, solver in _COLLEAGUES:
        counts = (second, first) if reverse else (first, second)
        if reverse:
            name = {"male_female": "female_male"}.get(name, name) + ".reversed"
        _family(f"colleagues.{name}", _WORK_G, f"{facts.format(*counts)} {_WORK} {question}", solver)


_colleagues(reverse=False)


# Colleague circles: Matilda is one of Alice's female colleagues and one of Bob's, and her female colleagues are the
# other women of both circles: Alice and her female colleagues but Matilda, and Bob's female colleagues but Matilda.
# The wordings (records 593-647, 825) differ in how they open (the first says who Alice's colleagues are, "These are
# all colleagues that Alice has."), tell of Matilda and close; "Mod 8" is the one the first records use.
_MATILDA_SOLVER = _sum("alice_female", "bob_female", -1)
_CIRCLES = "Colleague Circles"


def _circle_opening(n: str, *, in_total: bool) -> str:
    alice = f"Alice has {_count('alice_male', f'male {n}')} and she also has {_count('alice_female', f'female {n}')}"
    bob = f"Bob has {_count('bob_female', f'female {n}')} and {_count('bob_male', f'male {n}')} in total."
    if in_total:
        return (
            f"{alice} in total. All these mentioned persons in the circle around Alice are {n}s of each other. "
            f"{bob} All these mentioned persons in the circle around Bob are {n}s of each other."
        )
    return (
        f"{alice}. These are all {n}s that Alice has. All these mentioned persons around Alice are {n}s of each "
        f"other. {bob} All these mentioned persons around Bob are {n}s of each other."
    )


def _circle_exception(n: str, bob: str = "", alice: str = ", being part of Alice's circle") -> str:
    return (
        f"The people in the circle around Bob do not have other {n}s aside - with the only exception of Matilda. "
        f"She is {n} of Bob{bob} and she is also {n} of Alice{alice}."
    )


def _beyond(n: str, word: str = "beyond") -> str:
    return f"All the mentioned persons have no {n}s {word} the already described group of people."


def _circle_texts(n: str) -> dict[str, str]:
    """The circles' wordings for friends or colleagues (``n``), by form, each ending with the question."""
    q = f"How many female {n}s does Matilda have?"
    outside = "the Alice and Bob circles" if n == "friend" else "the Alice's and Bob's circles"
    only = (
        f"Matilda is a {n} of Bob. She is the only person from Bob's circle who has {n}s outside Bob's circle, all "
        f"other people in Bob's circle have no further {n}s aside. Matilda is {n} of Alice, being part of Alice's "
        "circle."
    )
    mod8 = _circle_exception(n, ", being part of Bob's circle,")
    return {
        "all_that_alice_has": f"{_circle_opening(n, in_total=False)} {_circle_exception(n)} {q}",
        "all_that_alice_has.no_outside": f"{_circle_opening(n, in_total=False)} {_circle_exception(n)} Mathilda has "
        f"no other {n}s outside of {outside}. {q}",
        "in_total.beyond": f"{_circle_opening(n, in_total=True)} {_circle_exception(n)} {_beyond(n)} {q}",
        "in_total.only_person": f"{_circle_opening(n, in_total=True)} {only} {_beyond(n)} {q}",
        "mod8": f"{_circle_opening(n, in_total=True)} {mod8} {_beyond(n)} {q}",
    }


_family("circles.colleagues", _CIRCLES, _circle_texts("colleague")["mod8"], _MATILDA_SOLVER)
_family("circles.friends", _CIRCLES, _circle_texts("friend")["mod8"], _MATILDA_SOLVER)
for _n in ("friend", "colleague"):
    for _form, _text in list(_circle_texts(_n).items())[:4]:
        _family(f"circles.{_n}s.{_form}", _CIRCLES, _text, _MATILDA_SOLVER)

# Matilda's friends (records 565-576): Alice's male friend has all the women of the group, Matilda's female
# friends and Matilda herself.
_MATILDA_FRIENDS = f"Matilda is one of Alice's female friends. Matilda has {_FEMALE} in total."
_family(
    "matilda_friends.alice_males",
    "AIW Friends Matilda",
    f"Alice has {_MALE} and she also has female friends. {_MATILDA_FRIENDS} {_AB} {_FRIENDS_Q}",
    _F1,
)
_family(
    "matilda_friends.bob",
    "AIW Friends Matilda",
    f"Alice has male friends and she also has female friends. {_MATILDA_FRIENDS} Bob is one of Matilda's male "
    f"friends. Bob has {_MALE} in total. {_AB} {_FRIENDS_Q}",
    _F1,
)

# Bowls (records 685-764, a control without people): a big (or plain) blue bowl with red and blue bowls beside it
# on one table. The question asks for the blue bowls with, beside or near the red ones (all of them: the big one is
# blue too) or near a blue one (each small blue bowl; the published answers leave the big bowl out there), or for
# every bowl beside the big one.
_BOWLS, _BLUE1, _BLUE = "Bowls (control)", _sum("blue", 1), _sum("blue")
_RED_BLUE = f"{_count('red', 'red bowl')} and {_count('blue', 'blue bowl')} on the table."
_BESIDE = "How many blue bowls are on the table beside the red bowls?"
_BESIDES = "How many blue bowls are on the table besides the red bowls?"
_BESIDE_BIG = "How many bowls are on the table beside the big bowl?"
_NEXT_WHICH = "a big bowl, next to this bowl, which is blue,"
for _name, _where, _question, _solver in (
    ("next_which.with_red", _NEXT_WHICH, "How many blue bowls are on the table with red bowls?", _BLUE1),
    ("next_which.beside_big", _NEXT_WHICH, _BESIDE_BIG, _sum("red", "blue")),
    ("next_which.next_to_red", _NEXT_WHICH, _BESIDE.replace("beside", "next to"), _BLUE1),
    ("which_next", "a big bowl, which is blue, next to this bowl", _BESIDE, _BLUE1),
    ("big_blue_next", "a big blue bowl, next to this bowl", _BESIDE, _BLUE1),
    ("big_blue_addition", "a big blue bowl, in addition to this bowl", _BESIDE, _BLUE1),
    ("which_addition", "a big bowl, which is blue, in addition to this bowl", _BESIDE, _BLUE1),
    ("blue_addition", "a blue bowl, in addition to this bowl", _BESIDE, _BLUE1),
    ("blue_further", "a blue bowl. Further,", _BESIDES, _BLUE1),
    ("big_blue_further", "a big blue bowl. Further,", _BESIDES, _BLUE1),
):
    _family(
        f"bowls.{_name}", _BOWLS, f"On a table, there is {_where} there are {_RED_BLUE} {_question}", _solver
    )
_SAME_TABLE = "near the red bowl which is on the same table as the big bowl"
_PLACED = "on the table that a {} bowl placed on"
for _name, _bowl, _where, _question, _solver in (
    ("near.which.same_table", "bowl", "near that bowl, which is blue", _SAME_TABLE, _BLUE1),
    ("near.big_blue.same_table", "blue bowl", "near that bowl", _SAME_TABLE, _BLUE1),
    ("near.big_blue.near_red", "blue bowl", "near that bowl", "near a red bowl", _BLUE1),
    ("near.big_blue.near_blue", "blue bowl", "near that bowl", "near a blue bowl", _BLUE),
    ("on_table.placed_red", "blue bowl", "on the table", _PLACED.format("red"), _BLUE1),
    ("on_table.placed_blue", "blue bowl", "on the table", _PLACED.format("blue"), _BLUE),
):
    _where = f"A big {_bowl} is on a table and there are {{blue}} blue and {{red}} red bowls {_where}."
    _family(f"bowls.{_name}", _BOWLS, f"{_where} How many blue bowls are {_question}?", _solver)

# Movies (records 669-692, a control without people): Rabbit Hole is one of the comedies of its year.
_MOVIES, _COMEDIES = "Movies (control)", _sum("comedies", 1)
_RABBIT = (
    "Rabbit Hole by Alice was released in {year} alongside {comedies} other comedies and {westerns} westerns"
)
_THAT_YEAR = f"{_RABBIT} including one by Alice. How many comedies were released that year?"
for _name, _template in (
    (
        "westerns_in_theatres",
        "Assume following is true and answer the question: Rabbit Hole was in {year} in theatres. Alongside this "
        "comedy there were {westerns} westerns and {comedies} comedies. How many comedies could you watch when "
        "the westerns were in theaters?",
    ),
    ("that_year", _THAT_YEAR),
    (
        "directors_comedy",
        f"{_RABBIT} including one by Alice. How many comedies were released when the comedy by Rabbit Hole's "
        "director was out?",
    ),
):
    _family(f"movies.{_name}", _MOVIES, _template, _COMEDIES)
# Record 589 (beads, a control without people): bowls of beads on four tables; the question counts the green beads
# in the two yellow bowls that hold any. Only those counts are slots: the rest of the text is as published ("1 blue
# beads", "1 yellow beads" included).
_BEADS = (
    "Different colored bowls are placed on tables that have either square or oval shape. Beads of "
    "different color are placed in the bowls. There are 2 square tables and 2 oval tables. First "
    "square table has a red and a yellow bowl. Red bowl has 3 red beads, 2 blue beads and 1 yellow "
    "bead. Yellow bowl has 1 red bead, 1 blue beads and "
    "{yellow_square_green:green bead|green beads}"
    ". Second square table has a red and a blue bowl. Red bowl has 2 red beads, 1 blue bead and 2 "
    "green beads. Blue bowl has 1 red bead, 1 yellow beads and 2 blue beads. First oval table has a "
    "blue and a yellow bowl. Blue bowl has 1 red bead, 2 green beads and 1 yellow bead. Yellow bowl "
    "has 1 yellow bead, 2 blue beads and 2 red beads. Second oval table has a red and a yellow bowl. "
    "Red bowl has 1 yellow bead, 1 green bead and 2 red beads. Yellow bowl has "
    "{yellow_oval_green:green bead|green beads}"
    ", 2 blue beads and 1 red bead. How many green beads are there in yellow bowls in total?"
)
_GREEN = _sum("yellow_square_green", "yellow_oval_green")
_family("beads.yellow_green", "Beads (control)", _BEADS, _GREEN, published_only=True)
# Record 684 writes "by ,Alice" (as published; its neighbours write "by Alice").
_COMMA_TYPO = _THAT_YEAR.replace("by Alice", "by ,Alice", 1)
_family("movies.that_year.comma_typo", _MOVIES, _COMMA_TYPO, _COMEDIES, published_only=True)

# Further friends wordings (records 347-362, 383-390): "who are all friends" as one sentence, and the control
# questions that count the women of the group (Alice and her female friends).
for _form, _clause in (("who", _WHO_ALL), ("they_all", f". {_THEY_ALL}")):
    for _order in ("mf", "fm"):
        for _q, _question in (
            ("male_friend", _FRIENDS_Q),
            ("female_friends_total", "How many female friends are there in total?"),
            ("females_total", "How many females are there in total?"),
        ):
            if _form == "they_all" and _q == "male_friend":
                continue  # the same text as friends.they_all.*
            _name = f"friends.{_form}_sentence.{_order}.{_q}"
            _family(_name, _FRIENDS, f"Alice has {_has(_order)}{_clause} {_question}", _F1)

_colleagues(reverse=True)
# Bob's friends and colleagues, and Alice's colleagues "all mentioned" (records 590-592): the question swaps the
# sexes for Bob.
_ALL_COLLEAGUES = "All mentioned persons are colleagues of each other and have no other colleagues aside."
_family(
    "friends.bob.all_mentioned",
    _FRIENDS,
    f"Bob has {_has('fm', 'he')}. {_THEY_ALL} How many male friends does female friend of Bob have?",
    _sum("male", 1),
)
_family(
    "colleagues.alice.all_mentioned",
    _WORK_G,
    f"Alice has {_MC} and she also has {_FC}. {_ALL_COLLEAGUES} How many female colleagues does male colleague of "
    "Alice have?",
    _F1,
)
_family(
    "colleagues.bob.all_mentioned",
    _WORK_G,
    f"Bob has {_FC} and he also has {_MC}. {_ALL_COLLEAGUES} How many male colleagues does female colleague of Bob "
    "have?",
    _sum("male", 1),
)

# One-off wordings of the sibling problem (records 15-16, 41-42, 178-184, 305-312, 330-334), kept in a group of
# their own so that fresh variations of the AIW group stay the paper's two word orders.
_WORDINGS = "AIW other wordings (as published)"
_IDENTIFY = "All brothers identify themselves as males, and all sisters identify themselves as females."
_PRECISION = (
    "Alice and her sisters identify themselves as female, the brothers identify themselves as male. All persons "
    "described before have same two parents and are one family."
)
for _order in ("bs", "sb"):
    _orders(_WORDINGS, "aiw.identify", _order, f"{_ALICE} {_IDENTIFY}", _ALICE_Q, _S1)
    _orders(_WORDINGS, "aiw.precision", _order, _ALICE, f"{_ALICE_Q} {_PRECISION}", _S1)
for _name, _opening in (
    ("person_and", f"Alice is a person and has {_S} and she also has {_B}."),
    ("person_who", f"Alice is a person who has {_S} and she also has {_B}."),
    ("person_and_she", f"Alice is a person and she has {_S} and she also has {_B}."),
    ("simple_female", f"Alice is female. She has {_S} and {_B}."),
    ("simple_person", f"Alice is a person. She has {_S} and {_B}."),
    ("simple_family", f"Alice has a family. She has {_S} and {_B}."),
    ("simple_in_family", f"Alice has a family. In her family, she has {_S} and {_B}."),
):
    _family(f"aiw.{_name}.sb", _WORDINGS, f"{_opening} {_ALICE_Q}", _S1)
_orders(_WORDINGS, "bob.siblings", "bs", "Bob has {}.", "How many siblings does Bob have?", _SIBS)
_BOY_Q = "How many brothers does boys's sister have?"  # sic, as published
_orders("AIW A boy", "boy", "sb bs", "A boy has {}.", _BOY_Q, _B1)
_TWO_GIRLS = "Two girls are sisters who also have further"
for _name, _question in (("girls", "the girls' brother"), ("alice", "Alice's brother")):
    _family(
        f"two_girls.{_name}",
        "AIW Two girls",
        f"{_TWO_GIRLS} {_S} and {_B}. How many sisters does {_question} have?",
        _sum("sisters", 2),
    )
_family(
    "two_girls.no_other",
    "AIW Two girls",
    f"{_TWO_GIRLS} {_B} and no other sisters. How many sisters does the girls' brother have?",
    _sum(2),
)
# Record 292: Alice's siblings when she has no sisters are Bob and his brothers.
_family(
    "alice_and_bob.no_sisters.alice_siblings",
    _EXT_G,
    f"Alice and Bob are sister and brother. Alice has no sisters and Bob has {_B}. How many siblings does Alice "
    "have?",
    _B1,
)
# Record 328: Alice and Mary are the only sisters.
_family(
    "alice_and_mary.no_other", "AIW Alice and Mary", f"{_MARY} {_B} and no other sisters. {_ALICE_Q}", _sum(2)
)
# Record 86 (the SQL prompt) states the problem with "a brother" and asks for the sisters "in total".
_family(
    "aiw.a_brother.in_total",
    _WORDINGS,
    f"Alice has {_S} and she also has a brother. How many sisters in total does Alice's brother have?",
    _S1,
)
# Record 163 leaves out the full stop before the question (as published; its neighbours 162 and 164 have it).
_NO_STOP = f"Alice is female and has {_has('bs')} {_ALICE_Q}"
_family("female_boost.words.bs.no_stop", _WORDINGS, _NO_STOP, _S1, words=True, published_only=True)
_ALICE_SIBLINGS = f"{_EXT} How many siblings does Alice have?"
_family("alice_and_bob.alice_siblings", _EXT_G, _ALICE_SIBLINGS, _sum("sisters", "brothers", 1))


# "Name them all" (records 297-300): every sibling named; the counts must match the names given.
def _names(names: tuple[str, ...]) -> str:
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def _named_counts(brothers: int, sisters: int) -> Callable[[Slots], bool]:
    return lambda s: s["brothers"] == brothers and s["sisters"] == sisters


for _v, _brothers, _sisters, _brothers_first in (
    ("v1", ("Jack", "Frank", "Bob"), ("Mary", "Elisa", "Sue", "Julia", "Jane", "Marianna"), True),
    ("v2", ("Jack", "Frank", "David", "Bob"), ("Elisa", "Marianna"), False),
    ("v3", ("Bob",), ("Mary", "Elisa", "Sue", "Marianna"), False),
    ("v4", ("Jack", "Frank", "David", "Bob"), ("Marianna",), True),
):
    _bro = f"{_B} - {_names(_brothers)}"
    _sis = f"{_S} - {_names(_sisters)}"
    _first, _then = (_bro, _sis) if _brothers_first else (_sis, _bro)
    _family(
        f"named_all.{_v}",
        "AIW Name them all",
        f"Alice has {_first}. She also has {_then}. {_BOB_SISTERS}",
        _S1,
        consistent=_named_counts(len(_brothers), len(_sisters)),
        published_only=True,
    )

# The circles with "N female colleague" for any N (records 602-647, 825: the singular after a count above one,
# as published).
for _n in ("friend", "colleague"):
    for _form, _text in _circle_texts(_n).items():
        _typo = re.sub(r"\{alice_female:female (\w+)\|female \w+\}", r"{alice_female} female \1", _text)
        _family(f"circles.{_n}s.{_form}.singular_typo", _CIRCLES, _typo, _MATILDA_SOLVER)


# One-off colleagues wordings of the circles (records 593-595: "Peers", Matilde; 621-622: "Mod 3", Matilda a
# colleague of both but not said to be part of Alice's circle, 621 with the typo "beoynd" that 622 corrects; 635-636:
# "Mod 6" and "Mod 7", Bob's other colleagues said to have nobody outside). Same solver as the other circles.
def _peers(around: str, part: str) -> str:
    return (
        f"In total, Alice has {_count('alice_male', 'male colleague')} and she also has "
        f"{_count('alice_female', 'female colleague')}. All these mentioned persons{around} are colleagues of each "
        f"other. Bob has {_count('bob_female', 'female colleague')} and {_count('bob_male', 'male colleague')}. All "
        "these mentioned persons around Bob are colleagues of each other and have no other colleagues aside. The "
        "only exception in this group around Bob is Matilde. She is colleague of Bob and she is also colleague of "
        f"Alice{part}. How many female colleagues does Matilde have?"
    )


_IN_TOTAL = _circle_opening("colleague", in_total=True)
_CIRCLE_Q = "How many female colleagues does Matilda have?"
_MOD3 = f"{_IN_TOTAL} {_circle_exception('colleague', alice='')}"
_TOTAL_GROUP = (
    "All the mentioned persons have no colleagues beyond the already described total group of people."
)
for _name, _text, _kw in (
    ("peers", _peers("", ""), {}),
    ("peers.around_alice", _peers(" around Alice", ""), {}),
    ("peers.around_alice.part", _peers(" around Alice", ", being part of Alice's circle"), {}),
    ("mod3.beoynd_typo", f"{_MOD3} {_beyond('colleague', 'beoynd')} {_CIRCLE_Q}", {"published_only": True}),
    ("mod3", f"{_MOD3} {_beyond('colleague')} {_CIRCLE_Q}", {}),
    (
        "mod6",
        f"{_IN_TOTAL} Matilda is a colleague of Bob and she is also a colleague of Alice, being part of Alice's "
        f"circle. All other colleagues of Bob have no colleagues outside of Bob's circle. {_TOTAL_GROUP} "
        f"{_CIRCLE_Q}",
        {},
    ),
    (
        "mod7",
        f"{_IN_TOTAL} Apart from one exception, no person in the circle around Bob has other colleagues outside. "
        "The only exception is Matilda who is colleague of Bob and she is also colleague of Alice, being part of "
        f"Alice's circle. {_TOTAL_GROUP} {_CIRCLE_Q}",
        {},
    ),
):
    _family(f"circles.colleagues.{_name}", _CIRCLES, _text, _MATILDA_SOLVER, **_kw)


# AIW+ (cousins). Alice's mother has a childless sister, so the aunt's nephews and nieces are the children of the
# mother and of the mother's brothers; the father's brother's nephews and nieces are the children of the father
# and of the father's sisters. Subtracting Alice and her siblings from each total leaves the cousins on that side,
# and the uncle's own children are cousins too. Alice's sister shares all of them.
#
# A form's name lists the published records' choices (ids 91-99, 447-452, 485-564, 815-820): the opening ("plain":
# sisters only; "no_other": "and no other siblings"; "in_total": sisters and brothers), the aunt's clause ("dash":
# "- she has"; "who": "and who has"; "brothers_first": "Her mother has N brothers." first), then "father_sisters"
# ("Alice's father has N sisters. He also has a brother ..."), "split" ("N nephews and M nieces" instead of "N
# nephews and nieces"), the uncle's "sons" or "daughters", "has_also" ("who has also N son", the first records,
# instead of "who also has") and "male" (asks for male cousins only).
_COUSIN_FORMS = (
    "plain.dash.sons.has_also plain.dash.sons plain.dash.daughters plain.who.sons.has_also plain.who.sons "
    "plain.who.daughters no_other.dash.sons no_other.dash.daughters no_other.who.sons no_other.who.daughters "
    "no_other.who.father_sisters.sons no_other.who.father_sisters.daughters "
    + " ".join(
        f"in_total.{mother}.split.sons.male in_total.{mother}.father_sisters.split.sons "
        f"in_total.{mother}.father_sisters.split.sons.male in_total.{mother}.father_sisters.split.daughters "
        f"in_total.{mother}.father_sisters.split.daughters.male"
        for mother in ("dash", "who", "brothers_first")
    )
    + " in_total.brothers_first.father_sisters.sons in_total.brothers_first.father_sisters.daughters"
).split()


def _kin(who: str, split: bool) -> str:
    if split:
        return f"{_count(f'{who}_nephews', 'nephew')} and {_count(f'{who}_nieces', 'niece')}"
    return "{%s_kin} nephews and nieces" % who  # noqa: UP031 - braces are template syntax


def _cousin_template(form: str) -> str:
    opening, mother, *choices = form.split(".")
    split = "split" in choices
    opening = {
        "plain": f"Alice has {_S}.",
        "no_other": f"Alice has {_S} and no other siblings.",
        "in_total": f"Alice has {_S} and {_B} in total.",
    }[opening]
    aunt = _kin("aunt", split)
    brothers = _count("mother_brothers", "brother")
    if mother == "brothers_first":
        mother = (
            f"Her mother has {brothers}. She also has 1 sister who does not have children and who has {aunt} "
            "in total."
        )
    else:
        joint = " - she has" if mother == "dash" else " and who has"
        total = " in total" if split else ""
        mother = (
            f"Her mother has 1 sister who does not have children{joint} {aunt}{total} and also {brothers}."
        )
    father = "Alice's father has "
    if "father_sisters" in choices:
        father += f"{_count('father_sisters', 'sister')}. He also has "
    child = "son" if "sons" in choices else "daughter"
    verb = "has also" if "has_also" in choices else "also has"
    father += f"a brother who has {_kin('uncle', split)} in total, and who {verb} {_count(f'uncle_{child}s', child)}."
    question = f"How many {'male ' if 'male' in choices else ''}cousins does Alice's sister have?"
    return f"{opening} {mother} {father} {question}"


def _int(s: Slots, name: str) -> int:
    value = s.get(name, 0)
    if not isinstance(value, int):
        raise TypeError(f"AIW+ slot {name} must be a number, got {value!r}")
    return value


def _kin_counts(s: Slots, who: str) -> tuple[int, int]:
    """(nephews, nieces) of the aunt or uncle; an unsplit total is reported as nephews only."""
    if f"{who}_kin" in s:
        return _int(s, f"{who}_kin"), 0
    return _int(s, f"{who}_nephews"), _int(s, f"{who}_nieces")


def _cousins(s: Slots) -> Answer:
    girls, boys = _int(s, "sisters") + 1, _int(s, "brothers")  # Alice is one of the girls
    own = _int(s, "uncle_sons") + _int(s, "uncle_daughters")
    return sum(_kin_counts(s, "aunt")) + sum(_kin_counts(s, "uncle")) - 2 * (girls + boys) + own


def _male_cousins(s: Slots) -> Answer:
    # The male cousins are the nephews other than Alice's brothers, on both sides, and the uncle's sons.
    boys = _int(s, "brothers")
    return _kin_counts(s, "aunt")[0] - boys + _kin_counts(s, "uncle")[0] - boys + _int(s, "uncle_sons")


def _cousin_consistent(split: bool) -> Callable[[Slots], bool]:
    def check(s: Slots) -> bool:
        girls, boys = _int(s, "sisters") + 1, _int(s, "brothers")
        for who in ("aunt", "uncle"):
            nephews, nieces = _kin_counts(s, who)
            if (split and (nephews < boys or nieces < girls)) or nephews + nieces < girls + boys:
                return False
        return True

    return check


for _form in _COUSIN_FORMS:
    _family(
        f"aiw_plus.{_form}",
        "AIW+",
        _cousin_template(_form),
        _male_cousins if _form.endswith(".male") else _cousins,
        consistent=_cousin_consistent(".split." in _form),
    )

FAMILIES: Mapping[str, Family] = {f.name: f for f in _FAMILIES if not f.words and not f.published_only}
# Word-form families are kept out of FAMILIES: run configuration selects FAMILIES by group and fresh variations
# are drawn (and checked) for every family there on the assumption that counts appear as digits. They render,
# parse and solve like any other family and keep their digit twins' group names.
WORD_FAMILIES: Mapping[str, Family] = {f.name: f for f in _FAMILIES if f.words}
# Wordings that fix their own counts (published records only): outside FAMILIES for the same reason.
PUBLISHED_ONLY_FAMILIES: Mapping[str, Family] = {f.name: f for f in _FAMILIES if f.published_only}
ALL_FAMILIES: Mapping[str, Family] = {**FAMILIES, **WORD_FAMILIES, **PUBLISHED_ONLY_FAMILIES}

# The original AIW variations as the paper numbers them: (family, slots) -> right answer 7, 3, 5, 2, 4, 6.
ORIGINAL_VARIATIONS: Mapping[int, tuple[str, Mapping[str, int]]] = {
    1: ("aiw.bs", {"brothers": 3, "sisters": 6}),
    2: ("aiw.sb", {"sisters": 2, "brothers": 4}),
    3: ("aiw.sb", {"sisters": 4, "brothers": 1}),
    4: ("aiw.bs", {"brothers": 4, "sisters": 1}),
    5: ("aiw.bs", {"brothers": 2, "sisters": 3}),
    6: ("aiw.sb", {"sisters": 5, "brothers": 3}),
}
