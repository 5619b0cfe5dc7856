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
    """Spell a count in lower-case English words ("seven", "forty-two", "one hundred").

    Args:
        n: an int in 0..:data:`MAX_WORD_NUMBER`.

    Returns:
        The number in words, tens and units joined by a hyphen.

    Raises:
        ValueError: if ``n`` is outside the spelled range.
    """
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
    """Sum slot values; symbolic terms stay as names joined by `` + ``, with the integer part last.

    Args:
        *terms: ints or symbol names.

    Returns:
        An int when every term is numeric, else a normalised expression like ``"M + 1"``.
    """
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


def _count(name: str, singular: str, plural: str | None = None) -> str:
    return "{%s:%s|%s}" % (name, singular, plural or singular + "s")  # noqa: UP031 - braces are template syntax


_B, _S = _count("brothers", "brother"), _count("sisters", "sister")
_MALE, _FEMALE = _count("male", "male friend"), _count("female", "female friend")
_FAMILIES: list[Family] = []


def _family(name: str, group: str, template: str, solver: Callable[[Slots], Answer], **kw: object) -> None:
    _FAMILIES.append(Family(name, group, template, solver, **kw))  # type: ignore[arg-type]


def _sisters_plus_one(s: Slots) -> Answer:
    return add(s["sisters"], 1)


def _brothers_plus_one(s: Slots) -> Answer:
    return add(s["brothers"], 1)


_ALICE_Q = "How many sisters does Alice's brother have?"
_BOB_Q = "How many brothers does Bob's sister have?"

# AIW original, its exaggerated-number instances and AIW-Param share the wording; they differ in slot values.
for _group, _kw in (
    ("AIW", {}),
    ("AIW exaggerated numbers", {"min_value": 50}),
    ("AIW-Param", {"symbolic": True}),
):
    _prefix = {"AIW": "aiw", "AIW exaggerated numbers": "exaggerated", "AIW-Param": "param"}[_group]
    _family(
        f"{_prefix}.bs", _group, f"Alice has {_B} and she also has {_S}. {_ALICE_Q}", _sisters_plus_one, **_kw
    )
    _family(
        f"{_prefix}.sb", _group, f"Alice has {_S} and she also has {_B}. {_ALICE_Q}", _sisters_plus_one, **_kw
    )
_family(
    "param.light.sb",
    "AIW-Param",
    f"Alice has {_S} and she also has {_B}. How many brothers does Alice's sister have?",
    lambda s: s["brothers"],
    symbolic=True,
)

# Word twins of the original and female-boost wordings (records 3-4, 9-10, 144-177 spell the counts out; 9-10
# write one as "a"). Same groups as the digit forms: only the spelling of the numbers differs.
for _form, _kw in (("words", {"words": True}), ("words_a", {"words": True, "article": True})):
    _family(
        f"aiw.{_form}.bs",
        "AIW",
        f"Alice has {_B} and she also has {_S}. {_ALICE_Q}",
        _sisters_plus_one,
        **_kw,
    )
    _family(
        f"aiw.{_form}.sb",
        "AIW",
        f"Alice has {_S} and she also has {_B}. {_ALICE_Q}",
        _sisters_plus_one,
        **_kw,
    )
for _order, _facts in (("bs", f"{_B} and she also has {_S}"), ("sb", f"{_S} and she also has {_B}")):
    _family(
        f"female_boost.words.{_order}",
        "AIW female boost",
        f"Alice is female and has {_facts}. {_ALICE_Q}",
        _sisters_plus_one,
        words=True,
    )

_family("bob.bs", "AIW Bob", f"Bob has {_B} and he also has {_S}. {_BOB_Q}", _brothers_plus_one)
_family("bob.sb", "AIW Bob", f"Bob has {_S} and he also has {_B}. {_BOB_Q}", _brothers_plus_one)
# The in-context-learning records (72-73) write a space before the period of the problem to solve; the same
# problems otherwise, kept as published in a group of their own (never drawn for generated variations of AIW).
_ICL_GROUP = "AIW in-context learning (as published)"
_family("aiw.bs.spaced", _ICL_GROUP, f"Alice has {_B} and she also has {_S} . {_ALICE_Q}", _sisters_plus_one)
_family("bob.bs.spaced", _ICL_GROUP, f"Bob has {_B} and he also has {_S} . {_BOB_Q}", _brothers_plus_one)

_family(
    "female_boost.bs",
    "AIW female boost",
    f"Alice is female and has {_B} and she also has {_S}. {_ALICE_Q}",
    _sisters_plus_one,
)
_family(
    "female_boost.sb",
    "AIW female boost",
    f"Alice is female and has {_S} and she also has {_B}. {_ALICE_Q}",
    _sisters_plus_one,
)
_family(
    "female_boost.a_female.bs",
    "AIW female boost",
    f"Alice is a female, she has {_B} and she also has {_S}. {_ALICE_Q}",
    _sisters_plus_one,
)
_family(
    "female_boost.girl.bs",
    "AIW female boost",
    f"Alice is a girl and has {_B} and she also has {_S}. {_ALICE_Q}",
    _sisters_plus_one,
)
_family(
    "female_boost.girl.sb",
    "AIW female boost",
    f"Alice is a girl and has {_S} and she also has {_B}. {_ALICE_Q}",
    _sisters_plus_one,
)
_family(
    "male_boost.bs",
    "AIW male boost",
    f"Bob is male and has {_B} and he also has {_S}. {_BOB_Q}",
    _brothers_plus_one,
)
_family(
    "male_boost.sb",
    "AIW male boost",
    f"Bob is male and has {_S} and he also has {_B}. {_BOB_Q}",
    _brothers_plus_one,
)

