"""Items drawn by code for lexical rules when no game-master model is at hand: English words from ``wordfreq``
(frequency-ranked, shipped with the package; nothing downloaded), labelled by the rule's predicate.

Seeded: the same rule, seed and counts give the same items; each draw records generator, version and seed.
"""

from __future__ import annotations

import random
from functools import cache
from typing import Any

from wason.sandbox.words import WordProgram

GENERATOR = "dynamic_picnic.vocab"
VERSION = 1
TOP_WORDS = 20_000
MIN_LEN, MAX_LEN = 3, 10


@cache
def vocabulary() -> tuple[str, ...]:
    """The candidate words: the 20,000 most frequent English words of 3-10 letters a..z, in rank order."""
    import wordfreq

    words = wordfreq.top_n_list("en", TOP_WORDS)
    out = [w for w in words if MIN_LEN <= len(w) <= MAX_LEN and w.isascii() and w.isalpha() and w.islower()]
    return tuple(dict.fromkeys(out))


def draw(
    program: WordProgram, seed: int, positives: int, negatives: int
) -> tuple[list[str], list[str], dict[str, Any]]:
    """Up to ``positives`` words the predicate accepts and ``negatives`` it rejects, in a seeded order, with
    the draw's provenance."""
    words = list(vocabulary())
    random.Random(seed).shuffle(words)
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
    provenance = {
        "generator": GENERATOR,
        "version": VERSION,
        "seed": seed,
        "params": {"positives": positives, "negatives": negatives, "top_words": TOP_WORDS},
    }
    return pos, neg, provenance
