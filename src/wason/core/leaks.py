"""Finding a game's hidden item in what a client reads before the game ends: one detector, used by the family
contract (:func:`wason.testing.check_family`) and the reward audit (:func:`wason.env.audit.audit`).

A caller gathers, for each game, everything a client reads of it before it ends (the instructions, each
observation and its feedback, the views a session or the server gives, the pages drawn from them) and what the
player itself wrote there, and asks :func:`find_leaks` which hidden texts of the game (:func:`hidden_texts`:
its item key, the values of its item that :meth:`~wason.core.family.Family.public` does not show) are read in
it. Nothing a game showed is excused for having been shown: the instructions, the first observation and the
feedback are read like everything else. Two things are no leak:

- the player's own words read back (a protocol that repeats the conversation; a hack may quote the rule);
- a text the games of another item read as well where it is no secret of theirs (the family's boilerplate), and
  a name of the family's vocabulary that holds the secret and more (an item "christmas tree" shown as an
  example, where the hidden category is "tree"): the secret alone still is a leak.
"""

from __future__ import annotations

import contextlib
import html
import json
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

__all__ = ["MIN_NUMBER", "MIN_TEXT", "Leak", "find_leaks", "hidden_texts", "leaves", "readable"]

MIN_TEXT = 4
"""The shortest hidden text looked for by default (shorter ones, a digit or a yes, are everywhere)."""
MIN_NUMBER = 100_000
"""The smallest hidden number looked for (a seed is larger; smaller ones appear everywhere by chance)."""

K = TypeVar("K", bound=Hashable)


@dataclass(frozen=True)
class Leak:
    """A hidden text of a game read before it ended."""

    game: Hashable
    secret: str
    what: str

    def __str__(self) -> str:
        return f"{self.game}: {self.what} ({self.secret[:60]!r})"


def leaves(value: Any, *, min_text: int = MIN_TEXT, min_number: int = MIN_NUMBER) -> Iterable[str]:
    """The strings of at least ``min_text`` characters and the numbers of at least ``min_number`` in a JSON
    value, as text."""
    if isinstance(value, Mapping):
        for v in value.values():
            yield from leaves(v, min_text=min_text, min_number=min_number)
    elif isinstance(value, list | tuple):
        for v in value:
            yield from leaves(v, min_text=min_text, min_number=min_number)
    elif isinstance(value, bool) or value is None:
        return
    elif isinstance(value, int | float):
        if abs(value) >= min_number:
            yield str(value)
    elif isinstance(value, str) and len(value.strip()) >= min_text:
        yield value.strip()


def _escaped(text: str) -> str:
    return json.dumps(text)[1:-1]


def hidden_texts(
    family: Any,
    key: str,
    item: Mapping[str, Any],
    *,
    min_text: int = MIN_TEXT,
    shown: str = "",
) -> dict[str, str]:
    """What must not be read of a game that is not over, ``{text: what it is}``: its item key, and the strings
    and large numbers under the item's keys ``family.public(item)`` does not name, unless the public part of the
    item or ``shown`` (what anyone may read anyway: the run's public configuration) holds them too."""
    public = set(family.public(item))
    anyone = json.dumps({k: item[k] for k in public if k in item}, default=str) + "\n" + shown
    out: dict[str, str] = {}
    if len(key.strip()) >= MIN_TEXT and key.strip() not in anyone:
        out[key.strip()] = "the item key"
    hidden = {k: v for k, v in item.items() if k not in public}
    for text in leaves(hidden, min_text=min_text):
        if text not in anyone and _escaped(text) not in anyone:
            out.setdefault(text, "a hidden value of the item")
    return out


def _forms(text: str) -> list[str]:
    """A text as it may spell a secret: raw, HTML entities undone, JSON escapes undone."""
    unescaped = html.unescape(text)
    out = [text] if unescaped == text else [text, unescaped]
    with contextlib.suppress(UnicodeDecodeError):
        decoded = unescaped.encode("utf-8", "backslashreplace").decode("unicode_escape")
        if decoded not in out:
            out.append(decoded)
    return out


def readable(texts: Iterable[str], own: Iterable[str] = ()) -> str:
    """What a client read of one game, searchable: each text in every form it may spell a secret (raw, HTML
    entities and JSON escapes undone), without the player's own words (``own``: its replies, what its moves
    carried), which a game may show back."""
    words = sorted({w for w in own if len(w.strip()) >= MIN_TEXT}, key=len, reverse=True)
    parts = []
    for text in texts:
        for form in _forms(text):
            for word in words:
                for spelt in (word, _escaped(word)):
                    form = form.replace(spelt, "")
            parts.append(form)
    return "\n".join(parts)


def _reads(text: str, secret: str) -> bool:
    return secret in text or _escaped(secret) in text


def _masked(text: str, secret: str, vocabulary: Sequence[str]) -> str:
    """``text`` without the vocabulary's names that hold ``secret`` and more (longest first, so none is left in
    part): a name any player may read is no leak, the secret alone still is."""
    for name in vocabulary:
        if secret in name and name != secret and name in text:
            text = text.replace(name, "")
    return text


def find_leaks(
    read: Mapping[K, str],
    secrets: Mapping[K, Mapping[str, str]],
    vocabulary: Iterable[str] = (),
) -> list[Leak]:
    """The hidden texts of each game read before it ended.

    Args:
        read: for each game, what a client read of it before it ended, as :func:`readable` gives it.
        secrets: for each game, its hidden texts and what each is (:func:`hidden_texts`, and any the caller
            adds: a seed the public configuration hides).
        vocabulary: names any player may read (the family's item and category names).

    Returns:
        One :class:`Leak` per game and secret read in it, unless the games of another item read it too where it
        is no secret of theirs.
    """
    names = sorted(set(vocabulary), key=len, reverse=True)
    leaks = []
    for game, hidden in secrets.items():
        text = read.get(game, "")
        for secret, what in sorted(hidden.items()):
            if not _reads(_masked(text, secret, names), secret):
                continue
            boilerplate = any(
                secret not in secrets.get(other, {}) and _reads(_masked(seen, secret, names), secret)
                for other, seen in read.items()
                if other != game
            )
            if not boilerplate:
                leaks.append(Leak(game, secret, what))
    return leaks
