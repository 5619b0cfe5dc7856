"""The Numberwang (lists) text protocol: the pilot's prompt, the reply parser and the feedback text.

The model reasons freely, writes a line ``<response>`` and then a JSON object. The JSON after the *last*
``<response>`` counts (a model may draft a response and then revise it). The one exception: when the last
marker sits inside a string of a JSON object that started after an earlier marker (a thought that quotes the
tag), that enclosing object is the reply.

The JSON is read with a small tolerant parser rather than ``json`` alone because the pilot lost about a quarter of
the small models' runs to invalid JSON; every tolerance used is recorded in :attr:`ParsedReply.repairs` so that
strict format adherence can still be measured. Nothing in a reply is ever evaluated as code.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass

from wason.core.game import Malformed
from wason.core.guess_rule import package_text
from wason.judges.labels import RESPONSE_TAG, read_labels
from wason.tasks.lists.game import (
    FinalHypothesis,
    ListsAction,
    ListsObservation,
    PredicateAnswer,
    QuizAnswer,
    TestRound,
    jsonable,
)

# Bounds that keep parsing linear and shallow whatever a model sends.
MAX_REPLY_CHARS = 200_000
MAX_DEPTH = 32
MAX_NUMBER_CHARS = 1_000
MAX_MARKERS_TRIED = 4

_MARKER = RESPONSE_TAG
# Opening quote -> closing quote. Smart quotes are common when a model's output passed through a word processor.
_QUOTES = {'"': '"', "'": "'", "\u201c": "\u201d", "\u201d": "\u201d", "\u2018": "\u2019", "\u2019": "\u2019"}
_ESCAPES = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "'": "'"}
_LITERALS = {"true": True, "false": False, "null": None, "True": True, "False": False, "None": None}
_NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?")
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# After a closing quote the next significant character must be one of these, else the quote was part of the
# text (models often write unescaped quotes inside their thought_process).
_AFTER_STRING = frozenset(",:}])")


@dataclass(frozen=True)
class ParsedReply:
    """A readable reply: its fields (None if absent; a non-string text is rendered as JSON). Each test case is kept
    as given: a JSON list becomes a tuple of its items (ints, floats, strings, booleans, None or nested tuples),
    anything else is kept as parsed; the game decides what to do with non-integer items and with more or fewer
    than five cases."""

    thought_process: str | None
    possible_hypotheses: tuple[str, ...]  # as given (the prompt asks for six)
    leading_hypothesis: str | None
    final_hypothesis: str | None  # an empty or null value counts as absent
    test_cases: tuple[object, ...]
    is_final: bool  # a non-empty ``final_hypothesis`` is present (it wins over ``leading_hypothesis``)
    repairs: tuple[str, ...] = ()  # the tolerances needed to read the reply, in order of first use

    @property
    def hypothesis_count(self) -> int:
        """How many possible hypotheses the model listed (the prompt asked for six)."""
        return len(self.possible_hypotheses)

    @property
    def hypothesis(self) -> str | None:
        """The final hypothesis if the model is done, else the leading one."""
        return self.final_hypothesis if self.is_final else self.leading_hypothesis


def load_initial_prompt() -> str:
    """The pilot's initial prompt template, byte for byte (a ``str.format`` template with ``{examples}``)."""
    return package_text("wason.tasks.lists", "initial_prompt.txt")


def format_example(example: Sequence[int]) -> str:
    """One example list as the pilot showed it: a Python list literal such as ``[2, 4, 6]`` (TypeError if an item
    is not an int; booleans are rejected although Python counts them as ints)."""
    for item in example:
        if not isinstance(item, int) or isinstance(item, bool):
            raise TypeError(f"example items must be ints, got {item!r}")
    return str([int(item) for item in example])


def render_initial_prompt(examples: Sequence[Sequence[int]]) -> str:
    """The pilot's first message: its template with the example lists (the pilot used three) one per line."""
    return load_initial_prompt().format(examples="\n".join(format_example(example) for example in examples))


