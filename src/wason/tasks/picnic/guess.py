"""Reading a Static Picnic guess as category names, and judging it by code.

The published answer format is ``Items from the category/categories 'x' and 'y'``. A guess is read tolerantly:
quotes (straight, curly, backticks or none), case, plurals (``mammals``, ``kitchen utensils``), ``and``, commas,
``&`` and ``+`` between names, a lead-in such as ``My guess is:``, markdown emphasis, and a trailing sentence
after the names. Names joined by ``or`` (and never ``and``) are read as a union. Category names are matched
longest first, so ``luggage and bags`` stays one name.

The code judge: the guess is right when the set of items it accepts, over all 511 items, equals the rule's
(``animal`` + ``mammal`` is ``mammal``). A guess with words that are no category (``red things``) cannot be
judged by code; it is reported as such (``unknown``), and the game lets the LLM judge decide it when there is
one, flagged, else counts it wrong.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from typing import Literal

from wason.tasks.picnic.catalog import catalog

MAX_GUESS_CHARS = 4_000
"""Longer guesses are read from their last this many characters (the answer is usually at the end)."""
MAX_NAMES = 8

Combine = Literal["all", "any"]

_QUOTES = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"', "`": "'", "\u00b4": "'"})
_ANSWER = re.compile(
    r"items?\s+(?:that\s+are\s+)?(?:from|in|of)\s+(?:the\s+|both\s+)?categor(?:y|ies)\b\s*:?", re.I
)
_LEAD_INS = re.compile(
    r"^(?:(?:my|the|final)\s+)*(?:final\s+)?(?:guess|answer|rule|hypothesis)(?:\s+is)?\s*[:\-]?\s*"
    r"|^(?:the\s+)?categor(?:y|ies)(?:\s+is|\s+are)?\s*:?\s*"
    r"|^items?\s+(?:that\s+are|which\s+are)\s+",
    re.I,
)
_QUOTED = re.compile(r"'([^'\n]{1,60})'|\"([^\"\n]{1,60})\"")
_FILLER = frozenset(
    (
        *("and", "or", "the", "a", "an", "both", "of", "from", "in", "also", "all", "any", "either"),
        *("category", "categories", "items", "item"),
        *(",", "&", "+", "/", ";", ":", ".", "!", "?", "(", ")"),
    )
)
_TOKEN = re.compile(r"[a-z0-9]+|[^\sa-z0-9]")


@dataclass(frozen=True)
class ReadGuess:
    """A guess as read: the category names found, in order, without repeats; ``any`` when they are joined by
    ``or``; the words that name no category; whether it used the published "Items from the category..." phrase."""

    categories: tuple[str, ...]
    combine: Combine = "all"
    unknown: tuple[str, ...] = ()
    answer_format: bool = False

    @property
    def readable(self) -> bool:
        """Whether the code can judge it: at least one category and no unknown words."""
        return bool(self.categories) and not self.unknown


@dataclass(frozen=True)
class CodeVerdict:
    """The code's verdict on a guess (None when it cannot read it), with up to 5 of the rule's items the guess
    rejects (``missing``) and of the items it accepts that the rule rejects (``extra``)."""

    equivalent: bool | None
    guess: ReadGuess
    guess_positives: int | None = None
    missing: tuple[str, ...] = ()
    extra: tuple[str, ...] = ()

    def as_json(self) -> dict[str, object]:
        return {
            "equivalent": self.equivalent,
            "categories": list(self.guess.categories),
            "combine": self.guess.combine,
            "unknown": list(self.guess.unknown),
            "answer_format": self.guess.answer_format,
            "guess_positives": self.guess_positives,
            "missing": list(self.missing),
            "extra": list(self.extra),
        }


def _forms(name: str) -> set[str]:
    """Spellings a player may use for a category: singular and plural of its last word, without a
    parenthesised note (``ball (object)`` -> ``ball``)."""
    base = name.lower()
    out = {base}
    bare = re.sub(r"\s*\([^)]*\)", "", base).strip()
    out.add(bare)
    for form in list(out):
        head, _, last = form.rpartition(" ")
        prefix = f"{head} " if head else ""
        variants = {last + "s", last + "es"}
        if last.endswith("y") and not last.endswith(("ay", "ey", "oy", "uy")):
            variants.add(last[:-1] + "ies")
        if last.endswith("ies"):
            variants.add(last[:-3] + "y")
        if last.endswith("es"):
            variants.add(last[:-2])
        if last.endswith("s") and not last.endswith("ss"):
            variants.add(last[:-1])
        out |= {prefix + v for v in variants if len(v) > 2}
    return out


_EXTRA_FORMS = {"people": "person", "persons": "person", "sea food": "seafood", "trouser": "trousers"}


@cache
def spellings() -> tuple[tuple[tuple[str, ...], str], ...]:
    """(tokens of a spelling, category) pairs, longest first: how names are found in a guess."""
    table: dict[str, str] = {}
    tags = catalog().tags
    for tag in tags:  # a tag's own name always wins over another tag's variant
        table[tag.lower()] = tag
    for tag in tags:
        for form in _forms(tag):
            table.setdefault(form, tag)
    for form, tag in _EXTRA_FORMS.items():
        table.setdefault(form, tag)
    pairs = [(tuple(_TOKEN.findall(form)), tag) for form, tag in table.items()]
    pairs.sort(key=lambda p: -len(p[0]))
    return tuple(pairs)


def _normalize(text: str) -> str:
    text = text[-MAX_GUESS_CHARS:].translate(_QUOTES)
    text = re.sub(r"[*_#>]+", " ", text)
    return text.lower()


def _segment(text: str) -> tuple[str, bool]:
    """The part of a guess that names the categories, and whether it used the answer phrase."""
    found = list(_ANSWER.finditer(text))
    if found:
        rest = text[found[-1].end() :].lstrip(" \t\n:")
        # up to the end of the line or of the sentence ("." followed by a space or the end)
        rest = re.split(r"\n|\.(?:\s|$)", rest, maxsplit=1)[0]
        return rest, True
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    last = lines[-1] if lines else ""
    for _ in range(3):
        stripped = _LEAD_INS.sub("", last, count=1)
        if stripped == last:
            break
        last = stripped
    return re.split(r"\.(?:\s|$)", last, maxsplit=1)[0], False


def read_guess(text: str) -> ReadGuess:
    """Read a guess as category names (see the module docstring). Never fails: an unreadable guess has no
    categories."""
    segment, answer = _segment(_normalize(text))
    quoted = [a or b for a, b in _QUOTED.findall(segment)]
    chunks = quoted if quoted else [segment]
    names: list[str] = []
    unknown: list[str] = []
    joiners: set[str] = set()
    for chunk in chunks:
        tokens = _TOKEN.findall(chunk)[:200]
        i = 0
        while i < len(tokens):
            match = next(
                ((len(form), tag) for form, tag in spellings() if tuple(tokens[i : i + len(form)]) == form),
                None,
            )
            if match is not None:
                if match[1] not in names:
                    names.append(match[1])
                i += match[0]
                continue
            token = tokens[i]
            if token in ("and", "&", "+", ","):
                joiners.add("and")
            elif token == "or":
                joiners.add("or")
            elif token not in _FILLER and token != "'":
                unknown.append(token)
            i += 1
    if quoted:
        # between quoted names only the joiners count
        between = _QUOTED.sub(" ", segment)
        words = set(_TOKEN.findall(between))
        joiners = {"or"} if "or" in words and "and" not in words else {"and"}
    combine: Combine = "any" if joiners == {"or"} and len(names) > 1 else "all"
    return ReadGuess(
        categories=tuple(names[:MAX_NAMES]),
        combine=combine,
        unknown=tuple(dict.fromkeys(unknown))[:MAX_NAMES],
        answer_format=answer,
    )


def guess_members(read: ReadGuess) -> int | None:
    """The items a read guess accepts, or None when the code cannot judge it."""
    if not read.readable:
        return None
    cat = catalog()
    if read.combine == "any":
        mask = 0
        for name in read.categories:
            mask |= cat.extension[name]
        return mask
    return cat.members(read.categories)


def judge_guess(text: str, rule_members: int) -> CodeVerdict:
    """The code's verdict on a guess against a rule's items (see the module docstring)."""
    read = read_guess(text)
    mask = guess_members(read)
    if mask is None:
        return CodeVerdict(equivalent=None, guess=read)
    cat = catalog()
    return CodeVerdict(
        equivalent=mask == rule_members,
        guess=read,
        guess_positives=bin(mask).count("1"),
        missing=tuple(cat.names(rule_members & ~mask)[:5]),
        extra=tuple(cat.names(mask & ~rule_members)[:5]),
    )
