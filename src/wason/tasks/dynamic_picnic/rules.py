"""The published Dynamic Picnic rules as a split, each tested before play.

The five published files (package data, copied byte for byte from the reference) hold 410 rules: five types,
levels L1-L3 assigned by the reference's classifier. Two texts occur twice (a categorical L3 and a relational
L1); the default pool keeps the first of each (``distinct``, 408 rules), the ``published`` pool keeps all 410.

Each rule gets a *kind*, decided by code before any game:

* ``lexical``: the rule is about letters, length or spelling only. It must come with a predicate in the word
  language (:func:`wason.sandbox.words.compile_word_rule`), which decides membership by code. The predicates of
  the published rules are written here (:data:`PREDICATES`, and one pattern for the "single-word noun that
  starts with the letter X" family). A lexical rule without one is *rejected*, with the reason.
* ``mixed``: a lexical part decided by a predicate and a semantic part ("a single-word noun") decided by the
  validator panel; an item fits when both say yes.
* ``semantic``: decided by the validator panel alone.

The 90 relational rules are about *pairs* of items ("Pairs of items can be brought ... if they are both ...")
while the game shows and judges single items, so they are excluded by default, with that reason; the option
``relational`` keeps them (judged as written, on single items, as the reference did).
"""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import dataclass
from functools import cache
from typing import Literal

from wason.core.guess_rule import package_text
from wason.sandbox.language import GuessRejected
from wason.sandbox.words import WordProgram, compile_word_rule

RULE_TYPES = ("attribute_based", "categorical", "logical", "relational", "semantic")
LEVELS = ("L1", "L2", "L3")
POOLS = ("distinct", "published")
Kind = Literal["lexical", "mixed", "semantic"]
KINDS: tuple[Kind, ...] = ("lexical", "mixed", "semantic")

RELATIONAL_REASON = (
    "a relational rule is about pairs of items; the game shows and judges single items, so it cannot be played "
    "as written"
)

# Words that make a rule lexical: it speaks of letters, length or spelling.
_LEXICAL = re.compile(
    r"\b(letters?|vowels?|consonants?|palindromes?|spell(?:ed|ing)?|syllables?|anagrams?|alphabet(?:ical)?|"
    r"qwerty|morse|acronym|hyphen(?:ated)?|alliteration|typed)\b",
    re.IGNORECASE,
)

_VOWEL = '"aeiou"'
_SINGLE = '" " not in w and "-" not in w'
# Morse code, dots minus dashes per letter a..z, shifted by 4 so each is one digit.
_MORSE = (
    ".-", "-...", "-.-.", "-..", ".", "..-.", "--.", "....", "..", ".---", "-.-", ".-..", "--",
    "-.", "---", ".--.", "--.-", ".-.", "...", "-", "..-", "...-", ".--", "-..-", "-.--", "--..",
)  # fmt: skip
_MORSE_DIGITS = "".join(str(code.count(".") - code.count("-") + 4) for code in _MORSE)

_PICNIC = "can be brought to the picnic."
_ITEMS = "Only items that "
_LOGICAL = "The item can be brought to the picnic only if its name "