def format_case(case: object) -> str:
    """A test case as JSON text, e.g. ``[2, 4, 6]`` or ``[1.5, "7"]``, the way the model wrote it."""
    return json.dumps(jsonable(case), ensure_ascii=False, default=repr)


def render_feedback(
    labels: Sequence[bool], tests: Sequence[object] | None = None, *, echo: bool = False
) -> str:
    """The verdicts in the pilot's format: ``"1. Yes\\n2. No\\n..."``, one line per test, no trailing newline.

    With ``echo``, each of ``tests`` is shown too, as ``"1. [2, 4, 6]: Yes"`` (the case as JSON, see
    :func:`format_case`; ValueError without one test case per label). The pilot did not echo, so models had to
    keep track of their own lists.
    """
    words = ["Yes" if label else "No" for label in labels]
    if not echo:
        return "\n".join(f"{number}. {word}" for number, word in enumerate(words, 1))
    if tests is None or len(tests) != len(words):
        raise ValueError("echo needs one test case per label")
    return "\n".join(
        f"{number}. {format_case(case)}: {word}"
        for number, (case, word) in enumerate(zip(tests, words, strict=True), 1)
    )


def integer_list(case: object) -> tuple[int, ...] | None:
    """The case as a tuple of ints, or None if it is not a list of integers.

    Strict on purpose: ``1.0``, ``"1"`` and ``true`` are not integers here, because the model wrote something
    other than an integer and the pilot's labeller was told that such lists fail.
    """
    if isinstance(case, tuple) and all(isinstance(item, int) and not isinstance(item, bool) for item in case):
        return case
    return None


def parse_reply(text: str) -> ParsedReply | Malformed:
    """Read a model's reply: :class:`Malformed` with a reason when there is no ``<response>`` marker, no readable
    JSON object after it, or no usable ``test_cases`` list in a reply that is not final."""
    markers = _markers(text)
    if isinstance(markers, Malformed) or not markers:
        return markers if isinstance(markers, Malformed) else Malformed("no <response> tag")
    first_error: str | None = None
    # Only the last few markers are tried, so that a reply full of tags cannot make parsing quadratic.
    for index in range(len(markers) - 1, max(-1, len(markers) - 1 - MAX_MARKERS_TRIED), -1):
        found = _object_after(text, markers[index])
        if isinstance(found, str):
            first_error = first_error or found
            continue
        value, end, repairs = found
        # An earlier object only counts if it swallowed every later marker (they were quoted inside it).
        if index < len(markers) - 1 and end < markers[-1]:
            break
        return _reply_from(value, repairs)
    return Malformed(first_error or "no readable JSON after <response>")


def _markers(text: str) -> list[int] | Malformed:
    """Where each ``<response>`` marker ends, or Malformed for a reply too long to read."""
    if len(text) > MAX_REPLY_CHARS:
        return Malformed(f"reply longer than {MAX_REPLY_CHARS} characters")
    return [m.end() for m in _MARKER.finditer(text)]


def _object_after(text: str, start: int) -> tuple[dict[str, object], int, list[str]] | str:
    """The first JSON object after ``start``: (value, end offset, repairs), or an error message."""
    brace = text.find("{", start)
    if brace < 0:
        return "no JSON object after <response>"
    repairs: list[str] = []
    before = text[start:brace]
    if "```" in before:
        repairs.append("code fence")
    if _MARKER.sub("", re.sub(r"```[A-Za-z]*", "", before)).strip():
        repairs.append("text before JSON")
    parser = _Parser(text, brace, repairs)
    try:
        value = parser.value(0)
    except _ParseError as error:
        return f"unreadable JSON after <response>: {error}"
    if not isinstance(value, dict):  # pragma: no cover - a '{' always starts an object
        return "the JSON after <response> is not an object"
    return value, parser.pos, repairs


