"""The words the game draws from: English words of 4-7 letters from ``wordfreq``'s frequency-ranked list.

``wordfreq.top_n_list("en", VOCABULARY_TOP_N)`` ships with the package (nothing is downloaded); the words kept
are ASCII, alphabetic, lower case and 4 to 7 letters long, in frequency order. With wordfreq 3.1 that is 10,608
words (names such as ``tobias`` included, as the list has them). The reference drew from nltk's ``words``
corpus (mostly rare words); a frequency list keeps the words ones a player knows.
"""

from __future__ import annotations

import random
from functools import cache
from importlib import metadata

VOCABULARY_TOP_N = 20_000
"""How many of wordfreq's most frequent English words are read."""
MIN_LETTERS = 4
MAX_LETTERS = 7


@cache
def vocabulary() -> tuple[str, ...]:
    """The game's words, most frequent first (deterministic for a given wordfreq version)."""
    import wordfreq

    return tuple(
        w
        for w in wordfreq.top_n_list("en", VOCABULARY_TOP_N)
        if w.isascii() and w.isalpha() and w.islower() and MIN_LETTERS <= len(w) <= MAX_LETTERS
    )


@cache
def vocabulary_index() -> dict[str, int]:
    return {w: i for i, w in enumerate(vocabulary())}


def vocabulary_provenance() -> dict[str, object]:
    """What an item records about the word list it was drawn from."""
    try:
        version = metadata.version("wordfreq")
    except metadata.PackageNotFoundError:  # pragma: no cover - a dependency
        version = "unknown"
    return {
        "source": "wordfreq.top_n_list('en', N)",
        "wordfreq": version,
        "top_n": VOCABULARY_TOP_N,
        "letters": [MIN_LETTERS, MAX_LETTERS],
        "words": len(vocabulary()),
    }


def sample_words(seed: int | str, n: int) -> list[str]:
    """``n`` words drawn with replacement (as the reference drew), seeded."""
    rng = random.Random(seed)
    words = vocabulary()
    return [words[rng.randrange(len(words))] for _ in range(n)]