# AIW Light: same family facts, questions that do not need the "Alice is one of the sisters" step
# (Family: a sister's brothers; Arithmetic Siblings; Total Girls) or only ask for Alice's sex.
_family(
    "light_family.bs",
    "AIW Light Family",
    f"Alice has {_B} and she also has {_S}. How many brothers does Alice's sister have?",
    lambda s: s["brothers"],
)
_family(
    "light_family.sb",
    "AIW Light Family",
    f"Alice has {_S} and she also has {_B}. How many brothers does Alice's sister have?",
    lambda s: s["brothers"],
)
_family(
    "light_siblings.bs",
    "AIW Light Arithmetic Siblings",
    f"Alice has {_B} and she also has {_S}. How many siblings does Alice have?",
    lambda s: add(s["brothers"], s["sisters"]),
)
_family(
    "light_siblings.sb",
    "AIW Light Arithmetic Siblings",
    f"Alice has {_S} and she also has {_B}. How many siblings does Alice have?",
    lambda s: add(s["brothers"], s["sisters"]),
)
_family(
    "light_total_girls.sb",
    "AIW Light Arithmetic Total Girls",
    f"Alice has {_S} and she also has {_B}. How many girls are there in total?",
    _sisters_plus_one,
)
_family(
    "light_total_sisters.sb",
    "AIW Light Arithmetic Total Girls",
    f"Alice has {_S} and she also has {_B}. How many sisters are there in total?",
    _sisters_plus_one,
)
_family(
    "light_attribute.bs",
    "AIW Light attribute control",
    f"Alice has {_B} and she also has {_S}. Is Alice male or female?",
    lambda s: "female",
)
_family(
    "light_attribute.sb",
    "AIW Light attribute control",
    f"Alice has {_S} and she also has {_B}. Is Alice male or female?",
    lambda s: "female",
)

# AIW Ext: Alice's sisters and Bob's brothers are given; each asks for the other sibling set.
_EXT = f"Alice and Bob are sister and brother. Alice has {_S} and Bob has {_B}."
_family("ext.alice_brothers", "AIW Ext", f"{_EXT} How many brothers does Alice have?", _brothers_plus_one)
_family("ext.bob_sisters", "AIW Ext", f"{_EXT} How many sisters does Bob have?", _sisters_plus_one)
_family(
    "ext_boost.alice_brothers",
    "AIW Ext",
    f"Alice and Bob are sister and brother. Alice is female and has {_S}. Bob is male and has {_B}. "
    "How many brothers does Alice have?",
    _brothers_plus_one,
)

# Records 154-155 state both sexes before the Ext facts ("Alice is a female and Bob is a male.").
for _q, _question, _solver in (
    ("alice_brothers", "How many brothers does Alice have?", _brothers_plus_one),
    ("bob_sisters", "How many sisters does Bob have?", _sisters_plus_one),
):
    _family(
        f"ext_sexes.{_q}",
        "AIW Ext",
        f"Alice is a female and Bob is a male. {_EXT} {_question}",
        _solver,
    )


def _female_plus_one(s: Slots) -> Answer:
    return add(s["female"], 1)


_FRIENDS_Q = "How many female friends does male friend of Alice have?"
for _form, _clause in (
    ("they_all", "They all are friends with each other and have no other friends aside."),
    ("all_mentioned", "All mentioned persons are friends with each other and have no other friends aside."),
):
    _family(
        f"friends.{_form}.mf",
        "AIW Friends",
        f"Alice has {_MALE} and she also has {_FEMALE}. {_clause} {_FRIENDS_Q}",
        _female_plus_one,
    )
    _family(
        f"friends.{_form}.fm",
        "AIW Friends",
        f"Alice has {_FEMALE} and she also has {_MALE}. {_clause} {_FRIENDS_Q}",
        _female_plus_one,
    )
_family(
    "female_boost.friends.mf",
    "AIW female boost",
    f"Alice is female who has {_MALE} and she also has {_FEMALE}. They all are friends with each other and have no "
    f"other friends aside. {_FRIENDS_Q}",
    _female_plus_one,
)
_family(
    "female_boost.friends.fm",
    "AIW female boost",
    f"Alice is female who has {_FEMALE} and she also has {_MALE}. They all are friends with each other and have no "
    f"other friends aside. {_FRIENDS_Q}",
    _female_plus_one,
)


# Other published wordings of the sibling problem. Haret and "a girl" keep the AIW question; the Bob forms ask
# for Bob's brother's sisters (Bob is male, so they are just Bob's sisters) or Bob's siblings.
for _name, _subject in (("haret", "Haret"), ("girl", "A girl")):
    _owner = "Haret's" if _name == "haret" else "girl's"
    for _order, _facts in (("bs", f"{_B} and she also has {_S}"), ("sb", f"{_S} and she also has {_B}")):
        _family(
            f"{_name}.{_order}",
            f"AIW {_subject}",
            f"{_subject} has {_facts}. How many sisters does {_owner} brother have?",
            _sisters_plus_one,
        )
_family(
    "bob.brother_sisters.bs",
    "AIW Bob",
    f"Bob has {_B} and he also has {_S}. How many sisters does Bob's brother have?",
    lambda s: s["sisters"],
)
_family(
    "bob.brother_sisters.sb",
    "AIW Bob",
    f"Bob has {_S} and he also has {_B}. How many sisters does Bob's brother have?",
    lambda s: s["sisters"],
)
_family(
    "bob_light_siblings.sb",
    "AIW Light Arithmetic Siblings",
    f"Bob has {_S} and he also has {_B}. How many siblings does Bob have?",
    lambda s: add(s["brothers"], s["sisters"]),
)
# Bob named as one of Alice's brothers: his sisters are Alice's sisters and Alice.
for _order, _facts in (("bs", f"{_B} and she also has {_S}"), ("sb", f"{_S} and she also has {_B}")):
    _family(
        f"named_bob.{_order}",
        "AIW named brother",
        f"Alice has {_facts}. Bob is a brother of Alice. How many sisters does Bob have?",
        _sisters_plus_one,
    )
_family(
    "named_bob.his_name",
    "AIW named brother",
    f"Alice has {_S} and she also has a brother. His name is Bob. How many sisters does Bob have?",
    _sisters_plus_one,
)
for _order, _facts in (("bs", f"{_B} and she also has {_S}"), ("sb", f"{_S} and she also has {_B}")):
    _family(
        f"same_parents.{_order}",
        "AIW complete family",
        f"Alice has {_facts}. Alice and all her mentioned siblings have the same two parents, the description of "
        "Alice's family is complete and no person is left out. How many sisters does Alice's brother have?",
        _sisters_plus_one,
    )
_family(
    "alice_and_mary",
    "AIW Alice and Mary",
    f"Alice and Mary are sisters who also have further {_S} and {_B}. How many sisters does Alice's brother have?",
    lambda s: add(s["sisters"], 2),  # the further sisters, Alice and Mary
)


