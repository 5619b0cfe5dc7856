"""The WILT text protocol: the published system prompt, the reply parser and the feedback texts.

The action is the *last* marker in the reply ("Test Case:" or "Final Guess:"), as the prompt requires the action
at the very bottom of the message. The reference harness instead tested for "final guess:" anywhere, so a reply
that proposed a test while mentioning its future final guess was read as a guess.
"""

from __future__ import annotations

import re
from importlib import resources

from wason.core.game import Malformed, ReplyFormat
from wason.tasks.wilt.game import FinalGuess, ProposeTest, WiltAction, WiltObservation
from wason.tasks.wilt.grammar import reply_format
from wason.tasks.wilt.values import format_value

# The reference harness's complaint for a reply it cannot read, word for word.
FORMAT_COMPLAINT = (
    "Please make sure to send your response in the format specified, where the string 'Test Case:' or "
    "'Final Guess:' appears, followed by your response wrapped in triple backticks, e.g. "
    "'Test Case: ```(0,0,0)```' or 'Final Guess: ```lambda x: x```'."
)
# The same complaint in the one-variable game, its examples in that game's form (the three-number example would
# invite a test the game must refuse).
SINGLE_FORMAT_COMPLAINT = FORMAT_COMPLAINT.replace("```(0,0,0)```", "```(1)```")
# The reference harness's answer to a test proposed after the last attempt.
FORCED_GUESS = "Maximum attempts reached. Please make a guess."
CORRECT = "Congratulations! Your guess is correct."
WRONG = "Sorry, that's not the correct rule."
ABORTED = "Aborting..."

# "Test Case:" / "**Final Guess:**" / "### Final Guess" (the reference accepted that heading form too).
_MARKER = re.compile(
    r"(?P<kind>test[ \t]*case|final[ \t]*guess)[ \t]*[*_]*[ \t]*(?::|(?=[ \t]*\n?[ \t]*`))", re.IGNORECASE
)
_FENCE = re.compile(r"```[ \t]*(?:python|py)?[ \t]*\n?(?P<body>.*?)```", re.DOTALL | re.IGNORECASE)
_TICKS = re.compile(r"`(?P<body>[^`\n]+)`")
_TUPLE = re.compile(r"[(\[](?P<body>[^()\[\]]*)[)\]]")
# Markdown emphasis or quotes wrapped around an unfenced payload.
_WRAPPING = " \t*_\"'"


INSTRUCTIONS = {
    "published": "instruction.txt",
    "bayesian": "instruction_bayesian.txt",
    "testswap": "instruction_testswap.txt",
    "single": "instruction_single.txt",
}
"""The published system prompt of each named protocol: the paper's A.1.2 text, the reference's Bayesian variant
(integer tests from 1 to 100, otherwise the same game), and the test swap's (paper A.2: another run's tests given,
one guess; its ``{testcases}`` is filled by :func:`testswap_prompt`)."""


def testswap_prompt(tests: list[tuple[tuple[float, float, float], bool]]) -> str:
    """The test-swap prompt with another run's tests in it: one line per test, ``(x, y, z): True``, the inputs
    echoed as the harness echoed them, in the order they were made (the reference pulled these lines out of
    its feedback messages; invalid tests had none)."""
    lines = "\n".join(f"({', '.join(format_value(v) for v in point)}): {result}" for point, result in tests)
    return load_instruction("testswap").replace("{testcases}", lines)


def load_instruction(protocol: str = "published") -> str:
    """A published WILT system prompt, byte for byte: the paper's A.1.2 text by default."""
    name = INSTRUCTIONS[protocol]
    return (resources.files("wason.tasks.wilt") / "data" / name).read_text(encoding="utf-8")


def _payload(after: str) -> str | None:
    """The payload that follows a marker: a fenced block, an inline code span, or the rest of the line."""
    stripped = after.lstrip(" \t*_")
    if stripped.startswith("\n"):
        stripped = stripped.lstrip()
    if stripped.startswith("```"):
        fence = _FENCE.match(stripped)
        if fence is None:  # an unclosed fence: the reply was cut off
            return None
        return fence.group("body").strip()
    if stripped.startswith("`"):
        ticks = _TICKS.match(stripped)
        return ticks.group("body").strip() if ticks else None
    line = stripped.split("\n", 1)[0].strip(_WRAPPING)
    return line or None