def _reply_from(value: dict[str, object], repairs: list[str]) -> ParsedReply | Malformed:
    fields = {_key(k): v for k, v in value.items()}
    final = _text(fields.get("final_hypothesis"))
    final = final if final and final.strip() else None
    raw_cases = fields.get("test_cases")
    if raw_cases is None:
        if final is None:
            return Malformed("no test_cases and no final_hypothesis")
        cases: tuple[object, ...] = ()
    elif isinstance(raw_cases, list):
        cases = tuple(_frozen(case) for case in raw_cases)
    elif final is None:
        return Malformed(f"test_cases is not a list: {format_case(raw_cases)[:80]}")
    else:  # a final reply needs no tests; a malformed leftover is dropped
        cases = ()
    return ParsedReply(
        thought_process=_text(fields.get("thought_process")),
        possible_hypotheses=_hypotheses(fields.get("possible_hypotheses")),
        leading_hypothesis=_text(fields.get("leading_hypothesis")),
        final_hypothesis=final,
        test_cases=cases,
        is_final=final is not None,
        repairs=tuple(dict.fromkeys(repairs)),
    )


def _key(key: str) -> str:
    # "Final Hypothesis" and "final-hypothesis" mean the same field.
    return re.sub(r"[\s\-]+", "_", key.strip()).lower()


def _text(value: object) -> str | None:
    return value if value is None or isinstance(value, str) else format_case(value)


def _hypotheses(value: object) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        return (value,)
    if isinstance(value, dict):  # {"1": "...", "2": "..."}
        value = list(value.values())
    if isinstance(value, list):
        return tuple(item if isinstance(item, str) else format_case(item) for item in value)
    return (format_case(value),)


def _frozen(value: object) -> object:
    """Lists become tuples (recursively) so that a reply is immutable and hashable."""
    if isinstance(value, list):
        return tuple(_frozen(item) for item in value)
    if isinstance(value, dict):
        return tuple((key, _frozen(item)) for key, item in value.items())
    return value


class _ParseError(Exception):
    pass


