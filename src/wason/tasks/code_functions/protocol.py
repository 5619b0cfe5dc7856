"""The published player prompts (byte for byte) and the reply parser.

Protocols (``--protocol``):

* ``as-run`` (default): the prompt that produced the paper's results (``player_guess_as_run_c7cb4c96.txt``,
  system message ``player_system.txt``). Every turn the user message is that prompt with every word shown so
  far (``{examples[0]}`` / ``{examples[1]}`` are the comma-joined positives / negatives), and the reply is a
  guess. The published harness sent each turn's prompt alone; here the conversation keeps the player's earlier
  guesses (the issue's fix: the player's own moves are in its history).
* ``head``: the prompt the reference's code builds at HEAD: for L1 ``player_guess_L1_effective.txt``, for L2/L3
  ``player_guess_L2_L3_effective.txt`` (which, by the reference's precedence bug, shows no examples at all; kept
  as published).
* ``head-fixed``: the prompt HEAD meant to build: the L2/L3 introduction and tutorial followed by the L1 text with
  the examples (``player_guess_L2_L3_effective.txt`` + ``player_guess_L1_effective.txt``), at every level.
* ``game-api``: the messages of the reference's game API (``api_init_message.txt``, ``api_more_examples_message.txt``,
  ``gm_short_messages.txt``): the player may reply ``more N``, a rule, or ``give up``.

Not published, after the published conversation: a guess without a predicate is followed by
:data:`PREDICATE_REQUEST`, and a decided game by the quiz (:data:`QUIZ_REQUEST`). A reply that contains a
``lambda w: ...`` in the word language gives its predicate at once.
"""

from __future__ import annotations

import re
from typing import Literal

from wason.core import ChatMessage
from wason.core.game import Malformed
from wason.core.guess_rule import package_text, short_messages
from wason.sandbox import GuessRejected, compile_word_rule
from wason.tasks.code_functions.game import (
    MAX_MORE,
    Action,
    GiveUp,
    Guess,
    More,
    Observation,
    PredicateAnswer,
    QuizAnswer,
)

ProtocolName = Literal["as-run", "head", "head-fixed", "game-api"]
PROTOCOLS: tuple[str, ...] = ("as-run", "head", "head-fixed", "game-api")
MAX_REPLY_CHARS = 20_000
MAX_LAMBDAS = 20
"""Only the last 20 ``lambda``s of a reply are tried."""
DEFAULT_MORE = 2

PREDICATE_REQUEST = (
    "Now write the rule you guessed as a Python predicate over the word w, for example:\n"
    'lambda w: len(w) > 4 and w[0] not in "aeiou"\n'
    "You may use len, indexing and slicing, in and not in, comparisons, and/or/not, str methods such as "
    "startswith, endswith, count and isalpha, sum/all/any over the letters, set(w) and sorted(w). "
    "Reply with the lambda only."
)
QUIZ_REQUEST = (
    "The game is over. Here are {n} more words. For each, say whether it can be brought to the picnic under the "
    'rule: one line per word, e.g. "1. Yes" or "1. No".\n{words}'
)
FORMAT_COMPLAINT = "Please state the rule, or reply 'more N' or 'give up'."
PREDICATE_PROBLEM = "That predicate could not be used: {reason}"


def load_text(name: str) -> str:
    """A published text from the package data, byte for byte."""
    return package_text("wason.tasks.code_functions", name)


def short_message(header: str) -> str:
    """A message of ``gm_short_messages.txt`` by the source its ``=== source`` header names."""
    return short_messages("wason.tasks.code_functions")[header]


def judge_messages(rule_code: str, guess: str) -> list[ChatMessage]:
    """The published judge's messages: ``validate_sysprompt.txt`` and ``judge_user.txt`` filled in."""
    user = load_text("judge_user.txt").replace("{rule_code}", rule_code).replace("{guess}", guess)
    return [
        ChatMessage(role="system", content=load_text("validate_sysprompt.txt")),
        ChatMessage(role="user", content=user),
    ]


def as_run_prompt(positives: tuple[str, ...], negatives: tuple[str, ...]) -> str:
    return (
        load_text("player_guess_as_run_c7cb4c96.txt")
        .replace("{examples[0]}", ", ".join(positives))
        .replace("{examples[1]}", ", ".join(negatives))
    )


def head_prompt(level: str, positives: tuple[str, ...], negatives: tuple[str, ...], *, fixed: bool) -> str:
    l1 = (
        load_text("player_guess_L1_effective.txt")
        .replace("{examples[0]}", ", ".join(positives))
        .replace("{examples[1]}", ", ".join(negatives))
    )
    intro = load_text("player_guess_L2_L3_effective.txt")
    if fixed:
        return intro + l1
    return l1 if level == "L1" else intro


def api_message(name: str, positives: tuple[str, ...], negatives: tuple[str, ...]) -> str:
    return (
        load_text(name)
        .replace("{positives_string}", ", ".join(positives))
        .replace("{negatives_string}", ", ".join(negatives))
    )


_LAMBDA = re.compile(r"lambda\s+[A-Za-z_]\w*\s*:")
_GIVE_UP = re.compile(r"^\W*(?:i\s+)?give\s+up\W*$", re.IGNORECASE)
_MORE = re.compile(r"^\W*(?:i\s+(?:would|'d)\s+like\s+|please\s+)?(?:request\s+)?more(?:\s+(\d+))?\b", re.I)
_QUIZ_LINE = re.compile(
    r"^[\s*#>-]*(\d{1,3})\s*[.):]?\s*(?:[A-Za-z]+\s*[:=\-\u2013\u2014]\s*)?\**\s*(yes|no)\b", re.I
)


