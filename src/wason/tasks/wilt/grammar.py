"""WILT's reply format for ``--constrain``: a line of free reasoning, then a test case or a final guess in the
form the published prompt asks for, as a GBNF grammar and as a JSON schema.

The grammar admits only replies the parser reads: a test of three numbers that can be typed in three digits or
fewer (the published value rule; whole numbers from 1 to 100 in the Bayesian protocol), or a lambda of the three
variables in a small arithmetic and logical language the guess sandbox accepts. What the model tests and guesses
is left to it: a constrained run measures reasoning without format errors.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from wason.core.game import ReplyFormat

REASONING_CHARS = 160
"""The most characters of reasoning before the action (one line): enough for a thought, short enough that a small
model on a CPU plays a game in seconds."""

_NUMBER = (
    'num ::= "-"? ([0-9] | [1-9] [0-9] | [1-9] [0-9] [0-9] | [0-9] "." [0-9] | [0-9] "." [0-9] [0-9] | '
    '[1-9] [0-9] "." [0-9])'
)
_WHOLE_1_100 = 'num ::= [1-9] | [1-9] [0-9] | "100"'

_EXPRESSION = r"""
expr ::= conj (" or " conj){0,3}
conj ::= neg (" and " neg){0,3}
neg ::= "not " cmp | cmp
cmp ::= sum (cmpop sum){0,2}
cmpop ::= " < " | " <= " | " > " | " >= " | " == " | " != "
sum ::= prod ((" + " | " - ") prod){0,3}
prod ::= unary ((" * " | " / " | " // " | " % ") unary){0,3}
unary ::= "-"? power
power ::= atom ("**" [2-3])?
atom ::= var | int | "True" | "False" | "(" expr ")" | call
call ::= "abs(" expr ")" | "min(" expr ", " expr ")" | "max(" expr ", " expr ")"
int ::= [0-9] | [1-9] [0-9] | [1-9] [0-9] [0-9]
"""


def _grammar(*, tests: bool, whole_1_100: bool, variables: tuple[str, ...]) -> str:
    var = "var ::= " + " | ".join(f'"{v}"' for v in variables)
    args = ", ".join(variables)
    action = "test | guess" if tests else "guess"
    test = ' ", " '.join(["num"] * len(variables))
    lines = [
        f'root ::= thought "\\n" ({action})',
        f"thought ::= [^\\n`]{{0,{REASONING_CHARS}}}",
        f'test ::= "Test Case: ```(" {test} ")```"',
        f'guess ::= "Final Guess: ```lambda {args}: " expr "```"',
        _WHOLE_1_100 if whole_1_100 else _NUMBER,
        var,
        _EXPRESSION.strip(),
    ]
    return "\n".join(lines) + "\n"


def _schema(*, tests: bool) -> dict[str, Any]:
    actions = ["Test Case", "Final Guess"] if tests else ["Final Guess"]
    return {
        "type": "object",
        "properties": {
            "reasoning": {"type": "string", "description": "your reasoning, briefly"},
            "action": {"type": "string", "enum": actions},
            "value": {
                "type": "string",
                "description": "the test case as (x, y, z), or the final guess as a python lambda",
            },
        },
        "required": ["reasoning", "action", "value"],
        "additionalProperties": False,
    }


def _from_json(data: Mapping[str, Any]) -> str:
    """A reply in the schema's form as the protocol's text: the reasoning, then the action line."""
    reasoning = str(data["reasoning"]).strip()
    action = str(data["action"])
    if action not in ("Test Case", "Final Guess"):
        raise ValueError(f"action is {action!r}")
    return f"{reasoning}\n{action}: ```{str(data['value']).strip()}```"


def reply_format(
    *, tests: bool = True, whole_1_100: bool = False, variables: tuple[str, ...] = ("x", "y", "z")
) -> ReplyFormat:
    """WILT's reply format: a line of reasoning, then a test case (when ``tests``: not once the budget is spent,
    nor in the test swap) or a final guess; ``whole_1_100``: tests are whole numbers from 1 to 100."""
    what = "a test case or a final guess" if tests else "a final guess"
    return ReplyFormat(
        grammar=_grammar(tests=tests, whole_1_100=whole_1_100, variables=variables),
        description=f"a line of reasoning (at most {REASONING_CHARS} characters), then {what}",
        json_schema=_schema(tests=tests),
        from_json=_from_json,
    )
