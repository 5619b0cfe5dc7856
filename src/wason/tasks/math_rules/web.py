"""What a person reads when playing Math sequences on the web page or at the terminal.

The published texts tell a model to reply "My Guess is: ..." or "More" and show a wrong guess only as new
sequences; a person reads what each move did, from the observation alone (its JSON too, for stored turns).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

EXPRESSION_REQUEST = (
    "Now write your rule as a Python expression of the current value v and its index i (0 for the first term "
    "of a sequence) that gives the next value, e.g. lambda v, i: v * 2 if i % 2 == 0 else v + 1"
)


def intro(observation: Mapping[str, Any]) -> str:
    """The start of a game: what to find, how, and the first sequences."""
    left = observation.get("turns_left")
    return "\n".join(
        [
            "Find the hidden rule: every sequence below is made by the same rule, which gives each next term "
            "from the current one and its index.",
            f"You have {left} move{'' if left == 1 else 's'}: ask for more sequences, or guess the rule in words; "
            "you then write it as a Python expression (lambda v, i: ...), which is checked by code.",
            "",
            *_sequences(observation),
        ]
    )


def answer(observation: Mapping[str, Any]) -> str:
    """What the game answered a move, in plain words."""
    kind = observation.get("kind")
    if kind == "ask_expression":
        return EXPRESSION_REQUEST
    if kind == "ask_quiz":
        return "The game is decided. Continue each of these sequences with its next terms."
    if kind == "ended":
        return "Right: that is the rule." if observation.get("won") else "The game is over."
    lines: list[str] = []
    if kind == "wrong":
        lines.append("Wrong: that is not the rule.")
        if observation.get("reason"):
            lines.append(f"({observation['reason']})")
    elif kind == "format_error":
        lines.append(f"That move could not be read ({observation.get('reason') or 'unreadable'}).")
    seqs = _sequences(observation)
    if seqs:
        lines += ["More sequences:", *seqs] if kind == "wrong" else seqs
    left = observation.get("turns_left")
    if left is not None:
        lines.append(f"{left} move{'' if left == 1 else 's'} left.")
    return "\n".join(lines)


def _sequences(observation: Mapping[str, Any]) -> list[str]:
    return [", ".join(map(str, seq)) for seq in observation.get("sequences") or ()]
