"""The AIW conversation: the rendered prompt as the user's message, the model's reply as the answer."""

from __future__ import annotations

import re

from wason.core.game import Malformed, ReplyFormat
from wason.tasks.aiw.answers import answer_segment
from wason.tasks.aiw.game import AiwObservation, Reply

NO_MARKER = "no '### Answer:' marker in the reply"

REASONING_CHARS = 600
"""The most characters of reasoning before the answer under ``--constrain`` (about 150 tokens: the answer fits
under the embedded model's default limit of 256)."""
_NUMBER = "[0-9] | [1-9] [0-9] | [1-9] [0-9] [0-9]"
# AIW-Param's answers are sums of capital-letter symbols and a whole number ("M + 1")
_SYMBOLIC = "[A-Z0-9] ([ +*()-]{1,3} [A-Z0-9]){0,5}"
_WORD = "[A-Za-z]{1,16}"


def reply_format(expected: str | None) -> ReplyFormat:
    """AIW's reply under ``--constrain``: free reasoning (no ``#``), then ``### Answer: `` and a whole number, or
    a symbolic expression where the item's answer is one (AIW-Param)."""
    text = (expected or "0").strip()
    symbolic = not text.isdigit() and re.fullmatch(r"[A-Z0-9 +*()-]+", text) is not None
    word = not text.isdigit() and not symbolic
    answer = _SYMBOLIC if symbolic else _WORD if word else _NUMBER
    grammar = (
        f'root ::= reasoning "### Answer: " answer\nreasoning ::= [^#]{{0,{REASONING_CHARS}}}\n'
        f"answer ::= {answer}\n"
    )
    what = "a symbolic expression" if symbolic else "a word" if word else "a whole number"
    return ReplyFormat(
        grammar=grammar,
        description=f"reasoning (at most {REASONING_CHARS} characters), then '### Answer: ' and {what}",
        json_schema={
            "type": "object",
            "properties": {
                "reasoning": {"type": "string"},
                "answer": {"type": "string", "description": f"the final answer: {what}"},
            },
            "required": ["reasoning", "answer"],
            "additionalProperties": False,
        },
        from_json=lambda data: f"{str(data['reasoning']).strip()}\n### Answer: {str(data['answer']).strip()}",
    )


def write_action(action: Reply) -> str:
    """An action as the reply that makes it: the answer's whole text. :meth:`AiwProtocol.parse` reads it back as
    the same :class:`Reply` when it holds an answer marker, as every one the sample game and a person's move make
    (``### Answer: 7``) does."""
    return action.text


class AiwProtocol:
    """Single-turn: the published prompt text goes as the first *user* message (AIW was run without a system
    prompt), and the whole reply is the answer; the game reads its last "### Answer" marker.

    A reply without any marker is :class:`Malformed` (the game scores it as it scores an empty reply: no
    answer, ``no_marker``), so a reply the endpoint cut off before its marker is told apart as truncated."""

    name = "aiw"
    prompt_role = "user"

    def __init__(self, prompt: str, *, expected: str | None = None, continuation: bool = False) -> None:
        """Args:
        prompt: the rendered prompt.
        expected: the item's right answer, for the form of the answer under ``--constrain`` (a number, or
            AIW-Param's symbolic expression); never shown to the model.
        continuation: a base model's prompt: the reply continues it, and its first answer is read (the game
            reads it; a reply without a marker of its own is still an answer).
        """
        self._prompt = prompt
        self._expected = expected
        self._continuation = continuation

    def system_prompt(self) -> str:
        return self._prompt

    def parse(self, reply: str) -> Reply | Malformed:
        if not self._continuation and answer_segment(reply) is None:
            return Malformed(NO_MARKER)
        return Reply(reply)

    def reply_format(self, observation: AiwObservation | None) -> ReplyFormat | None:
        """Free reasoning, then the answer after its marker; None for a prompt that a base model continues (it
        ends at the marker: the continuation is the answer, read from its first value)."""
        if self._continuation:
            return None
        return reply_format(self._expected)

    def feedback(self, observation: AiwObservation) -> str:
        # a self-verification follow-up is the next user message; otherwise nothing is sent back
        return observation.prompt if observation.kind == "followup" else ""