_SPELLING: dict[str, str] = {
    # attribute-based
    f"{_ITEMS}have their vowels in alphabetical order {_PICNIC}": (
        f"lambda w: [c for c in w if c in {_VOWEL}] == sorted(c for c in w if c in {_VOWEL})"
    ),
    f"{_ITEMS}are palindromes {_PICNIC}": (
        'lambda w: len(w.replace(" ", "")) > 1 and w.replace(" ", "") == w.replace(" ", "")[::-1]'
    ),
    f"{_ITEMS}can be typed using only the top row of a QWERTY keyboard {_PICNIC}": (
        'lambda w: len(w) > 0 and all(c in "qwertyuiop" for c in w.replace(" ", ""))'
    ),
    f"{_ITEMS}have a prime number of letters in their names {_PICNIC}": (
        "lambda w: sum(c.isalpha() for c in w) in (2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37)"
    ),
    f"{_ITEMS}can be spelled without repeating a letter {_PICNIC}": (
        "lambda w: len(set(c for c in w if c.isalpha())) == sum(c.isalpha() for c in w)"
    ),
    f"{_ITEMS}contain the same number of consonants and vowels in their names {_PICNIC}": (
        f"lambda w: sum(c in {_VOWEL} for c in w) == sum(c.isalpha() and c not in {_VOWEL} for c in w)"
    ),
    (
        f"{_ITEMS}are spelled with letters that, when converted to their corresponding numbers in the alphabet "
        f"(A=1, B=2... Z=26), the sum of these numbers is a Fibonacci number {_PICNIC}"
    ): (
        "lambda w: sum(ord(c) - 96 for c in w if 'a' <= c <= 'z') in "
        "(1, 2, 3, 5, 8, 13, 21, 34, 55, 89, 144, 233, 377)"
    ),
    f"{_ITEMS}when translated into Morse Code, contain an equal number of dots and dashes {_PICNIC}".replace(
        "Only items that when", "Only items that, when"
    ): f'lambda w: sum(int("{_MORSE_DIGITS}"[ord(c) - 97]) - 4 for c in w if "a" <= c <= "z") == 0',
    f"{_ITEMS}have a double letter in their names {_PICNIC}": (
        "lambda w: any(a == b and a.isalpha() for a, b in zip(w, w[1:]))"
    ),
    f"{_ITEMS}start with the letter 'F' {_PICNIC}": 'lambda w: w.startswith("f")',
    # logical
    (
        # the published text says "only if it starts", not "only if its name starts" (rule 161)
        "The item can be brought to the picnic only if it starts with a vowel, contains an odd number of letters, "
        "and its last letter is not the same as the first."
    ): f"lambda w: w[0] in {_VOWEL} and sum(c.isalpha() for c in w) % 2 == 1 and w[-1] != w[0]",
    f"{_LOGICAL}starts with a vowel and has an even number of letters.": (
        f"lambda w: w[0] in {_VOWEL} and sum(c.isalpha() for c in w) % 2 == 0"
    ),
    f"{_LOGICAL}starts with a consonant and ends with a vowel.": (
        f"lambda w: w[0].isalpha() and w[0] not in {_VOWEL} and w[-1] in {_VOWEL}"
    ),
}
_MIXED: dict[str, str] = {
    f"{_LOGICAL}is a one-word noun and starts with a consonant.": (
        f"lambda w: {_SINGLE} and w[0].isalpha() and w[0] not in {_VOWEL}"
    ),
    f"{_LOGICAL}is a single-word noun that contains the letter 'a' and ends with the letter 's'.": (
        f'lambda w: {_SINGLE} and "a" in w and w.endswith("s")'
    ),
    f"{_LOGICAL}is a single-word noun and ends with a vowel.": f"lambda w: {_SINGLE} and w[-1] in {_VOWEL}",
}
PREDICATES: dict[str, tuple[Kind, str]] = {
    **{text: ("lexical", predicate) for text, predicate in _SPELLING.items()},
    **{text: ("mixed", predicate) for text, predicate in _MIXED.items()},
}

# "... its name is a single-word noun that starts with the letter 'P'." and its siblings.
_NOUN_LETTER = re.compile(
    r"^The item can be brought to the picnic only if its name is a single-word noun (?:that|and) "
    r"(starts with|ends with|contains) the letter '([A-Za-z])'\.$"
)
_METHOD = {"starts with": "w.startswith({})", "ends with": "w.endswith({})", "contains": "{} in w"}


# A mixed rule whose part the panel decides is only "its name is a single-word noun": without a model a word
# list decides it (vocab.is_noun), so the rule can be played by code on single-word nouns.
_NOUN_CLAUSE = re.compile(
    r"^The item can be brought to the picnic only if its name is a (?:single|one)-word noun (?:that|and) "
)


def noun_rule(rule: PicnicRule) -> bool:
    """Whether code can play a mixed rule without a model: a published rule "its name is a single-word noun
    that/and ..." with a predicate for the rest (being a noun is decided by the word list of ``vocab``)."""
    return (
        rule.kind == "mixed"
        and rule.predicate is not None
        and rule.source == "published"
        and bool(_NOUN_CLAUSE.match(rule.text))
    )


