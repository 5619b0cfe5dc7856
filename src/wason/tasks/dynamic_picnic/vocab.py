"""Items drawn by code when no game-master model is at hand: English words from ``wordfreq`` (frequency-ranked,
shipped with the package; nothing downloaded), labelled by the rule's predicate.

The published rules "its name is a single-word noun that starts with the letter 'P'" (and 27 more of that form)
have a part no predicate decides: being a noun. Without a model it is decided by a word list shipped as package
data (``data/nouns.txt``: every a-z word of wordfreq's 50,000 most frequent that LemmInflect's lexicon lists,
marked noun only / noun among other readings / no noun reading; LemmInflect is MIT-licensed and derived from the
NIH SPECIALIST Lexicon). Such a game is played on single-word nouns: its items are drawn from the nouns (those with
no other reading first), and a word the list does not know is not decided.

Seeded: the same rule, seed and counts give the same items; each draw records generator, version and seed.
"""

from __future__ import annotations

import random
from functools import cache, lru_cache
from typing import Any, Literal

from wason.core.guess_rule import package_text
from wason.sandbox.words import MAX_WORD_STEPS, WordProgram, compile_word_rule

GENERATOR = "dynamic_picnic.vocab"
VERSION = 1
TOP_WORDS = 20_000
MIN_LEN, MAX_LEN = 3, 10
NOUNS = "nouns.txt"
Domain = Literal["words", "nouns"]


@cache
def vocabulary() -> tuple[str, ...]:
    """The candidate words: the 20,000 most frequent English words of 3-10 letters a..z, in rank order."""
    import wordfreq

    words = wordfreq.top_n_list("en", TOP_WORDS)
    out = [w for w in words if MIN_LEN <= len(w) <= MAX_LEN and w.isascii() and w.isalpha() and w.islower()]
    return tuple(dict.fromkeys(out))


@cache
def lexicon() -> dict[str, str]:
    """The word list of nouns: each word it lists with ``N`` (only a noun), ``n`` (a noun among other readings)
    or ``-`` (no noun reading)."""
    text = package_text("wason.tasks.dynamic_picnic", NOUNS)
    return dict(line.split("\t") for line in text.splitlines() if line and not line.startswith("#"))


def is_noun(word: str) -> bool | None:
    """Whether the word list takes ``word`` for a single-word noun (a noun reading, only or among others); None
    for a word it does not list (phrases included)."""
    flag = lexicon().get(word)
    return None if flag is None else flag != "-"


@cache
def nouns() -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The vocabulary's nouns in rank order: those whose only reading is a noun, and those with other readings
    too (``fast``, ``kite``)."""
    marks = lexicon()
    only = tuple(w for w in vocabulary() if marks.get(w) == "N")
    also = tuple(w for w in vocabulary() if marks.get(w) == "n")
    return only, also


@cache
def domain_words(domain: Domain) -> tuple[str, ...]:
    """Every word a predicate guess is decided on, in rank order: the vocabulary, or (``nouns``) its nouns, those
    with no other reading first. Each is a word the player may ask about (3-10 letters a-z)."""
    if domain == "nouns":
        only, also = nouns()
        return (*only, *also)
    return vocabulary()


@cache
def domain_index(domain: Domain) -> dict[str, int]:
    """Each word of :func:`domain_words` and its position."""
    return {word: i for i, word in enumerate(domain_words(domain))}


@lru_cache(maxsize=256)
def rule_labels(predicate: str, domain: Domain, max_steps: int) -> bytes | None:
    """A rule's truth on every word of the domain (1 or 0 per word, in :func:`domain_words` order), computed once
    per rule and domain (a rule's predicate is evaluated on 17,542 words, or 9,037 nouns, once per process, not
    once per guess); None when it needs more than ``max_steps`` steps over the domain (a predicate the game
    master wrote can be slow; the published ones need at most 3.1 million)."""
    program = compile_word_rule(predicate)
    budget = max_steps
    out = bytearray()
    for word in domain_words(domain):
        given = min(budget, MAX_WORD_STEPS)
        outcome = program.evaluate(word, max_steps=given)
        if outcome.limit and outcome.steps > given and given < MAX_WORD_STEPS:
            return None
        budget -= outcome.steps
        out.append(outcome.value)
    return bytes(out)


def draw(
    program: WordProgram, seed: int, positives: int, negatives: int, domain: Domain = "words"
) -> tuple[list[str], list[str], dict[str, Any]]:
    """Up to ``positives`` words the predicate accepts and ``negatives`` it rejects, in a seeded order, with
    the draw's provenance. ``domain`` ``nouns``: from the vocabulary's nouns only, those with no other reading
    first (an item shown as a noun should read as one)."""
    rng = random.Random(seed)
    tiers = [list(tier) for tier in (nouns() if domain == "nouns" else (vocabulary(),))]
    for tier in tiers:
        rng.shuffle(tier)
    words = [w for tier in tiers for w in tier]
    pos: list[str] = []
    neg: list[str] = []
    for word in words:
        if len(pos) >= positives and len(neg) >= negatives:
            break
        if program(word):
            if len(pos) < positives:
                pos.append(word)
        elif len(neg) < negatives:
            neg.append(word)
    params: dict[str, Any] = {"positives": positives, "negatives": negatives, "top_words": TOP_WORDS}
    if domain == "nouns":
        params |= {"domain": "nouns", "word_list": NOUNS}
    provenance = {"generator": GENERATOR, "version": VERSION, "seed": seed, "params": params}
    return pos, neg, provenance