class _Parser:
    """A recursive-descent reader for JSON with the mistakes models make.

    Accepted beyond JSON: trailing and missing commas, single and smart quotes, raw newlines and unescaped
    quotes inside strings, unquoted keys, Python's True/False/None, and parentheses for lists.
    """

    def __init__(self, text: str, pos: int, repairs: list[str]) -> None:
        self.text = text
        self.pos = pos
        self.repairs = repairs

    def fail(self, message: str) -> _ParseError:
        return _ParseError(f"{message} at offset {self.pos}")

    def skip(self) -> str:
        """Skip whitespace; return the next character ('' at the end)."""
        text = self.text
        while self.pos < len(text) and text[self.pos].isspace():
            self.pos += 1
        return text[self.pos] if self.pos < len(text) else ""

    def value(self, depth: int) -> object:
        if depth > MAX_DEPTH:
            raise self.fail(f"nested deeper than {MAX_DEPTH}")
        char = self.skip()
        if char in "{[(":
            if char == "(":
                self.repairs.append("parentheses")
            # (at the end, char is "" and this recurses to MAX_DEPTH, as the reader always has)
            return self.container(depth, {"{": "}", "[": "]"}.get(char, ")"))
        if char in _QUOTES:
            return self.string()
        number = _NUMBER.match(self.text, self.pos)
        if number:
            return self.number(number.group())
        word = _WORD.match(self.text, self.pos)
        if word and word.group() in _LITERALS:
            if word.group()[0].isupper():
                self.repairs.append("Python literal")
            self.pos = word.end()
            return _LITERALS[word.group()]
        raise self.fail("expected a value" if char else "unexpected end")

    def number(self, token: str) -> int | float:
        if len(token) > MAX_NUMBER_CHARS:
            raise self.fail("number too long")
        self.pos += len(token)
        if re.fullmatch(r"[+-]?\d+", token):
            return int(token)
        return float(token)

    def separator(self, close: str) -> bool:
        """Consume a comma if present; return True when the container closes next."""
        char = self.skip()
        if char == ",":
            self.pos += 1
            if self.skip() == close:
                self.repairs.append("trailing comma")
                return True
            return False
        if char == close:
            return True
        if not char:
            raise self.fail("unexpected end")
        self.repairs.append("missing comma")
        return False

    def container(self, depth: int, close: str) -> dict[str, object] | list[object]:
        """An object (``close`` is "}") or a list, from its opening character to past its closing one."""
        self.pos += 1
        pairs: list[tuple[str, object]] = []
        more = self.skip() != close
        while more:
            key = ""
            if close == "}":
                key = self.key()
                if self.skip() != ":":
                    raise self.fail("expected ':'")
                self.pos += 1
            pairs.append((key, self.value(depth + 1)))
            more = not self.separator(close)
        self.pos += 1
        return dict(pairs) if close == "}" else [value for _, value in pairs]

    def key(self) -> str:
        char = self.skip()
        if char in _QUOTES:
            return self.string()
        word = _WORD.match(self.text, self.pos)
        if word is None:
            raise self.fail("expected a key")
        self.repairs.append("unquoted key")
        self.pos = word.end()
        return word.group()

    def string(self) -> str:
        text = self.text
        opening = text[self.pos]
        closing = _QUOTES[opening]
        if opening == "'":
            self.repairs.append("single quotes")
        elif opening != '"':
            self.repairs.append("smart quotes")
        self.pos += 1
        out: list[str] = []
        while self.pos < len(text):
            char = text[self.pos]
            if char == "\\" and self.pos + 1 < len(text):
                out.append(self.escape())
                continue
            self.pos += 1
            if char == closing:
                if self._ends_string():
                    return "".join(out)
                self.repairs.append("unescaped quote")
            elif char in "\n\r\t":
                self.repairs.append("raw control character")
            out.append(char)
        raise self.fail("unterminated string")

    def _ends_string(self) -> bool:
        rest = self.pos
        while rest < len(self.text) and self.text[rest].isspace():
            rest += 1
        return rest >= len(self.text) or self.text[rest] in _AFTER_STRING

    def escape(self) -> str:
        char = self.text[self.pos + 1]
        if char == "u":
            digits = self.text[self.pos + 2 : self.pos + 6]
            if re.fullmatch(r"[0-9a-fA-F]{4}", digits):
                self.pos += 6
                code = int(digits, 16)
                low = self.text[self.pos : self.pos + 6]
                if 0xD800 <= code < 0xDC00 and re.fullmatch(r"\\u[dD][c-fC-F][0-9a-fA-F]{2}", low):
                    self.pos += 6
                    return chr(0x10000 + ((code - 0xD800) << 10) + (int(low[2:], 16) - 0xDC00))
                # A lone surrogate cannot be encoded later; keep it visible instead.
                return "\ufffd" if 0xD800 <= code < 0xE000 else chr(code)
        self.pos += 2
        if char in _ESCAPES:
            return _ESCAPES[char]
        self.repairs.append("invalid escape")
        return "\\" + char


# --------------------------------------------------------------------------------------------------------
# The conversation around the game: the pilot's texts where it had them, ours (documented) where it did not.

# After a reply that cannot be read (the pilot had no such message: such runs simply failed).
FORMAT_COMPLAINT = (
    "I could not read your response ({reason}). Please think as much as you like, then add a line with only a "
    "<response> tag, and then finish your response with exactly the JSON format described at the start."
)
# Appended to the 19th round's verdicts: the prompt promises 19 rounds, so the next reply must be final.
FINALIZE_REQUEST = (
    "You have used all {rounds} rounds of tests. Please give your final hypothesis now, using the "
    '"final_hypothesis" key.'
)
PREDICATE_REQUEST = (
    "Thank you. Please also state your final hypothesis as a Python predicate: a single expression "
    "`lambda xs: ...` that returns True exactly for the lists of integers that follow the rule, and False for "
    "all others.\n{language}\n\nThink as much as you like, then add a line with only a <response> tag, and then "
    'finish your response with exactly the following JSON format:\n\n{{\n  "predicate": "lambda xs: ..."\n}}'
)
QUIZ_REQUEST = (
    "Finally, here are {n} new lists. For each one, say whether it follows the rule.\n\n{lists}\n\n"
    "Think as much as you like, then add a line with only a <response> tag, and then finish your response with "
    "exactly the following format:\n\n{answer_lines}"
)

