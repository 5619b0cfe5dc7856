"""The published math-sequence player protocol (``math_game/exp.py``), byte for byte, and its reply parser.

The system message is ``test_llm_sys_prompt.txt``. The player's user messages are ``str(list_of_sequences)`` of
each turn's new sequences (a Python list-of-lists repr), so the concatenation of the user messages is exactly the
single user message the published harness rebuilt every turn (``player_user.txt``). The published harness sent
that one message without the player's earlier replies; here the conversation keeps them (the issue's fix: the
player's own moves are in its history), and the first user message is :meth:`MathProtocol.first_message`.

Replies: ``More`` (exactly, as published; ``more``, ``More.`` and the like are read too) asks for more sequences;
a reply containing ``My Guess is:`` is a guess (the text after the last one; ``give up`` gives up); anything else
is a counted format error whose feedback is the next turn's sequences, as published. A guess's expression is the
``lambda ...`` it contains (see :func:`~wason.tasks.math_rules.expression.find_expression`); a guess without one
is followed by :data:`EXPRESSION_REQUEST` (not published, after the published conversation), unless the game
judges words only. ``ask_lambda`` adds :data:`LAMBDA_INSTRUCTION` to the system message (not published).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from wason.core.game import Malformed
from wason.core.guess_rule import package_text
from wason.tasks.math_rules.expression import find_expression
from wason.tasks.math_rules.game import (
    QUIZ_ASKED,
    ExpressionAnswer,
    GiveUp,
    Guess,
    MathAction,
    MathObservation,
    More,
    QuizAnswer,
)

MAX_REPLY_CHARS = 100_000
"""Longer replies are read from their first 100,000 characters."""
MAX_NUMBER_CHARS = 40
GUESS_MARKER = "My Guess is:"

LAMBDA_INSTRUCTION = (
    '\n\nAfter "My Guess is:" write the rule as a Python expression of the current value v and its index i '
    "(0 for the first term), e.g. My Guess is: lambda v, i: v + 3"
)
EXPRESSION_REQUEST = (
    "Write the rule you guessed as a Python expression of the current value v and its index i (0 for the "
    "first term of a sequence) giving the next value, e.g.\nlambda v, i: v * 2 if i % 2 == 0 else v + 1\n"
    "Reply with the expression only."
)
QUIZ_REQUEST = (
    "Here are the first terms of {n} new sequences that follow the same rule. Give the next {k} terms of each, "
    'one line per sequence, e.g. "1: 12, 14, 16, 18, 20".\n{sequences}'
)
FORMAT_COMPLAINT = 'Please reply with "More" or "My Guess is: <Your guess>".'
INCORRECT = "Incorrect guess. What would you like to do next?"

_MORE = re.compile(r"^\W*more\W*$", re.IGNORECASE)
_GIVE_UP = re.compile(r"^\W*give\s+up\W*$", re.IGNORECASE)
_MARKER = re.compile(re.escape(GUESS_MARKER), re.IGNORECASE)
_QUIZ_LINE = re.compile(r"^\W*(\d{1,3})\s*[:.)]\s*(.*)$")
_INT = re.compile(r"(?<![\w.])[+-]?\d{1,40}(?!\w|\.\d)")


def load_text(name: str) -> str:
    """A published text of the package's ``data/`` folder, byte for byte."""
    return package_text("wason.tasks.math_rules", name)


def format_sequences(sequences: Sequence[Sequence[int]]) -> str:
    """Sequences as the reference wrote them: ``str`` of a Python list of lists."""
    return str([[int(t) for t in s] for s in sequences])


def parse_guess_reply(reply: str) -> More | Guess | GiveUp | Malformed:
    """Read a reply of the published protocol."""
    if not isinstance(reply, str):
        return Malformed(f"a reply must be text, not {type(reply).__name__}")
    text = reply[:MAX_REPLY_CHARS].strip()
    if _MORE.match(text):
        return More()
    found = list(_MARKER.finditer(text))
    if not found:
        if _GIVE_UP.match(text):
            return GiveUp()
        return Malformed('neither "More" nor "My Guess is: ..."')
    guess = text[found[-1].end() :].strip()
    if not guess:
        return Malformed('nothing after "My Guess is:"')
    if _GIVE_UP.match(guess):
        return GiveUp()
    return Guess(text=guess, expression=find_expression(guess))


