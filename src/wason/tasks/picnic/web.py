"""What a person reads when playing Static Picnic on the web page or at the terminal.

The published texts are a model's instructions ("type 'more N'", the answer's format) and say nothing after a
wrong guess; a person has forms for the moves and is told plainly what each move did. Built from the observation
alone (its JSON too, for the stored turns), so the page and the history say the same thing.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from wason.core.guess_rule import bring_lines
from wason.tasks.picnic.catalog import catalog


def intro(observation: Mapping[str, Any]) -> str:
    """The start of a game: what to find, how, the categories a rule is made of, and the first examples."""
    left = observation.get("turns_left")
    moves = "as many moves as you like" if left is None else f"{left} move{'' if left == 1 else 's'}"
    return "\n".join(
        [
            "Find the hidden rule of the picnic: some things may come, others may not. The rule is a category "
            "of things (such as fruit), or things in two or three categories at once (such as food and toy).",
            f"You have {moves}: ask for more examples, or guess the rule. Fewer examples and moves score better.",
            "",
            categories_line(),
            "",
            *_examples(observation),
        ]
    )


def categories_line() -> str:
    """The 76 category names a rule is made of, as the terminal's ``categories`` command lists them."""
    names = catalog().tags
    return f"The {len(names)} categories: {', '.join(names)}."


def answer(observation: Mapping[str, Any]) -> str:
    """What the game answered a move, in plain words (the rule only once the game is over, by the ending)."""
    kind = observation.get("kind")
    lines: list[str] = []
    if kind == "wrong_guess":
        lines.append("Wrong: that is not the rule.")
        if observation.get("positives"):
            lines.append("The host hands out more examples:")
    elif kind == "format_error":
        lines.append(
            f"That move could not be read ({observation.get('reason') or 'unreadable'}); nothing changed."
        )
    elif kind == "examples" and not observation.get("positives"):
        lines.append("No examples are left to hand out.")
    elif kind == "ended":
        return _ended(observation)
    lines += _examples(observation)
    left = observation.get("turns_left")
    if left is not None:
        lines.append(
            f"{left} move{'' if left == 1 else 's'} left" + (": this is your last." if left == 1 else ".")
        )
    return "\n".join(lines)


def _examples(observation: Mapping[str, Any]) -> list[str]:
    lines = bring_lines(observation)
    if lines and observation.get("capped"):
        lines.insert(0, f"Only {len(observation.get('positives') or ())} of each were left.")
    return lines


def _ended(observation: Mapping[str, Any]) -> str:
    reason = observation.get("end_reason")
    if reason == "correct":
        return "Right: that is the rule."
    if observation.get("guess_right") is False:
        return "Wrong: that is not the rule, and the game is over."
    if reason == "gave_up":
        return "You gave up."
    if reason == "turn_limit":
        return "No moves are left: the game is over."
    return "The game is over."