def lexical_predicate(text: str) -> tuple[Kind, str] | None:
    """The kind and word-language predicate written for a published rule's text, or None."""
    if text in PREDICATES:
        return PREDICATES[text]
    found = _NOUN_LETTER.match(text)
    if found:
        test = _METHOD[found.group(1)].format(json.dumps(found.group(2).lower()))
        return "mixed", f"lambda w: {_SINGLE} and {test}"
    return None


def mentions_spelling(text: str) -> bool:
    """Whether a rule speaks of letters, length or spelling (so it needs a predicate to be played)."""
    return bool(_LEXICAL.search(text))


@dataclass(frozen=True)
class PicnicRule:
    """One rule and what code decided about it before any game (its kind: see the module docstring). ``id`` is
    its place in the published pool (the files in :data:`RULE_TYPES` order, rows in file order; generated rules
    number from 1 in their own split); ``rejection`` says why it cannot be played, None when it can."""

    id: int
    rule_type: str
    level: str
    text: str
    kind: Kind
    predicate: str | None = None
    rejection: str | None = None
    duplicate_of: int | None = None
    source: str = "published"

    @property
    def relational(self) -> bool:
        return self.rule_type == "relational"

    @property
    def key(self) -> str:
        return f"{self.source}:{self.id}"

    def program(self) -> WordProgram | None:
        """The compiled predicate (None for a semantic rule)."""
        return compile_word_rule(self.predicate) if self.predicate else None


def classify(text: str, predicate: str | None, kind: Kind | None = None) -> tuple[Kind, str | None]:
    """A rule's kind and, when it cannot be played, why: a rule about spelling needs a predicate that the word
    language accepts."""
    if predicate is not None:
        try:
            compile_word_rule(predicate)
        except GuessRejected as exc:
            return kind or "lexical", f"its predicate is not in the word language: {exc}"
        return kind or "lexical", None
    if mentions_spelling(text):
        return "lexical", (
            "a rule about letters, length or spelling needs a predicate in the word language to decide it by "
            "code, and none is written for this one"
        )
    return "semantic", None


@cache
def published_rules() -> tuple[PicnicRule, ...]:
    """All 410 published rules, with their kind, predicate and (where it cannot be played) rejection."""
    out: list[PicnicRule] = []
    first: dict[str, int] = {}
    for rule_type in RULE_TYPES:
        rows = json.loads(package_text("wason.tasks.dynamic_picnic", f"{rule_type}_rules.json"))
        for row in rows:
            text, level = str(row["rule"]), str(row["level"])
            if row.get("rule_type") != rule_type or level not in LEVELS:
                raise ValueError(f"{rule_type}_rules.json: unexpected row {row!r}")
            rid = len(out) + 1
            written_kind, predicate = lexical_predicate(text) or (None, None)
            kind, rejection = classify(text, predicate, written_kind)
            duplicate_of = first.get(text)
            first.setdefault(text, rid)
            if rule_type == "relational":
                rejection = RELATIONAL_REASON
            out.append(PicnicRule(rid, rule_type, level, text, kind, predicate, rejection, duplicate_of))
    return tuple(out)


def rule_pool(pool: str = "distinct", *, relational: bool = False) -> list[PicnicRule]:
    """The rules of a pool: ``distinct`` drops the second copy of a repeated text, ``published`` keeps it.
    Relational rules are left out unless ``relational`` is set."""
    if pool not in POOLS:
        raise ValueError(f"pool: unknown pool {pool!r}; choose one of: {', '.join(POOLS)}")
    rules = published_rules()
    return [
        r
        for r in rules
        if (pool != "distinct" or r.duplicate_of is None) and (relational or not r.relational)
    ]


def playable(rule: PicnicRule, *, relational: bool = False) -> bool:
    """Whether code lets the rule be played: no rejection, or only the relational one when those are kept."""
    if rule.rejection is None:
        return True
    return relational and rule.rejection == RELATIONAL_REASON and rule.kind != "lexical"