def _sisters_minus_one(s: Slots) -> Answer:
    # A sister count seen from a brother includes the sister asked about; she is not her own sister.
    return add(s["sisters"], -1)


_family(
    "sisters_of_brothers",
    "AIW Light Family",
    f"Alice has {_B} and each of her brothers has {_S}. How many sisters does Alice have?",
    _sisters_minus_one,
)
_family(
    "brother_bob.alice_sisters",
    "AIW Ext",
    f"Alice is a girl and has a brother, Bob. Bob has {_S}. How many sisters does Alice have?",
    _sisters_minus_one,
)
# Ext wordings: Alice's sisters and Bob's brothers given (the usual Ext facts), or crossed (Alice's brothers and
# Bob's sisters). Alice's brother has her sisters and Alice; Bob's sister has his brothers and Bob.
_family(
    "ext.alice_brother_sisters",
    "AIW Ext",
    f"{_EXT} How many sisters does Alice's brother have?",
    _sisters_plus_one,
)
_family(
    "ext.bob_sister_brothers",
    "AIW Ext",
    f"{_EXT} How many brothers does Bob's sister have?",
    _brothers_plus_one,
)
_family(
    "ext.siblings",
    "AIW Ext",
    f"{_EXT} How many siblings do Alice and Bob have?",
    # The published answers count the siblings besides Alice and Bob themselves.
    lambda s: add(s["sisters"], s["brothers"]),
)
_EXT_CROSS = f"Alice and Bob are sister and brother. Alice has {_B} and Bob has {_S}."
_family(
    "ext_cross.bob_sister_sisters",
    "AIW Ext",
    f"{_EXT_CROSS} How many sisters does Bob's sister have?",
    _sisters_minus_one,
)
_family(
    "ext_cross.alice_sisters",
    "AIW Ext",
    f"{_EXT_CROSS} How many sisters does Alice have?",
    _sisters_minus_one,
)
_GIRL_BOY = f"A girl and a boy are sister and brother. The girl has {_S} and the boy has {_B}."
_family(
    "ext_girl_boy.boy_sisters",
    "AIW Ext",
    f"{_GIRL_BOY} How many sisters does the boy have?",
    _sisters_plus_one,
)
_family(
    "ext_girl_boy.girl_brothers",
    "AIW Ext",
    f"{_GIRL_BOY} How many brothers does the girl have?",
    _brothers_plus_one,
)
_family(
    "light_total_sisters.other_girls",
    "AIW Light Arithmetic Total Girls",
    f"Alice and {_count('others', 'other girl')} are sisters. How many sisters are there in total?",
    lambda s: add(s["others"], 1),
)

# Friends: Alice and Bob in one group where everybody is friends with everybody. Alice's female friends are Bob's
# female friends without Alice; Alice's male friends are Bob's male friends and Bob.
_AB = "All mentioned persons are friends with each other and have no other friends aside."
_BF, _BM = _count("bob_female", "female friend"), _count("bob_male", "male friend")
_AF, _AM = _count("alice_female", "female friend"), _count("alice_male", "male friend")
_family(
    "friends_ab.alice_female",
    "AIW Friends",
    f"Alice and Bob are female and male friends. Alice has {_AM}. Bob has {_BF}. {_AB} "
    "How many female friends does Alice have?",
    lambda s: add(s["bob_female"], -1),
)
_family(
    "friends_ab.alice_male",
    "AIW Friends",
    f"Alice and Bob are female and male friends. Alice has {_AF}. Bob has {_BM}. {_AB} "
    "How many male friends does Alice have?",
    lambda s: add(s["bob_male"], 1),
)
_family(
    "friends_ab.including.alice_female",
    "AIW Friends",
    f"Alice and Bob are female and male friends. In total, including each other, Alice has {_AM} and Bob has "
    f"{_BF}. {_AB} How many female friends does Alice have?",
    lambda s: add(s["bob_female"], -1),
)
_family(
    "friends_ab.besides.bob_female",
    "AIW Friends",
    "Alice and Bob are female and male friends. Besides each other, Alice has "
    f"{_count('alice_male', 'other male friend')} and Bob has {_count('bob_female', 'other female friend')}. "
    f"{_AB} How many female friends does Bob have?",
    lambda s: add(s["bob_female"], 1),
)
for _q, _given, _solver in (
    (
        "alice_female",
        f"Alice has {_AM} in total. Bob has {_BF} in total.",
        lambda s: add(s["bob_female"], -1),
    ),
    (
        "alice_male",
        f"Alice has {_AF} in total. Bob has {_BM} in total.",
        lambda s: add(s["bob_male"], 1),
    ),
):
    _family(
        f"friends_ab.sexes.{_q}",
        "AIW Friends",
        f"Alice and Bob are friends. Alice is female. Bob is male. {_given} {_AB} "
        f"How many {_q.split('_')[1]} friends does Alice have?",
        _solver,
    )
# "Alice and N other females": the women are Alice and the others, and each man is friends with all of them.
for _kind, _friends in (("friends", "friends"), ("female_friends", "female friends")):
    for _form, _tail in (
        ("who", ", who are all friends with each other and have no other friends aside."),
        ("they_all", ". They all are friends with each other and have no other friends aside."),
    ):
        _family(
            f"friends.other_females.{_kind}.{_form}",
            "AIW Friends",
            f"Alice and {_count('others', 'other female')} are {_friends} and she also has {_MALE}{_tail} "
            "How many female friends does male friend of Alice have?",
            lambda s: add(s["others"], 1),
        )


# Extended friends (records 578-588): a friend of Alice and a friend of that friend, all in one group where everybody
# is friends with everybody. Alice's female friends are Bob's without Alice, Bob's male friends Alice's without Bob;
# Lewis's female friends are all the women (Alice and her female friends); two members of the group have everybody
# else in common: the women (Alice and her female friends) and the men (Bob and his male friends, Lewis among them)
# but those two.
def _at_least_one(*names: str) -> Callable[[Slots], bool]:
    def check(s: Slots) -> bool:
        values = [s[name] for name in names]
        return all(isinstance(v, int) and v >= 1 for v in values)

    return check