def find_predicate(reply: str) -> str | None:
    """The last ``lambda x: ...`` in the reply that compiles in the word language (inside backticks or a code
    block, or to the end of its line), or None."""
    text = reply[-MAX_REPLY_CHARS:]
    found = None
    for m in list(_LAMBDA.finditer(text))[-MAX_LAMBDAS:]:
        rest = text[m.start() :].split("\n", 1)[0]
        candidates = [rest.rstrip(" \t.,;'\"`*"), rest]
        if "`" in rest:
            candidates.insert(0, rest.split("`", 1)[0])
        for candidate in candidates:
            try:
                compile_word_rule(candidate.strip())
            except GuessRejected:
                continue
            found = candidate.strip()
            break
    return found


def parse_play(reply: str, *, allow_more: bool) -> Action | Malformed:
    """A reply during play: a guess (with its predicate when it has one), ``give up``, or ``more N``."""
    text = reply.strip()[-MAX_REPLY_CHARS:]
    if not text:
        return Malformed("empty reply")
    if _GIVE_UP.match(text):
        return GiveUp()
    if allow_more:
        m = _MORE.match(text)
        if m and len(text.split()) <= 8:
            return More(min(int(m.group(1)[:12]), MAX_MORE) if m.group(1) else DEFAULT_MORE)
    return Guess(text=text, predicate=find_predicate(text))


def write_action(action: Action) -> str | None:
    """An action as the reply that makes it: a guess's text (which holds its predicate: a reply is read whole as
    the guess), the predicate asked for, the numbered quiz answers, ``give up``, ``more N`` (read as a request
    under the ``game-api`` protocol only; the published ones read every reply as a guess). What the solver's moves
    are written as for transcripts and expert trajectories; the parser reads it back as the same action, and an
    action no reply makes (a guess whose text does not give its predicate) has None."""
    if isinstance(action, GiveUp):
        return "give up"
    if isinstance(action, More):
        text = f"more {action.n}"
        return text if parse_play(text, allow_more=True) == action else None
    if isinstance(action, Guess):
        read = [parse_play(action.text, allow_more=allow) for allow in (False, True)]
        return action.text if read == [action, action] else None
    if isinstance(action, PredicateAnswer):
        return action.source if parse_predicate(action.source) == action else None
    text = "\n".join(
        f"{i}. {'Yes' if label else 'No'}" for i, label in enumerate(action.labels, 1) if label is not None
    )
    return text if parse_quiz(text, len(action.labels)) == action else None


def parse_predicate(reply: str) -> PredicateAnswer:
    found = find_predicate(reply)
    return PredicateAnswer(found if found is not None else reply.strip()[:2000])


def parse_quiz(reply: str, n: int) -> QuizAnswer:
    labels: list[bool | None] = [None] * n
    for line in reply[-MAX_REPLY_CHARS:].splitlines():
        m = _QUIZ_LINE.match(line)
        if m and 1 <= int(m.group(1)) <= n:
            labels[int(m.group(1)) - 1] = m.group(2).lower() == "yes"
    return QuizAnswer(tuple(labels))


class CodeFunctionsProtocol:
    """The player's text protocol.

    Args:
        name: one of :data:`PROTOCOLS`.
        level: the game's level (``head`` picks its text by level).
    """

    def __init__(self, name: str = "as-run", level: str = "L1") -> None:
        if name not in PROTOCOLS:
            raise ValueError(f"protocol must be one of {', '.join(PROTOCOLS)}, got {name!r}")
        self.name = name
        self.level = level
        self._expect: Literal["play", "predicate", "quiz"] = "play"
        self._quiz = 0

    def system_prompt(self) -> str:
        return load_text("player_system.txt")

    def first_message(self, observation: Observation) -> str:
        """The first user message, after the system message: the first examples."""
        return self.feedback(observation)

    def parse(self, reply: str) -> Action | Malformed:
        if self._expect == "predicate":
            return parse_predicate(reply)
        if self._expect == "quiz":
            return parse_quiz(reply, self._quiz)
        return parse_play(reply, allow_more=self.name == "game-api")

    def feedback(self, observation: Observation) -> str:
        kind = observation.kind
        self._expect = "play"
        if kind == "ask_predicate":
            self._expect = "predicate"
            return PREDICATE_REQUEST
        if kind == "ask_quiz":
            self._expect = "quiz"
            self._quiz = len(observation.quiz)
            words = "\n".join(f"{i}. {w}" for i, w in enumerate(observation.quiz, 1))
            return QUIZ_REQUEST.format(n=len(observation.quiz), words=words)
        if kind == "ended":
            return ""
        pos, neg = observation.all_positives, observation.all_negatives
        if self.name == "game-api":
            if kind == "start":
                return api_message("api_init_message.txt", observation.positives, observation.negatives)
            lines = []
            if kind == "wrong":
                lines.append(short_message("base.py:362"))
                if observation.reason:
                    lines.append(PREDICATE_PROBLEM.format(reason=observation.reason))
            elif kind == "format_error":
                lines.append(FORMAT_COMPLAINT)
            if observation.positives or observation.negatives or kind == "examples":
                lines.append(
                    api_message("api_more_examples_message.txt", observation.positives, observation.negatives)
                )
            return "\n\n".join(lines)
        if self.name == "as-run":
            return as_run_prompt(pos, neg)
        return head_prompt(self.level, pos, neg, fixed=self.name == "head-fixed")
