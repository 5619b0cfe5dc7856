"""The AIW conversation: the rendered prompt as the user's message, the model's reply as the answer."""

from __future__ import annotations

from wason.core.game import Malformed
from wason.tasks.aiw.answers import answer_segment
from wason.tasks.aiw.game import AiwObservation, Reply

NO_MARKER = "no '### Answer:' marker in the reply"


class AiwProtocol:
    """Single-turn: the published prompt text goes as the first *user* message (AIW was run without a system
    prompt), and the whole reply is the answer; the game reads its last "### Answer" marker.

    A reply without any marker is :class:`Malformed` (the game scores it as it scores an empty reply: no
    answer, ``no_marker``), so a reply the endpoint cut off before its marker is told apart as truncated."""

    name = "aiw"
    prompt_role = "user"

    def __init__(self, prompt: str) -> None:
        self._prompt = prompt

    def system_prompt(self) -> str:
        return self._prompt

    def parse(self, reply: str) -> Reply | Malformed:
        if answer_segment(reply) is None:
            return Malformed(NO_MARKER)
        return Reply(reply)

    def feedback(self, observation: AiwObservation) -> str:
        # a self-verification follow-up is the next user message; otherwise nothing is sent back
        return observation.prompt if observation.kind == "followup" else ""