_ALICE_BOB = (
    f"Alice has {_AM} in total and she also has female friends. Bob is one of Alice's male friends, and he has {_BF} "
    f"in total. {_AB}"
)
_LEWIS = (
    f"Alice has {_AF} in total. She also has male friends. Bob is one of Alice's male friends. He has {_BM} in "
    f"total. He also has female friends. Lewis is one of Bob's male friends. {_AB}"
)
for _name, _text, _solver, _needs in (
    (
        "alice_female",
        f"{_ALICE_BOB} How many female friends does Alice have?",
        lambda s: add(s["bob_female"], -1),
        ("alice_male", "bob_female"),
    ),
    (
        "bob_male",
        f"{_ALICE_BOB} How many male friends does Bob have?",
        lambda s: add(s["alice_male"], -1),
        ("alice_male", "bob_female"),
    ),
    (
        "lewis.female",
        f"{_LEWIS} How many female friends does Lewis have?",
        lambda s: add(s["alice_female"], 1),
        ("bob_male",),
    ),
    (
        "lewis.alice_in_common",
        f"{_LEWIS} How many friends do Alice and Lewis have in common?",
        lambda s: add(s["alice_female"], s["bob_male"]),
        ("bob_male",),
    ),
    (
        "lewis.bob_in_common",
        f"{_LEWIS} How many friends do Bob and Lewis have in common?",
        lambda s: add(s["alice_female"], s["bob_male"]),
        ("bob_male",),
    ),
    (
        "matilda.alice_lewis_in_common",
        f"Alice has {_AM} in total. She also has female friends. Matilda is one of Alice's female friends. She has "
        f"{_count('matilda_female', 'female friend')} in total. She also has male friends. Lewis is one of "
        f"Matilda's male friends. {_AB} How many friends do Alice and Lewis have in common?",
        # the men are Alice's male friends (Lewis among them), the women Matilda and her female friends
        lambda s: add(s["alice_male"], s["matilda_female"], -1),
        ("alice_male", "matilda_female"),
    ),
):
    _family(f"friends_ext.{_name}", "AIW Friends", _text, _solver, consistent=_at_least_one(*_needs))

# Colleagues: every colleague works with every other, so a colleague of the other kind has all of Alice's
# colleagues of her kind and Alice.
_WORK = "They all are working with each other and have no other colleagues aside."
_family(
    "colleagues.male_female",
    "AIW Colleagues",
    f"Alice has {_count('female', 'female colleague')} and she also has {_count('male', 'male colleague')}. "
    f"{_WORK} How many female colleagues does Alice's male colleague have?",
    _female_plus_one,
)
_SCI = _count("scientists", "scientist colleague")
_family(
    "colleagues.scientist.engineers",
    "AIW Colleagues",
    f"Alice is a scientist who has {_SCI} and she also has {_count('others', 'software engineer colleague')}. "
    f"{_WORK} How many scientist colleagues does a software engineer have?",
    lambda s: add(s["scientists"], 1),
)
_NON = _count("others", "non-scientist colleague")
_family(
    "colleagues.scientist.non_scientists",
    "AIW Colleagues",
    f"Alice is a scientist who has {_SCI} and she also has {_NON}. {_WORK} "
    "How many scientist colleagues does a non-scientist have?",
    lambda s: add(s["scientists"], 1),
)
_family(
    "colleagues.scientist.herself",
    "AIW Colleagues",
    f"Alice has {_SCI}. She is herself a scientist and she also has {_NON}. {_WORK} "
    "How many scientist colleagues does a non-scientist have?",
    lambda s: add(s["scientists"], 1),
)


def _circles(noun: str) -> str:
    # "Mod 8" wording: Matilda belongs to both circles and nobody has relations outside them.
    n = noun
    return (
        f"Alice has {_count('alice_male', f'male {n}')} and she also has {_count('alice_female', f'female {n}')} "
        f"in total. All these mentioned persons in the circle around Alice are {n}s of each other. Bob has "
        f"{_count('bob_female', f'female {n}')} and {_count('bob_male', f'male {n}')} in total. All these "
        f"mentioned persons in the circle around Bob are {n}s of each other. The people in the circle around Bob "
        f"do not have other {n}s aside - with the only exception of Matilda. She is {n} of Bob, being part of "
        f"Bob's circle, and she is also {n} of Alice, being part of Alice's circle. All the mentioned persons "
        f"have no {n}s beyond the already described group of people. How many female {n}s does Matilda have?"
    )


def _matilda(s: Slots) -> Answer:
    # Matilda is one of Alice's female colleagues and one of Bob's: the other women in Alice's circle
    # (Alice plus her female colleagues, minus Matilda) plus Bob's female colleagues other than Matilda.
    return add(s["alice_female"], s["bob_female"], -1)


_family("circles.colleagues", "Colleague Circles", _circles("colleague"), _matilda)
_family("circles.friends", "Colleague Circles", _circles("friend"), _matilda)


# More wordings of the circles (records 593-636): the first says who Alice's colleagues are ("These are all
# colleagues that Alice has."), some add that Matilda has nobody outside the two circles (the friends' records
# say "the Alice and Bob circles", the colleagues' "the Alice's and Bob's circles"), the last tells of Matilda
# before the exception. The answer is the same: Matilda's female colleagues are the other women of both circles.
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


def _circle_exception(n: str) -> str:
    return (
        f"The people in the circle around Bob do not have other {n}s aside - with the only exception of Matilda. "
        f"She is {n} of Bob and she is also {n} of Alice, being part of Alice's circle."
    )


