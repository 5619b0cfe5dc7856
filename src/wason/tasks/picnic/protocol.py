"""The published Static Picnic player protocol (``llm_gameplay.py``): its texts byte for byte, and a reply parser.

The conversation: the system message ``player_system.txt``; the first user message is turn 1
(``player_first_turn.txt``, or ``player_first_turn_single_turn_game.txt`` when there is one turn) with the first
examples; after each reply the next turn's examples with ``player_next_turn.txt``, ``player_final_turn.txt`` on
the last allowed turn, or ``player_no_examples_left.txt`` once nothing is left. A capped request adds
``player_examples_exceeded_line.txt`` after the ``Turn N`` line. Item names are joined by ``", "``.

Fixed here: the model's own replies stay in its history whatever the provider (the reference's Anthropic branch
kept only the user messages, ``llm_gameplay.py:221-236``); the exceeded line names the number actually handed out
(the reference fills it with what is left *after* handing them out, almost always 0); a reply is a ``more``
request only when it asks for more (the reference took any reply containing "more" that did not say "items from
the category", ``:330-337``); ``give up`` is read with its punctuation and case forgiven.
"""

from __future__ import annotations

import re

from wason.core.game import Malformed
from wason.core.guess_rule import package_text
from wason.tasks.picnic.game import (
    MAX_REQUEST,
    PUBLISHED_DEFAULT_MORE,
    GiveUp,
    Guess,
    More,
    PicnicAction,
    PicnicObservation,
)

MAX_REPLY_CHARS = 20_000
"""Replies are read from their last this many characters."""

_ANSWER = re.compile(
    r"items?\s+(?:that\s+are\s+)?(?:from|in|of)\s+(?:the\s+|both\s+)?categor(?:y|ies)\b", re.I
)
_MORE_N = re.compile(r"\bmore\s*[:=]?\s*(\d+)\b|\b(\d+)\s+more\b", re.I)
_MORE_WORD = re.compile(r"\bmore\b", re.I)
_ASKS = re.compile(
    r"^\W*(?:more\b|(?:(?:i\s*(?:'d|would)\s+like|i\s+want|i\s+need|let\s+me\s+see|let's\s+see|please|can\s+i\s+"
    r"(?:see|get|have)|could\s+i\s+(?:see|get|have)|give\s+me|show\s+me|request(?:ing)?|i\s+request)\b[^.\n]{0,40}"
    r"\bmore\b))",
    re.I,
)
_GIVE_UP = re.compile(r"^\W*(?:i\s+)?give\s+up\W*$", re.I)


def load_text(name: str) -> str:
    """A published text from the package data, byte for byte."""
    return package_text("wason.tasks.picnic", name)


def join_items(items: tuple[str, ...] | list[str]) -> str:
    return ", ".join(items)


def _with_exceeded(template: str, exceeded: str | None, **values: object) -> str:
    text = template.format(**values)
    if exceeded is None:
        return text
    head, _, rest = text.partition("\n")
    return f"{head}\n{exceeded}{rest}"


def exceeded_line(delivered: int) -> str:
    return load_text("player_examples_exceeded_line.txt").format(remaining_count=delivered)


COUNT = " (up to {remaining_count} available)"
"""The published count of examples left. At the start it is the rule's size less the examples shown, and 18 of
the 76 categories have a size no other has: a player who knows the data can name the rule from it."""


def _template(name: str, counts: bool) -> str:
    text = load_text(name)
    return text if counts else text.replace(COUNT, "")


def first_turn(obs: PicnicObservation, max_turns: int | None, *, counts: bool = True) -> str:
    """Turn 1 as published: the rules, the first examples and the question (``counts`` False: without the
    count of examples left, :data:`COUNT`)."""
    single = max_turns == 1
    name = "player_first_turn_single_turn_game.txt" if single else "player_first_turn.txt"
    exceeded = exceeded_line(len(obs.positives)) if obs.capped else None
    return _with_exceeded(
        _template(name, counts),
        exceeded,
        turns=obs.turn,
        max_turns=max_turns,
        remaining_count=obs.remaining,
        positives_string=join_items(obs.positives),
        negatives_string=join_items(obs.negatives),
    )