def write_action(action: MathAction) -> str | None:
    """An action as the reply that makes it under the published protocol: ``More``, ``My Guess is: TEXT`` (a
    guess's text holds its expression, as a reply's does), the expression asked for, the numbered quiz
    continuations, ``give up``. What the solver's moves are written as for transcripts and expert trajectories;
    the parser reads it back as the same action, and an action no reply makes (``More`` with a count, a guess
    whose text does not give its expression) has None."""
    if isinstance(action, More):
        return "More" if action.n is None else None
    if isinstance(action, GiveUp):
        return "give up"
    if isinstance(action, Guess):
        text = f"{GUESS_MARKER} {action.text}"
        return text if parse_guess_reply(text) == action else None
    if isinstance(action, ExpressionAnswer):
        return action.source if parse_expression_reply(action.source) == action else None
    text = "\n".join(
        f"{k}: {', '.join(str(t) for t in values)}"
        for k, values in enumerate(action.values, 1)
        if values is not None
    )
    return text if parse_quiz_reply(text, len(action.values)) == action else None


def parse_expression_reply(reply: str) -> ExpressionAnswer:
    """The expression of a reply to :data:`EXPRESSION_REQUEST` (its ``lambda ...``, else the whole reply)."""
    text = reply[:MAX_REPLY_CHARS] if isinstance(reply, str) else ""
    found = find_expression(text)
    if found is not None:
        return ExpressionAnswer(found)
    lines = [ln.strip().strip("`").strip() for ln in text.strip().splitlines()]
    body = [ln for ln in lines if ln and not ln.lower().startswith("python")]
    return ExpressionAnswer(body[0] if len(body) == 1 else text.strip())


def parse_quiz_reply(reply: str, n: int) -> QuizAnswer:
    """The predicted continuations: lines ``k: a, b, c, ...`` (k from 1 to n); missing ones are None."""
    values: list[tuple[int, ...] | None] = [None] * n
    text = reply[:MAX_REPLY_CHARS] if isinstance(reply, str) else ""
    for line in text.splitlines():
        m = _QUIZ_LINE.match(line)
        if not m:
            continue
        k = int(m.group(1))
        if not 1 <= k <= n:
            continue
        numbers = [int(x) for x in _INT.findall(m.group(2))]
        values[k - 1] = tuple(numbers[:QUIZ_ASKED])
    return QuizAnswer(tuple(values))


class MathProtocol:
    """The published player protocol (``name``: ``published``), with the follow-ups the game asks for."""

    def __init__(self, *, ask_lambda: bool = False) -> None:
        self.ask_lambda = ask_lambda
        self.name = "published+lambda" if ask_lambda else "published"
        self._expect: str = "play"
        self._quiz_size = 0

    def system_prompt(self) -> str:
        text = load_text("test_llm_sys_prompt.txt")
        return text + LAMBDA_INSTRUCTION if self.ask_lambda else text

    def first_message(self, observation: MathObservation) -> str:
        """The first user message: the first turn's sequences."""
        return format_sequences(observation.sequences)

    def parse(self, reply: str) -> MathAction | Malformed:
        if self._expect == "expression":
            return parse_expression_reply(reply)
        if self._expect == "quiz":
            return parse_quiz_reply(reply, self._quiz_size)
        return parse_guess_reply(reply)

    def feedback(self, observation: MathObservation) -> str:
        self._expect = {"ask_expression": "expression", "ask_quiz": "quiz"}.get(observation.kind, "play")
        self._quiz_size = len(observation.quiz)
        return render_observation(observation)


def render_observation(obs: MathObservation) -> str:
    """What the player reads after an action (the published text: the new sequences)."""
    if obs.kind == "ask_expression":
        return EXPRESSION_REQUEST
    if obs.kind == "ask_quiz":
        lines = "\n".join(f"{k}: {', '.join(str(t) for t in q)}, ..." for k, q in enumerate(obs.quiz, 1))
        return QUIZ_REQUEST.format(n=len(obs.quiz), k=QUIZ_ASKED, sequences=lines)
    if obs.kind == "ended":
        return ""
    if obs.sequences:
        return format_sequences(obs.sequences)
    if obs.kind == "wrong":
        return INCORRECT
    if obs.kind == "format_error":
        return FORMAT_COMPLAINT
    return ""
