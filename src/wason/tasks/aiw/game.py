"""The AIW game: one question, one answer. Pure logic; ``protocol.py`` turns it into a conversation.

The answer is judged by code: the last "### Answer" marker of the reply is read (``answers.parse_answer``) and
compared with the family's solver (``answers.answers_match``) -- numbers numerically, AIW-Param expressions
algebraically. A reply that cannot be read is counted as unparseable, not as a wrong number.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from wason.core.game import Malformed, Outcome
from wason.tasks.aiw.answers import answer_kind, answers_match, parse_answer

ANSWER_HEADING = "### Answer:"


@dataclass(frozen=True)
class Reply:
    """The player's answer, as written (a model's whole reply, or what a person typed)."""

    text: str


class AiwObservation(BaseModel):
    """``start`` carries the question; ``followup`` asks the model to review its answer (multi-turn
    self-verification); ``answered`` ends the episode."""

    model_config = ConfigDict(frozen=True)

    kind: Literal["start", "followup", "answered"]
    prompt: str
    correct: bool | None = None
    status: str | None = None
    answer: str | None = None


class AiwGame:
    """One trial of one AIW item; with ``followups``, the answer is read after every turn and the last one
    counts (the first is kept, to see whether the model revised a wrong answer or spoiled a right one).

    A turn's status is ``ok``, ``unparseable``, ``ambiguous`` or ``no_marker`` (see :mod:`wason.tasks.aiw.answers`), or
    ``truncated`` for a reply the endpoint cut off at the token limit before an answer could be read; the
    metrics key ``truncated`` counts those turns."""

    def __init__(
        self,
        prompt: str,
        expected: int | float | str,
        followups: tuple[str, ...] = (),
        *,
        continuation: bool = False,
    ) -> None:
        """``followups`` are the self-verification prompts after the answer. With ``continuation`` the prompt is
        for a base model, which continues it: the reply is read from its first answer (up to the next ``###
        Problem`` it invents), after the prompt's own closing ``### Answer:`` when it ends with one."""
        self.prompt = prompt
        self.continuation = continuation
        self.expected = expected
        self.followups = followups
        self.kind = answer_kind(expected)
        self._turns: list[dict[str, Any]] = []

    @property
    def done(self) -> bool:
        return len(self._turns) > len(self.followups)

    def start(self) -> AiwObservation:
        return AiwObservation(kind="start", prompt=self.prompt)

    def step(self, action: Reply | Malformed) -> AiwObservation:
        if self.done:
            raise RuntimeError("the episode has ended")
        text = action.text if isinstance(action, Reply) else ""
        if self.continuation:
            # the prompt's closing heading is the marker the continuation answers after
            opened = self.prompt.rstrip().endswith(ANSWER_HEADING)
            parsed = parse_answer(
                f"{ANSWER_HEADING} {text}" if opened else text, self.kind, first_answer=True
            )
        else:
            parsed = parse_answer(text, self.kind)
        correct = answers_match(parsed, self.expected)
        answer = None if parsed.value is None else _plain(parsed.value)
        # a reply cut off at the token limit before its answer scores as one without an answer; its status
        # says why, so reports count it apart from replies that could not be read
        status = "truncated" if isinstance(action, Malformed) and action.truncated else parsed.status
        self._turns.append({"correct": correct, "status": status, "answer": answer, "text": parsed.raw})
        if not self.done:
            return AiwObservation(
                kind="followup",
                prompt=self.followups[len(self._turns) - 1],
                correct=correct,
                status=status,
                answer=answer,
            )
        return AiwObservation(
            kind="answered", prompt=self.prompt, correct=correct, status=status, answer=answer
        )

    def outcome(self) -> Outcome:
        if not self._turns:
            return Outcome(success=False, metrics={"correct": False, "status": "no_reply", "answer": None})
        last, first = self._turns[-1], self._turns[0]
        metrics: dict[str, Any] = {
            "correct": last["correct"],
            "status": last["status"],
            "answer": last["answer"],
            "expected": str(self.expected),
            "answer_text": last["text"],
            "truncated": sum(t["status"] == "truncated" for t in self._turns),
        }
        if self.followups:
            metrics |= {
                "initial_correct": first["correct"],
                "initial_answer": first["answer"],
                "answers": [t["answer"] for t in self._turns],
                "revised": first["answer"] != last["answer"],
            }
        return Outcome(success=bool(last["correct"]), metrics=metrics)


def _plain(value: object) -> str:
    # ints stay ints in text ("7", not "7.0"); sympy expressions print as written ("M + 1")
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)