def write_action(action: WiltAction) -> str:
    """The shortest reply that makes ``action``, in the published form (``Test Case: ```(1, 2, 3)````,
    ``Final Guess: ```lambda x, y, z: x < y````): what a player that writes no text (the solver) would have
    sent. :func:`parse_reply` reads it back as the same action."""
    if isinstance(action, ProposeTest):
        return f"Test Case: ```({', '.join(str(v) for v in action.values)})```"
    return f"Final Guess: ```{action.expression}```"


def parse_reply(reply: str) -> WiltAction | Malformed:
    """Read a model's reply as a WILT action (:class:`Malformed` with a reason when there is no marker or
    nothing readable after the last one)."""
    markers = list(_MARKER.finditer(reply))
    if not markers:
        return Malformed("no 'Test Case:' or 'Final Guess:' marker")
    last = markers[-1]
    kind = re.sub(r"\s+", " ", last.group("kind").lower())
    payload = _payload(reply[last.end() :])
    if payload is None:
        return Malformed(f"nothing readable after '{last.group('kind')}:'")
    if kind == "final guess":
        return FinalGuess(payload)
    group = _TUPLE.search(payload)
    if group is None:
        return Malformed(f"no parenthesised test case after '{last.group('kind')}:'")
    body = group.group("body").strip()
    tokens = tuple(t.strip() for t in body.split(",")) if body else ()
    return ProposeTest(tokens)


class WiltProtocol:
    """The published WILT conversation: prompt, parser and feedback."""

    name = "wilt"

    def __init__(
        self,
        instruction: str | None = None,
        *,
        testing: bool = True,
        whole_1_100: bool = False,
        arity: int = 3,
    ) -> None:
        """``instruction``: the system prompt (the paper's A.1.2 text by default); ``testing``: whether tests may
        be proposed (not in the test swap: one guess); ``whole_1_100``: tests are whole numbers from 1 to 100
        (the Bayesian prompt); ``arity``: numbers per test (1 for the single-variable prompt)."""
        self._instruction = instruction if instruction is not None else load_instruction()
        self._testing = testing
        self._whole_1_100 = whole_1_100
        self._arity = arity

    def system_prompt(self) -> str:
        return self._instruction

    def parse(self, reply: str) -> WiltAction | Malformed:
        return parse_reply(reply)

    def feedback(self, observation: WiltObservation) -> str:
        return render_feedback(observation, arity=self._arity, whole_1_100=self._whole_1_100)

    def reply_format(self, observation: WiltObservation | None) -> ReplyFormat:
        """The reply ``--constrain`` holds the model to: a line of reasoning, then a test case, or only a final
        guess once the budget is spent (``None``: the first turn)."""
        spent = observation is not None and (observation.must_guess or observation.remaining <= 0)
        variables = ("x", "y", "z")[: self._arity]
        return reply_format(
            tests=self._testing and not spent, whole_1_100=self._whole_1_100, variables=variables
        )


def render_feedback(obs: WiltObservation, *, arity: int = 3, whole_1_100: bool = False) -> str:
    """The harness's reply to an action, as the reference words it (with the true remaining count); a one-variable
    game shows its one number and gives one-number examples; where tests are whole numbers from 1 to 100 (the
    Bayesian and single-variable prompts) an invalid test is told that rule, not the published prompt's digits."""
    remaining = f"Attempts Remaining: {obs.remaining}"
    if obs.kind == "start":
        return ""
    if obs.kind == "result":
        shown = ", ".join(format_value(v) for v in (obs.values or ())[:arity])
        text = f"Result for input ({shown}): {obs.result}. {remaining}"
    elif obs.kind == "invalid_test":
        value = (
            "a whole number from 1 to 100"
            if whole_1_100
            else "a finite number that can be typed in 3 or fewer digits, not including signs and decimal "
            "characters (e.g. -11.3)"
        )
        text = (
            f"Invalid test case: {obs.reason}. Each value must be {value}. This used one attempt. {remaining}"
        )
    elif obs.kind == "format_error":
        text = SINGLE_FORMAT_COMPLAINT if arity == 1 else FORMAT_COMPLAINT
    elif obs.kind == "verdict":
        return CORRECT if obs.correct else WRONG
    else:  # ended without a guess
        return ABORTED
    if obs.must_guess:
        text += "\n" + FORCED_GUESS
    return text