_FENCED = re.compile(r"```[ \t]*(?:python|py)?[ \t]*\n?(?P<body>.*?)```", re.DOTALL | re.IGNORECASE)
_LAMBDA_LINE = re.compile(r"^[ \t>*`-]*(?P<body>lambda\s+xs\s*:.*?)[ \t`*]*$", re.MULTILINE)


def parse_predicate_reply(text: str) -> str | Malformed:
    """The predicate source a reply states: the ``predicate`` field of the JSON after the last ``<response>``,
    else the last fenced code block or line that holds a ``lambda xs:``. Never evaluated here."""
    markers = _markers(text)
    if isinstance(markers, Malformed):
        return markers
    if markers:
        found = _object_after(text, markers[-1])
        if not isinstance(found, str):
            fields = {_key(k): v for k, v in found[0].items()}
            for name in ("predicate", "python_predicate", "lambda", "final_predicate"):
                value = fields.get(name)
                if isinstance(value, str) and value.strip():
                    return value.strip()
    blocks = [b.group("body").strip() for b in _FENCED.finditer(text) if "lambda" in b.group("body")]
    if blocks:
        return blocks[-1]
    lines = list(_LAMBDA_LINE.finditer(text))
    if lines:
        return lines[-1].group("body").strip()
    return Malformed("no predicate (a `lambda xs: ...`) found")


def render_quiz(lists: Sequence[Sequence[int]]) -> str:
    """The quiz question: the held-out lists, numbered, and the answer format."""
    shown = "\n".join(f"{i}. {format_example(lst)}" for i, lst in enumerate(lists, 1))
    answers = "\n".join(
        f"{i}. <Just the word 'Yes' or 'No', depending on whether list {i} follows the rule>"
        for i in range(1, len(lists) + 1)
    )
    return QUIZ_REQUEST.format(n=len(lists), lists=shown, answer_lines=answers)


def format_cases_for_labeller(cases: Sequence[object]) -> str:
    """The ``{test_cases}`` of the pilot's ``analysis_prompt.txt``, as the pilot's ``tester.py`` filled it.

    ``analyze_test_cases`` formats the prompt with the reply's parsed ``test_cases`` value itself, so the labeller
    read Python's text of the parsed JSON list: ``[[1, 2, 3], [3, 2, 1], [1.5, 'a', True, None]]``. A case holding
    a JSON object (kept here as its key-value pairs) is shown as a list of pairs, where the pilot showed a dict.
    """
    return python_text(tuple(cases))


def python_text(value: object) -> str:
    """``str()`` of the value ``json.loads`` would have given: tuples (and lists) as lists, strings quoted as
    Python quotes them, ``True``/``False``/``None``, floats as Python writes them (``1e+16``, ``inf``)."""
    if isinstance(value, tuple | list):
        return "[" + ", ".join(python_text(item) for item in value) + "]"
    return repr(value)


def load_analysis_prompt() -> str:
    """The pilot's labelling prompt (``{rule}``, ``{test_cases}``), byte for byte."""
    return package_text("wason.tasks.lists", "analysis_prompt.txt")


def load_judgment_prompt() -> str:
    """The pilot's judging prompt (``{real_rule}``, ``{model_hypothesis}``), byte for byte."""
    return package_text("wason.tasks.lists", "judgment_prompt.txt")