def next_turn(obs: PicnicObservation, *, counts: bool = True) -> str:
    """Turns 2 and later as published (next, final, or no examples left; ``counts`` as in :func:`first_turn`)."""
    if obs.remaining <= 0:
        name = "player_no_examples_left.txt"
    elif obs.final_turn:
        name = "player_final_turn.txt"
    else:
        name = "player_next_turn.txt"
    exceeded = exceeded_line(len(obs.positives)) if obs.capped else None
    return _with_exceeded(
        _template(name, counts),
        exceeded,
        turns=obs.turn,
        remaining_count=obs.remaining,
        positives_string=join_items(obs.positives),
        negatives_string=join_items(obs.negatives),
    )


def parse_reply(reply: str) -> PicnicAction | Malformed:
    """Read a reply as a move: a guess in the answer format, a request for more, ``give up``, or else a free-text
    guess (judged like any guess: by code when it names categories, else by the LLM judge when there is one)."""
    text = reply[-MAX_REPLY_CHARS:].strip()
    if not text:
        return Guess("")
    if _ANSWER.search(text):
        return Guess(text)
    if _GIVE_UP.match(text) or any(_GIVE_UP.match(line) for line in text.splitlines()[-1:]):
        return GiveUp()
    numbered = list(_MORE_N.finditer(text))
    if numbered:
        digits = (numbered[-1].group(1) or numbered[-1].group(2)).lstrip("0")
        if not digits:  # "more 0": the published default (a parsed 0 is falsy there)
            return More(PUBLISHED_DEFAULT_MORE)
        return More(MAX_REQUEST if len(digits) > 6 else min(int(digits), MAX_REQUEST))
    if _MORE_WORD.search(text) and (_ASKS.match(text) or len(text.split()) <= 6):
        return More(PUBLISHED_DEFAULT_MORE)
    return Guess(text)


def write_action(action: object) -> str | None:
    """An action as the reply that makes it under this protocol (``more N``, the guess as written, ``give up``):
    what the solver's moves are written as for transcripts and expert trajectories; :func:`parse_reply` reads it
    back as the same action (a request for 1 to 511, a guess in the answer format). None where no reply makes it:
    what is no action of this game, a guess the protocol would read otherwise ("more", "give up", padded with
    spaces), or a request it caps."""
    if isinstance(action, More):
        text = f"more {action.n}"
    elif isinstance(action, GiveUp):
        text = "give up"
    elif isinstance(action, Guess):
        text = action.text
    else:
        return None
    return text if parse_reply(text) == action else None


class PicnicProtocol:
    """The published player protocol.

    Args:
        max_turns: the game's limit of moves (fills ``{max_turns}`` and picks the single-turn variant).
        counts: the published count of examples left ("up to N available"), which a model reads as the paper's
            did; a session played by a person or a script (``/api/sessions``) gets the same texts without it,
            since the count names the rule to anyone who knows the data (:data:`COUNT`).
    """

    name = "static-picnic-published"

    def __init__(self, max_turns: int | None, *, counts: bool = True) -> None:
        self.max_turns = max_turns
        self.counts = counts

    def system_prompt(self) -> str:
        return load_text("player_system.txt")

    def first_message(self, observation: PicnicObservation) -> str:
        """The first user message, sent after the system message: turn 1 with the first examples."""
        return first_turn(observation, self.max_turns, counts=self.counts)

    def parse(self, reply: str) -> PicnicAction | Malformed:
        return parse_reply(reply)

    def feedback(self, observation: PicnicObservation) -> str:
        if observation.kind == "start":
            return self.first_message(observation)
        if observation.kind == "ended":
            return ""
        return next_turn(observation, counts=self.counts)
