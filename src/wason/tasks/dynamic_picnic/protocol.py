"""The published player protocol of Dynamic Picnic (the paper's experiment harness), with its defects fixed.

Each turn the player reads the published prompt (``experiment_player_turn.txt``, or
``experiment_player_final_turn.txt`` on the last turn) with the first examples and the conversation so far as
``Game Master: ...`` / ``Player: ...`` lines, the first of which is ``experiment_initial_message.txt``. Sent as
a user message; the whole conversation is also kept as chat messages, so the player sees its own earlier
moves whatever the provider.

Fixed: the player no longer writes and validates its own first examples (the reference asked the model under
test to, dynamic_game_sim.py:327-338); every answer comes from the validated oracle, not one unverified chat.
The reply is read by code (below), not by an LLM classifier.

Reading a reply, first match wins: "give up"; a rule statement ("The rule is ...", "Rule: ..."); "Can I bring
X?"; a request for more examples (with a number, or the default); "My guess is X" (an item when X is three
words or fewer, else a rule); on the final turn anything else is the rule guess. A predicate
(``lambda w: ...``) anywhere in a rule guess is kept for the code check of lexical rules.
"""

from __future__ import annotations

import re

from wason.core.game import Malformed
from wason.tasks.dynamic_picnic import prompts
from wason.tasks.dynamic_picnic.game import (
    AskItem,
    GiveUp,
    GuessRule,
    MoreExamples,
    PicnicAction,
    PicnicObservation,
)

MAX_REPLY_CHARS = 20_000
MAX_SAID_CHARS = 2_000
MAX_GUESS_CHARS = 1_000
MAX_MORE = 20


_GIVE_UP = re.compile(r"^\W*(?:i\s+)?give\s+up\b|\bi\s+give\s+up\b", re.IGNORECASE)
_RULE = re.compile(
    r"(?:\bthe\s+(?:secret\s+)?rule\s+(?:is|might\s+be|could\s+be|must\s+be)|\brule\s+guess\b|\brule\s*:|"
    r"\bmy\s+guess\s+(?:for|of|about)\s+the\s+rule\s+is)\s*[:\-]?\s*",
    re.IGNORECASE,
)
_ASK = re.compile(r"\bcan\s+(?:i|we)\s+(?:also\s+)?bring\s+([^?\n]+)", re.IGNORECASE)
_MORE = re.compile(r"\bmore\s+(?:examples?|items?)\b|\banother\s+example\b|^\W*more\b", re.IGNORECASE)
_MORE_N = re.compile(r"\b(\d{1,3})\s+(?:more\s+)?(?:examples?|items?)\b|\bmore\s+(\d{1,3})\b", re.IGNORECASE)
_MY_GUESS = re.compile(r"\b(?:my\s+(?:new\s+)?guess\s+is|guess\s*:)\s*[:\-]?\s*", re.IGNORECASE)
_PREDICATE = re.compile(r"(lambda\s+[A-Za-z_]\w*\s*:[^\n`]+)")


def _clip(text: str, n: int) -> str:
    return text if len(text) <= n else text[:n]


def _statement(text: str) -> str:
    """The guess after its marker: up to the first blank line, quotes and a trailing period off."""
    first = re.split(r"\n\s*\n", text.strip(), maxsplit=1)[0]
    return _clip(" ".join(first.split()).strip(" \"'*`").rstrip("."), MAX_GUESS_CHARS).strip()


def _predicate(reply: str) -> str | None:
    found = _PREDICATE.search(reply)
    return found.group(1).strip().rstrip(".;") if found else None


def read_reply(reply: str, *, final: bool = False, more_default: int = 0) -> PicnicAction | Malformed:
    """A player's reply as an action (see the module docstring for the order)."""
    if not isinstance(reply, str):
        return Malformed("the reply is not text")
    reply = _clip(reply, MAX_REPLY_CHARS)
    said = _clip(reply.strip(), MAX_SAID_CHARS)
    if not said:
        return Malformed("the reply is empty")
    if _GIVE_UP.search(said) and not _RULE.search(said):
        return GiveUp(said=said)
    rule = _RULE.search(reply)
    if rule:
        text = _statement(reply[rule.end() :])
        if text:
            return GuessRule(text=text, predicate=_predicate(reply), said=said)
    ask = _ASK.search(reply)
    if ask:
        item = ask.group(1).strip(" \"'*`.,;:!")
        if item:
            return AskItem(item=_clip(item, 200), said=said)
    if _MORE.search(reply):
        found = _MORE_N.search(reply)
        n = int(next(g for g in found.groups() if g)) if found else more_default
        return MoreExamples(n=max(0, min(n, MAX_MORE)), said=said)
    mine = _MY_GUESS.search(reply)
    if mine:
        text = _statement(reply[mine.end() :])
        if text and len(text.split()) <= 3:
            return AskItem(item=text, said=said)
        if text:
            return GuessRule(text=text, predicate=_predicate(reply), said=said)
    if final:
        return GuessRule(text=_statement(reply), predicate=_predicate(reply), said=said)
    return Malformed(
        'no question ("Can I bring ...?"), request for more examples or rule ("The rule is: ...") in the reply'
    )


class PicnicProtocol:
    """The published per-turn prompts; the first one is built from the game's first observation.

    Args:
        first: the game's first observation (``preparing`` when a model must prepare the rule first).
        more_default: the count of a "more examples" request without a number (0: the game's default).
    """

    name = "published"
    prompt_role = "user"  # the harness sends the prompt as the only (user) message, no system message
    # one prompt a turn holding the whole conversation (the player's own moves included), as the harness did
    stateless = True

    def __init__(self, first: PicnicObservation, *, more_default: int = 0) -> None:
        self.first = first
        self.more_default = more_default
        self._last = first

    def system_prompt(self) -> str:
        # no instructions apart: the published prompt of each turn is the whole message (first_message)
        return ""

    def first_message(self, observation: PicnicObservation) -> str:
        """The first turn's published prompt, from the first observation the player sees (after the game
        master prepared the examples, which the game does by itself: ``automatic_action``)."""
        return self.feedback(observation)

    def parse(self, reply: str) -> PicnicAction | Malformed:
        return read_reply(reply, final=self._last.final, more_default=self.more_default)

    def feedback(self, observation: PicnicObservation) -> str:
        self._last = observation
        if observation.kind == "preparing":  # only a person sees it, never a model (the game moves on itself)
            return observation.message
        if observation.kind == "ended":
            return observation.message
        return prompts.player_turn(observation.initial, observation.history, final=observation.final)