_QUESTION = "How many female {n}s does Matilda have?"
_BEYOND = "All the mentioned persons have no {n}s beyond the already described group of people."
for _n, _outside in (("friend", "the Alice and Bob circles"), ("colleague", "the Alice's and Bob's circles")):
    _q = _QUESTION.format(n=_n)
    _family(
        f"circles.{_n}s.all_that_alice_has",
        "Colleague Circles",
        f"{_circle_opening(_n, in_total=False)} {_circle_exception(_n)} {_q}",
        _matilda,
    )
    _family(
        f"circles.{_n}s.all_that_alice_has.no_outside",
        "Colleague Circles",
        f"{_circle_opening(_n, in_total=False)} {_circle_exception(_n)} Mathilda has no other {_n}s outside of "
        f"{_outside}. {_q}",
        _matilda,
    )
    _family(
        f"circles.{_n}s.in_total.beyond",
        "Colleague Circles",
        f"{_circle_opening(_n, in_total=True)} {_circle_exception(_n)} {_BEYOND.format(n=_n)} {_q}",
        _matilda,
    )
    _family(
        f"circles.{_n}s.in_total.only_person",
        "Colleague Circles",
        f"{_circle_opening(_n, in_total=True)} Matilda is a {_n} of Bob. She is the only person from Bob's circle "
        f"who has {_n}s outside Bob's circle, all other people in Bob's circle have no further {_n}s aside. "
        f"Matilda is {_n} of Alice, being part of Alice's circle. {_BEYOND.format(n=_n)} {_q}",
        _matilda,
    )

# Matilda's friends (records 565-576): Alice's male friend has all the women of the group, Matilda's female
# friends and Matilda herself.
_MATILDA_FRIENDS = (
    "Matilda is one of Alice's female friends. Matilda has {female:female friend|female friends} in total."
)
_ALL_FRIENDS = "All mentioned persons are friends with each other and have no other friends aside."
_MALE_FRIEND_Q = "How many female friends does male friend of Alice have?"
_family(
    "matilda_friends.alice_males",
    "AIW Friends Matilda",
    f"Alice has {_MALE} and she also has female friends. {_MATILDA_FRIENDS} {_ALL_FRIENDS} {_MALE_FRIEND_Q}",
    lambda s: add(s["female"], 1),
)
_family(
    "matilda_friends.bob",
    "AIW Friends Matilda",
    f"Alice has male friends and she also has female friends. {_MATILDA_FRIENDS} Bob is one of Matilda's male "
    f"friends. Bob has {_MALE} in total. {_ALL_FRIENDS} {_MALE_FRIEND_Q}",
    lambda s: add(s["female"], 1),
)


# Bowls (records 685-764, a control without people): a big (or plain) blue bowl with red and blue bowls beside it
# on one table. The question asks for the blue bowls with, beside or near the red ones (all of them: the big one is
# blue too) or near a blue one (each small blue bowl; the published answers leave the big bowl out there), or for
# every bowl beside the big one.
def _blue_and_big(s: Slots) -> Answer:
    return add(s["blue"], 1)


def _blue_only(s: Slots) -> Answer:
    return s["blue"]


_RED_BLUE = f"{_count('red', 'red bowl')} and {_count('blue', 'blue bowl')} on the table."
_BESIDE_RED = "How many blue bowls are on the table beside the red bowls?"
_BOWL_FORMS: tuple[tuple[str, str, Callable[[Slots], Answer]], ...] = (
    (
        "next_which.with_red",
        f"On a table, there is a big bowl, next to this bowl, which is blue, there are {_RED_BLUE} How many blue "
        "bowls are on the table with red bowls?",
        _blue_and_big,
    ),
    (
        "next_which.beside_big",
        f"On a table, there is a big bowl, next to this bowl, which is blue, there are {_RED_BLUE} How many bowls "
        "are on the table beside the big bowl?",
        lambda s: add(s["red"], s["blue"]),
    ),
    (
        "next_which.next_to_red",
        f"On a table, there is a big bowl, next to this bowl, which is blue, there are {_RED_BLUE} How many blue "
        "bowls are on the table next to the red bowls?",
        _blue_and_big,
    ),
    (
        "which_next",
        f"On a table, there is a big bowl, which is blue, next to this bowl there are {_RED_BLUE} {_BESIDE_RED}",
        _blue_and_big,
    ),
    (
        "big_blue_next",
        f"On a table, there is a big blue bowl, next to this bowl there are {_RED_BLUE} {_BESIDE_RED}",
        _blue_and_big,
    ),
    (
        "big_blue_addition",
        f"On a table, there is a big blue bowl, in addition to this bowl there are {_RED_BLUE} {_BESIDE_RED}",
        _blue_and_big,
    ),
    (
        "which_addition",
        f"On a table, there is a big bowl, which is blue, in addition to this bowl there are {_RED_BLUE} "
        f"{_BESIDE_RED}",
        _blue_and_big,
    ),
    (
        "blue_addition",
        f"On a table, there is a blue bowl, in addition to this bowl there are {_RED_BLUE} {_BESIDE_RED}",
        _blue_and_big,
    ),
    (
        "blue_further",
        f"On a table, there is a blue bowl. Further, there are {_RED_BLUE} How many blue bowls are on the table "
        "besides the red bowls?",
        _blue_and_big,
    ),
    (
        "big_blue_further",
        f"On a table, there is a big blue bowl. Further, there are {_RED_BLUE} How many blue bowls are on the "
        "table besides the red bowls?",
        _blue_and_big,
    ),
    (
        "near.which.same_table",
        "A big bowl is on a table and there are {blue} blue and {red} red bowls near that bowl, which is blue. "
        "How many blue bowls are near the red bowl which is on the same table as the big bowl?",
        _blue_and_big,
    ),
    (
        "near.big_blue.same_table",
        "A big blue bowl is on a table and there are {blue} blue and {red} red bowls near that bowl. How many "
        "blue bowls are near the red bowl which is on the same table as the big bowl?",
        _blue_and_big,
    ),
    (
        "near.big_blue.near_red",
        "A big blue bowl is on a table and there are {blue} blue and {red} red bowls near that bowl. How many "
        "blue bowls are near a red bowl?",
        _blue_and_big,
    ),
    (
        "near.big_blue.near_blue",
        "A big blue bowl is on a table and there are {blue} blue and {red} red bowls near that bowl. How many "
        "blue bowls are near a blue bowl?",
        _blue_only,
    ),
    (
        "on_table.placed_red",
        "A big blue bowl is on a table and there are {blue} blue and {red} red bowls on the table. How many blue "
        "bowls are on the table that a red bowl placed on?",
        _blue_and_big,
    ),
    (
        "on_table.placed_blue",
        "A big blue bowl is on a table and there are {blue} blue and {red} red bowls on the table. How many blue "
        "bowls are on the table that a blue bowl placed on?",
        _blue_only,
    ),
)
for _name, _template, _bowl_solver in _BOWL_FORMS:
    _family(f"bowls.{_name}", "Bowls (control)", _template, _bowl_solver)