def get_rule(rule_id: int) -> PicnicRule:
    rules = published_rules()
    if not 1 <= rule_id <= len(rules):
        raise ValueError(f"ids: no published rule {rule_id} (1..{len(rules)})")
    return rules[rule_id - 1]


def counts(rules: list[PicnicRule] | tuple[PicnicRule, ...]) -> dict[str, dict[str, int]]:
    """Rules per type and level: ``{type: {L1: n, L2: n, L3: n, total: n}}`` plus a ``total`` row."""
    table = {name: dict.fromkeys((*LEVELS, "total"), 0) for name in (*RULE_TYPES, "total")}
    for rule in rules:
        for row in (rule.rule_type, "total"):
            table[row][rule.level] += 1
            table[row]["total"] += 1
    return table


def kind_counts(rules: list[PicnicRule] | tuple[PicnicRule, ...]) -> Counter[str]:
    return Counter(rule.kind for rule in rules)


# -- reading the game master's replies ---------------------------------------------------------------------
_RULE_LINE = re.compile(r"^\W*rule\s*:\s*(.+)$", re.IGNORECASE | re.MULTILINE)
_PRED_LINE = re.compile(r"^\W*predicate\s*:\s*(.+)$", re.IGNORECASE | re.MULTILINE)
_WHOLE_LINE = re.compile(r"^\W*whole\s*:\s*(yes|no)\b", re.IGNORECASE | re.MULTILINE)
MAX_RULE_CHARS = 1000


def read_rule(reply: str) -> str | None:
    """The rule of a writer's ``Rule: ...`` reply (the first such line), or None."""
    found = _RULE_LINE.search(reply)
    if not found:
        return None
    text = found.group(1).strip().strip("[]*\"'` ").strip()
    return text[:MAX_RULE_CHARS] if text else None


def read_level(reply: str) -> str | None:
    """A classifier's level: the reply must be exactly L1, L2 or L3 (spaces and a period aside)."""
    text = reply.strip().rstrip(".").strip().upper()
    return text if text in ("L1", "L2", "L3") else None


def read_predicate(reply: str) -> tuple[str | None, bool]:
    """The predicate line (None for NONE or none given) and whether it decides the whole rule."""
    found = _PRED_LINE.search(reply)
    whole = _WHOLE_LINE.search(reply)
    if not found:
        return None, False
    text = found.group(1).strip().strip("`").strip()
    if text.upper().startswith("NONE") or not text:
        return None, False
    return text, bool(whole and whole.group(1).lower() == "yes")


NO_RULE = "the rule writer's reply has no 'Rule: ...' line"


def generated_rule(rule_id: int, rule_type: str, record: dict[str, object]) -> PicnicRule:
    """A rule written by the game master, derived by code from the writer's record: the ``Rule:`` line, the
    first level the classifier answered (L2 after five unreadable answers, as the reference), and for a rule
    about spelling the predicate the sandbox must accept (``WHOLE: yes`` makes it lexical, else mixed)."""
    text = read_rule(str(record.get("rule_reply") or ""))
    if text is None:
        return PicnicRule(rule_id, rule_type, "L2", "", "semantic", rejection=NO_RULE, source="generated")
    replies = record.get("level_replies") or []
    levels = [read_level(str(r)) for r in replies] if isinstance(replies, list) else []
    level = next((lv for lv in levels if lv), "L2")
    predicate, whole = None, False
    if "predicate_reply" in record:
        predicate, whole = read_predicate(str(record["predicate_reply"]))
    kind, rejection = classify(text, predicate, ("lexical" if whole else "mixed") if predicate else None)
    if rule_type == "relational" and rejection is None and kind == "lexical":
        rejection = RELATIONAL_REASON
    return PicnicRule(rule_id, rule_type, level, text, kind, predicate, rejection, source="generated")


def existing_texts(rule_type: str) -> list[str]:
    """The published rules of a type, each once: what the rule writer is told not to repeat."""
    return list(dict.fromkeys(r.text for r in published_rules() if r.rule_type == rule_type))