class ListsProtocol:
    """The pilot's conversation for one episode: prompt with its (three) examples, reply parser, feedback; with
    ``echo``, each tested list beside its label (the pilot showed only "1. Yes"); ``language`` describes the
    predicate language when the predicate is asked for.

    The parser depends on what was last asked (tests, the predicate, the quiz), so use one protocol per episode;
    :meth:`feedback` records what the observation asks for before the next reply is parsed.
    """

    name = "lists"
    # The pilot's first message was the user's (it greets the model and ends with the examples).
    prompt_role = "user"

    def __init__(self, examples: Sequence[Sequence[int]], *, echo: bool = False, language: str = "") -> None:
        self.examples = [list(e) for e in examples]
        self.echo = echo
        self.language = language
        self._expect: str = "tests"
        self._quiz_size = 0

    def system_prompt(self) -> str:
        return render_initial_prompt(self.examples)

    def parse(self, reply: str) -> ListsAction | Malformed:
        if self._expect == "predicate":
            source = parse_predicate_reply(reply)
            return source if isinstance(source, Malformed) else PredicateAnswer(source)
        if self._expect == "quiz":
            labels = read_labels(reply, self._quiz_size)
            if all(label is None for label in labels):
                return Malformed("no '1. Yes' / '1. No' answers found")
            return QuizAnswer(tuple(labels))
        parsed = parse_reply(reply)
        if isinstance(parsed, Malformed):
            return parsed
        if parsed.is_final and parsed.final_hypothesis is not None:
            return FinalHypothesis(parsed.final_hypothesis, parsed.possible_hypotheses)
        return TestRound(
            cases=tuple(as_case(case) for case in parsed.test_cases),
            leading_hypothesis=parsed.leading_hypothesis,
            possible_hypotheses=parsed.possible_hypotheses,
        )

    def feedback(self, observation: ListsObservation) -> str:
        self._expect = {"ask_predicate": "predicate", "ask_quiz": "quiz"}.get(observation.kind, "tests")
        self._quiz_size = len(observation.quiz)
        return render_observation(observation, echo=self.echo, language=self.language)


def write_action(action: ListsAction) -> str:
    """An action as the reply that makes it under this protocol (the pilot's ``<response>`` and its JSON, the
    predicate's JSON, the quiz's numbered answers): what the solver's moves are written as for transcripts and
    expert trajectories; :meth:`ListsProtocol.parse` reads it back as the same action."""
    if isinstance(action, TestRound):
        fields: dict[str, object] = {"possible_hypotheses": list(action.possible_hypotheses)}
        if action.leading_hypothesis is not None:
            fields["leading_hypothesis"] = action.leading_hypothesis
        fields["test_cases"] = [list(c) if isinstance(c, tuple) else c for c in action.cases]
        return f"<response>\n{json.dumps(fields)}"
    if isinstance(action, FinalHypothesis):
        fields = {"possible_hypotheses": list(action.possible_hypotheses), "final_hypothesis": action.text}
        return f"<response>\n{json.dumps(fields)}"
    if isinstance(action, PredicateAnswer):
        return f"<response>\n{json.dumps({'predicate': action.source})}"
    return "\n".join(
        f"{i}. {'Yes' if label else 'No'}" for i, label in enumerate(action.labels, 1) if label is not None
    )


def as_case(case: object) -> object:
    ints = integer_list(case)
    return ints if ints is not None else case


def render_observation(obs: ListsObservation, *, echo: bool = False, language: str = "") -> str:
    """The text the player reads after an action (empty at the start and at the end)."""
    if obs.kind == "labels":
        text = render_feedback(obs.labels, obs.cases, echo=echo)
    elif obs.kind == "format_error":
        text = FORMAT_COMPLAINT.format(reason=obs.reason)
    elif obs.kind == "ask_predicate":
        return PREDICATE_REQUEST.format(language=language)
    elif obs.kind == "ask_quiz":
        return render_quiz(obs.quiz)
    else:
        return ""
    if obs.must_finalize:
        text += "\n\n" + FINALIZE_REQUEST.format(rounds=obs.round)
    return text