# Movies (records 669-692, a control without people): Rabbit Hole is one of the comedies of its year.
_RABBIT = (
    "Rabbit Hole by Alice was released in {year} alongside {comedies} other comedies and {westerns} westerns"
)
for _name, _template in (
    (
        "westerns_in_theatres",
        "Assume following is true and answer the question: Rabbit Hole was in {year} in theatres. Alongside this "
        "comedy there were {westerns} westerns and {comedies} comedies. How many comedies could you watch when "
        "the westerns were in theaters?",
    ),
    ("that_year", f"{_RABBIT} including one by Alice. How many comedies were released that year?"),
    (
        "directors_comedy",
        f"{_RABBIT} including one by Alice. How many comedies were released when the comedy by Rabbit Hole's "
        "director was out?",
    ),
):
    _family(f"movies.{_name}", "Movies (control)", _template, lambda s: add(s["comedies"], 1))
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
_family(
    "beads.yellow_green",
    "Beads (control)",
    _BEADS,
    lambda s: add(s["yellow_square_green"], s["yellow_oval_green"]),
    published_only=True,
)
# Record 684 writes "by ,Alice" (as published; its neighbours write "by Alice").
_family(
    "movies.that_year.comma_typo",
    "Movies (control)",
    f"{_RABBIT.replace('by Alice', 'by ,Alice')} including one by Alice. How many comedies were released that year?",
    lambda s: add(s["comedies"], 1),
    published_only=True,
)


# Further friends wordings (records 347-362, 383-390): "who are all friends" as one sentence, and the control
# questions that count the women of the group (Alice and her female friends).
_WHO_ALL = ", who are all friends with each other and have no other friends aside."
_THEY_ALL = ". They all are friends with each other and have no other friends aside."
for _form, _clause in (("who", _WHO_ALL), ("they_all", _THEY_ALL)):
    for _order, _facts in (
        ("mf", f"{_MALE} and she also has {_FEMALE}"),
        ("fm", f"{_FEMALE} and she also has {_MALE}"),
    ):
        for _q, _question in (
            ("male_friend", _FRIENDS_Q),
            ("female_friends_total", "How many female friends are there in total?"),
            ("females_total", "How many females are there in total?"),
        ):
            _name = f"friends.{_form}_sentence.{_order}.{_q}"
            if _form == "they_all" and _q == "male_friend":
                continue  # the same text as friends.they_all.*
            _family(_name, "AIW Friends", f"Alice has {_facts}{_clause} {_question}", _female_plus_one)

# Colleagues with the facts in the other order (records 394-414).
_family(
    "colleagues.female_male.reversed",
    "AIW Colleagues",
    f"Alice has {_count('male', 'male colleague')} and she also has {_count('female', 'female colleague')}. "
    f"{_WORK} How many female colleagues does Alice's male colleague have?",
    _female_plus_one,
)
_family(
    "colleagues.scientist.engineers.reversed",
    "AIW Colleagues",
    f"Alice is a scientist who has {_count('others', 'software engineer colleague')} and she also has {_SCI}. "
    f"{_WORK} How many scientist colleagues does a software engineer have?",
    lambda s: add(s["scientists"], 1),
)
_family(
    "colleagues.scientist.non_scientists.reversed",
    "AIW Colleagues",
    f"Alice is a scientist who has {_NON} and she also has {_SCI}. {_WORK} "
    "How many scientist colleagues does a non-scientist have?",
    lambda s: add(s["scientists"], 1),
)
_family(
    "colleagues.scientist.herself.reversed",
    "AIW Colleagues",
    f"Alice has {_NON}. She is herself a scientist and she also has {_SCI}. {_WORK} "
    "How many scientist colleagues does a non-scientist have?",
    lambda s: add(s["scientists"], 1),
)
# Bob's friends and colleagues, and Alice's colleagues "all mentioned" (records 590-592): the question swaps the
# sexes for Bob.
_family(
    "friends.bob.all_mentioned",
    "AIW Friends",
    f"Bob has {_FEMALE} and he also has {_MALE}. They all are friends with each other and have no other friends "
    "aside. How many male friends does female friend of Bob have?",
    lambda s: add(s["male"], 1),
)
_family(
    "colleagues.alice.all_mentioned",
    "AIW Colleagues",
    f"Alice has {_count('male', 'male colleague')} and she also has {_count('female', 'female colleague')}. All "
    "mentioned persons are colleagues of each other and have no other colleagues aside. How many female "
    "colleagues does male colleague of Alice have?",
    _female_plus_one,
)
_family(
    "colleagues.bob.all_mentioned",
    "AIW Colleagues",
    f"Bob has {_count('female', 'female colleague')} and he also has {_count('male', 'male colleague')}. All "
    "mentioned persons are colleagues of each other and have no other colleagues aside. How many male "
    "colleagues does female colleague of Bob have?",
    lambda s: add(s["male"], 1),
)

# One-off wordings of the sibling problem (records 15-16, 41-42, 178-184, 305-312, 330-334), kept in a group of
# their own so that fresh variations of the AIW group stay the paper's two word orders.
_WORDINGS = "AIW other wordings (as published)"
_IDENTIFY = "All brothers identify themselves as males, and all sisters identify themselves as females."
_PRECISION = (
    "Alice and her sisters identify themselves as female, the brothers identify themselves as male. All persons "
    "described before have same two parents and are one family."
)
for _order, _facts in (("bs", f"{_B} and she also has {_S}"), ("sb", f"{_S} and she also has {_B}")):
    _family(
        f"aiw.identify.{_order}", _WORDINGS, f"Alice has {_facts}. {_IDENTIFY} {_ALICE_Q}", _sisters_plus_one
    )
    _family(
        f"aiw.precision.{_order}",
        _WORDINGS,
        f"Alice has {_facts}. {_ALICE_Q} {_PRECISION}",
        _sisters_plus_one,
    )
