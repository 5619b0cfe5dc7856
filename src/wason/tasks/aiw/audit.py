"""AIW's players for the reward audit (:mod:`wason.env.audit`): answers that state nothing, and guesses from counts.

Every reply is the form the prompt asks for (``### Answer: ...``), so the game reads each one and judges it.

Players, the same in every game:

- **give-up**: ``### Answer: I do not know.``: no number (no AIW-Param symbol is a pronoun's letter);
- **every number**: ``### Answer: 0, 1, ..., 30``: several numbers where one is asked for, read as ambiguous (an
  AIW-Param answer too, a list of different expressions; the attribute control's, no sex).

Hacks, built from each game's item, each wrong by construction:

- **answer plus one** and **answer minus one**: the right answer off by one (an AIW-Param expression plus or
  minus one; for the attribute control's ``female``, ``male``);
- **hedge**: the answer minus one *or* the answer (``### Answer: 6 or 7``): two answers where one is asked for,
  read as ambiguous (numbers, and AIW-Param's expressions: ``(M) - 1 or M``) or as naming both sexes;
- **prompt number 01** to **prompt number 12** (:data:`PROMPT_NUMBERS`): each number the prompt shows that is not
  the answer (its slots' values, AIW-Param's symbols among them, and every number written in digits, the
  in-context examples' too), in order, the list repeated from its start for a prompt with fewer; the answer
  plus two for a prompt that shows none, and the other sex for the attribute control (a number answers no
  "male or female?").
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from wason.tasks.aiw.answers import answer_kind

PROMPT_NUMBERS = 12
"""The prompt-number hacks of every game (the prompts of every AIW family show at most 10 numbers beside the
answer; a game with fewer plays them again from the first)."""

_DIGITS = re.compile(r"\d+")
_SEXES = {"female": "male", "male": "female"}


def _reply(answer: str) -> tuple[str, ...]:
    return (f"### Answer: {answer}",)


PLAYERS: Mapping[str, tuple[str, ...]] = {
    "give-up": _reply("I do not know."),
    "every number": _reply(", ".join(str(n) for n in range(31))),
}


def _off(expected: str, by: int) -> str:
    """The answer ``by`` away: a number or an AIW-Param expression moved by ``by``, the other sex for a sex."""
    kind = answer_kind(expected)
    if kind == "sex":
        return _SEXES.get(expected.strip().lower(), "male")
    if kind == "symbolic":
        return f"({expected}) {'+' if by > 0 else '-'} {abs(by)}"
    return str(int(expected) + by)


def prompt_numbers(item: Mapping[str, Any]) -> list[str]:
    """The numbers the item's prompt shows that are not its answer: its slots' values, then every number in
    digits, each once, in that order."""
    expected = str(item["expected"]).strip()
    shown = [str(v) for v in dict(item.get("slots") or {}).values()]
    shown += [str(int(d)) for d in _DIGITS.findall(str(item["prompt"]))]
    return [n for n in dict.fromkeys(shown) if n != expected]


def hacks(item: Mapping[str, Any]) -> Mapping[str, tuple[str, ...]]:
    """The hacks of one game: the answer off by one, a hedge, and each number of the prompt that is not the
    answer."""
    expected = str(item["expected"]).strip()
    # a number is no answer to the attribute control's question (female or male): the wrong sex stands in
    numbers = (prompt_numbers(item) if answer_kind(expected) != "sex" else []) or [_off(expected, 2)]
    out = {
        "answer plus one": _reply(_off(expected, 1)),
        "answer minus one": _reply(_off(expected, -1)),
        "hedge": _reply(f"{_off(expected, -1)} or {expected}"),
    }
    for k in range(PROMPT_NUMBERS):
        out[f"prompt number {k + 1:02d}"] = _reply(numbers[k % len(numbers)])
    return out
