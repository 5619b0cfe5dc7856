"""What a person reads when playing Code Functions Picnic on the web page or at the terminal.

The published texts ask a model for "Items from the category/categories <category>" and say nothing after a
wrong guess; a person reads what each move did, from the observation alone (its JSON too, for stored turns).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from wason.core.guess_rule import bring_lines
from wason.tasks.code_functions.protocol import PREDICATE_REQUEST


def intro(observation: Mapping[str, Any]) -> str:
    """The start of a game: what to find, how, and the first words."""
    left = observation.get("turns_left")
    moves = "as many moves as you like" if left is None else f"{left} move{'' if left == 1 else 's'}"
    return "\n".join(
        [
            "Find the hidden rule of the picnic: some words may come, others may not. The rule is about the "
            "word's spelling (its letters, their order, its length...).",
            f"You have {moves}: ask for more examples, or guess the rule in words; you then write it as a Python "
            "predicate over the word w, which is checked by code.",
            "",
            *bring_lines(observation),
        ]
    )


def answer(observation: Mapping[str, Any]) -> str:
    """What the game answered a move, in plain words."""
    kind = observation.get("kind")
    if kind == "ask_predicate":
        return PREDICATE_REQUEST.removesuffix(" Reply with the lambda only.")
    if kind == "ask_quiz":
        return "The game is decided. Can each of these words be brought? Answer yes or no for each."
    if kind == "ended":
        return {"won": "Right: your predicate is the rule."}.get(
            str(observation.get("status")), "The game is over."
        )
    lines: list[str] = []
    if kind == "wrong":
        lines.append("Wrong: that is not the rule.")
        if observation.get("reason"):
            lines.append(f"(That predicate could not be used: {observation['reason']})")
    elif kind == "format_error":
        lines.append(f"That move could not be read ({observation.get('reason') or 'unreadable'}).")
    elif kind == "examples" and not observation.get("positives") and not observation.get("negatives"):
        lines.append("No examples are left to hand out.")
    lines += bring_lines(observation)
    left = observation.get("turns_left")
    if left is not None:
        lines.append(f"{left} move{'' if left == 1 else 's'} left.")
    return "\n".join(lines)