for _name, _opening in (
    ("person_and", f"Alice is a person and has {_S} and she also has {_B}."),
    ("person_who", f"Alice is a person who has {_S} and she also has {_B}."),
    ("person_and_she", f"Alice is a person and she has {_S} and she also has {_B}."),
    ("simple_female", f"Alice is female. She has {_S} and {_B}."),
    ("simple_person", f"Alice is a person. She has {_S} and {_B}."),
    ("simple_family", f"Alice has a family. She has {_S} and {_B}."),
    ("simple_in_family", f"Alice has a family. In her family, she has {_S} and {_B}."),
):
    _family(f"aiw.{_name}.sb", _WORDINGS, f"{_opening} {_ALICE_Q}", _sisters_plus_one)
_family(
    "bob.siblings.bs",
    _WORDINGS,
    f"Bob has {_B} and he also has {_S}. How many siblings does Bob have?",
    lambda s: add(s["brothers"], s["sisters"]),
)
_BOY_Q = "How many brothers does boys's sister have?"  # sic, as published
_family("boy.sb", "AIW A boy", f"A boy has {_S} and he also has {_B}. {_BOY_Q}", _brothers_plus_one)
_family("boy.bs", "AIW A boy", f"A boy has {_B} and he also has {_S}. {_BOY_Q}", _brothers_plus_one)
_TWO_GIRLS = "Two girls are sisters who also have further"
for _name, _question in (("girls", "the girls' brother"), ("alice", "Alice's brother")):
    _family(
        f"two_girls.{_name}",
        "AIW Two girls",
        f"{_TWO_GIRLS} {_S} and {_B}. How many sisters does {_question} have?",
        lambda s: add(s["sisters"], 2),
    )
_family(
    "two_girls.no_other",
    "AIW Two girls",
    f"{_TWO_GIRLS} {_B} and no other sisters. How many sisters does the girls' brother have?",
    lambda s: 2,
)
# Record 292: Alice's siblings when she has no sisters are Bob and his brothers.
_family(
    "alice_and_bob.no_sisters.alice_siblings",
    "AIW Ext",
    f"Alice and Bob are sister and brother. Alice has no sisters and Bob has {_B}. How many siblings does Alice "
    "have?",
    _brothers_plus_one,
)
# Record 328: Alice and Mary are the only sisters.
_family(
    "alice_and_mary.no_other",
    "AIW Alice and Mary",
    f"Alice and Mary are sisters who also have further {_B} and no other sisters. How many sisters does Alice's "
    "brother have?",
    lambda s: 2,
)
# Record 86 (the SQL prompt) states the problem with "a brother" and asks for the sisters "in total".
_family(
    "aiw.a_brother.in_total",
    _WORDINGS,
    f"Alice has {_S} and she also has a brother. How many sisters in total does Alice's brother have?",
    _sisters_plus_one,
)
# Record 163 leaves out the full stop before the question (as published; its neighbours 162 and 164 have it).
_family(
    "female_boost.words.bs.no_stop",
    _WORDINGS,
    f"Alice is female and has {_B} and she also has {_S} {_ALICE_Q}",
    _sisters_plus_one,
    words=True,
    published_only=True,
)
_family(
    "alice_and_bob.alice_siblings",
    "AIW Ext",
    f"Alice and Bob are sister and brother. Alice has {_S} and Bob has {_B}. How many siblings does Alice have?",
    lambda s: add(s["sisters"], s["brothers"], 1),
)


# "Name them all" (records 297-300): every sibling named; the counts must match the names given.
_NAMED = (
    ("v1", ("Jack", "Frank", "Bob"), ("Mary", "Elisa", "Sue", "Julia", "Jane", "Marianna"), True),
    ("v2", ("Jack", "Frank", "David", "Bob"), ("Elisa", "Marianna"), False),
    ("v3", ("Bob",), ("Mary", "Elisa", "Sue", "Marianna"), False),
    ("v4", ("Jack", "Frank", "David", "Bob"), ("Marianna",), True),
)


def _names(names: tuple[str, ...]) -> str:
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def _named_counts(brothers: int, sisters: int) -> Callable[[Slots], bool]:
    return lambda s: s["brothers"] == brothers and s["sisters"] == sisters


for _v, _brothers, _sisters, _brothers_first in _NAMED:
    _bro = f"{_B} - {_names(_brothers)}"
    _sis = f"{_S} - {_names(_sisters)}"
    _first, _then = (_bro, _sis) if _brothers_first else (_sis, _bro)
    _family(
        f"named_all.{_v}",
        "AIW Name them all",
        f"Alice has {_first}. She also has {_then}. How many sisters does Bob have?",
        _sisters_plus_one,
        consistent=_named_counts(len(_brothers), len(_sisters)),
        published_only=True,
    )


# The circles with "N female colleague" for any N (records 602-647, 825: the singular after a count above one,
# as published).
def _typo_circle(text: str) -> str:
    return re.sub(r"\{alice_female:female (\w+)\|female \w+\}", r"{alice_female} female \1", text)


for _n, _outside in (("friend", "the Alice and Bob circles"), ("colleague", "the Alice's and Bob's circles")):
    _q = _QUESTION.format(n=_n)
    for _name, _text in (
        ("all_that_alice_has", f"{_circle_opening(_n, in_total=False)} {_circle_exception(_n)} {_q}"),
        (
            "all_that_alice_has.no_outside",
            f"{_circle_opening(_n, in_total=False)} {_circle_exception(_n)} Mathilda has no other {_n}s outside "
            f"of {_outside}. {_q}",
        ),
        (
            "in_total.beyond",
            f"{_circle_opening(_n, in_total=True)} {_circle_exception(_n)} {_BEYOND.format(n=_n)} {_q}",
        ),
        (
            "in_total.only_person",
            f"{_circle_opening(_n, in_total=True)} Matilda is a {_n} of Bob. She is the only person from Bob's "
            f"circle who has {_n}s outside Bob's circle, all other people in Bob's circle have no further {_n}s "
            f"aside. Matilda is {_n} of Alice, being part of Alice's circle. {_BEYOND.format(n=_n)} {_q}",
        ),
        ("mod8", _circles(_n)),
    ):
        _family(f"circles.{_n}s.{_name}.singular_typo", "Colleague Circles", _typo_circle(_text), _matilda)


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


def _mod3(beyond: str) -> str:
    return (
        f"{_circle_opening('colleague', in_total=True)} The people in the circle around Bob do not have other "
        "colleagues aside - with the only exception of Matilda. She is colleague of Bob and she is also colleague "
        f"of Alice. All the mentioned persons have no colleagues {beyond} the already described group of people. "
        f"{_QUESTION.format(n='colleague')}"
    )


_IN_TOTAL = _circle_opening("colleague", in_total=True)
_CIRCLE_Q = _QUESTION.format(n="colleague")
_TOTAL_GROUP = (
    "All the mentioned persons have no colleagues beyond the already described total group of people."
)
for _name, _text, _kw in (
    ("peers", _peers("", ""), {}),
    ("peers.around_alice", _peers(" around Alice", ""), {}),
    ("peers.around_alice.part", _peers(" around Alice", ", being part of Alice's circle"), {}),
    ("mod3.beoynd_typo", _mod3("beoynd"), {"published_only": True}),
    ("mod3", _mod3("beyond"), {}),
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
    _family(f"circles.colleagues.{_name}", "Colleague Circles", _text, _matilda, **_kw)


# AIW+ (cousins). Alice's mother has a childless sister, so the aunt's nephews and nieces are the children of the
# mother and of the mother's brothers; the father's brother's nephews and nieces are the children of the father
# and of the father's sisters. Subtracting Alice and her siblings from each total leaves the cousins on that side,
# and the uncle's own children are cousins too. Alice's sister shares all of them.
@dataclass(frozen=True)
class _CousinForm:
    """One AIW+ wording; the published records combine these independent choices."""

    opening: (
        str  # "plain": sisters only; "no_other": "and no other siblings"; "in_total": sisters and brothers
    )
    mother: str  # "dash": "- she has"; "who": "and who has"; "brothers_first": "Her mother has N brothers."
    father_sisters: bool  # "Alice's father has N sisters. He also has a brother ..."
    split: bool  # "N nephews and M nieces" instead of "N nephews and nieces"
    child: str  # the father's brother's children: "son" or "daughter"
    has_also: bool  # "who has also N son" (the first records) instead of "who also has"
    male: bool  # asks for male cousins only

    @property
    def name(self) -> str:
        parts = [self.opening, self.mother]
        parts += ["father_sisters"] * self.father_sisters + ["split"] * self.split
        parts += [f"{self.child}s"] + ["has_also"] * self.has_also + ["male"] * self.male
        return "aiw_plus." + ".".join(parts)


def _kin(who: str, split: bool) -> str:
    if split:
        return f"{_count(f'{who}_nephews', 'nephew')} and {_count(f'{who}_nieces', 'niece')}"
    return "{%s_kin} nephews and nieces" % who  # noqa: UP031 - braces are template syntax


def _cousin_template(f: _CousinForm) -> str:
    opening = {
        "plain": f"Alice has {_S}.",
        "no_other": f"Alice has {_S} and no other siblings.",
        "in_total": f"Alice has {_S} and {_B} in total.",
    }[f.opening]
    aunt = _kin("aunt", f.split)
    if f.mother == "brothers_first":
        mother = (
            f"Her mother has {_count('mother_brothers', 'brother')}. She also has 1 sister who does not have "
            f"children and who has {aunt} in total."
        )
    else:
        joint = " - she has" if f.mother == "dash" else " and who has"
        total = " in total" if f.split else ""
        mother = (
            f"Her mother has 1 sister who does not have children{joint} {aunt}{total} and also "
            f"{_count('mother_brothers', 'brother')}."
        )
    father = "Alice's father has "
    if f.father_sisters:
        father += f"{_count('father_sisters', 'sister')}. He also has "
    children = _count(f"uncle_{f.child}s", f.child)
    verb = "has also" if f.has_also else "also has"
    father += f"a brother who has {_kin('uncle', f.split)} in total, and who {verb} {children}."
    question = f"How many {'male ' if f.male else ''}cousins does Alice's sister have?"
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


def _cousin_solver(f: _CousinForm) -> Callable[[Slots], Answer]:
    def solve(s: Slots) -> Answer:
        girls, boys = _int(s, "sisters") + 1, _int(s, "brothers")  # Alice is one of the girls
        aunt, uncle = _kin_counts(s, "aunt"), _kin_counts(s, "uncle")
        sons = _int(s, "uncle_sons")
        if f.male:
            # The male cousins are the nephews other than Alice's brothers, on both sides, and the uncle's sons.
            return aunt[0] - boys + uncle[0] - boys + sons
        own = sons + _int(s, "uncle_daughters")
        return sum(aunt) - girls - boys + sum(uncle) - girls - boys + own

    return solve


def _cousin_consistent(f: _CousinForm) -> Callable[[Slots], bool]:
    def check(s: Slots) -> bool:
        girls, boys = _int(s, "sisters") + 1, _int(s, "brothers")
        for who in ("aunt", "uncle"):
            nephews, nieces = _kin_counts(s, who)
            if f.split and (nephews < boys or nieces < girls):
                return False
            if nephews + nieces < girls + boys:
                return False
        return True

    return check


def _cousin_forms() -> list[_CousinForm]:
    # The combinations the published records use (ids 91-99, 447-452, 485-564, 815-820).
    forms = [
        _CousinForm("plain", mother, False, False, child, has_also, False)
        for mother, child, has_also in (
            ("dash", "son", True),
            ("dash", "son", False),
            ("dash", "daughter", False),
            ("who", "son", True),
            ("who", "son", False),
            ("who", "daughter", False),
        )
    ]
    for mother in ("dash", "who"):
        forms += [
            _CousinForm("no_other", mother, fs, False, child, False, False)
            for fs in (False, True)
            for child in ("son", "daughter")
            if mother == "who" or not fs
        ]
    for mother in ("dash", "who", "brothers_first"):
        # Without the father's sisters only the male-cousins question with a son was published.
        forms.append(_CousinForm("in_total", mother, False, True, "son", False, True))
        forms += [
            _CousinForm("in_total", mother, True, True, child, False, male)
            for child in ("son", "daughter")
            for male in (False, True)
        ]
    forms += [
        _CousinForm("in_total", "brothers_first", True, False, child, False, False)
        for child in ("son", "daughter")
    ]
    return forms


for _cousin in _cousin_forms():
    _family(
        _cousin.name,
        "AIW+",
        _cousin_template(_cousin),
        _cousin_solver(_cousin),
        consistent=_cousin_consistent(_cousin),
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
