"""Reading the final answer out of a model's reply to an AIW prompt, and comparing it with the right one.

Every AIW prompt type asks for the final answer as ``"### Answer: "``. The reference parser took the first
number after the first ``answer:`` (so ``"### Answer: 2 + 5 = 7"`` read as 2) and otherwise the first number
after "has" (a restated problem number). This module reads the last marker and the final number after it,
and never guesses when there is no marker.

Rules, in order:

1. **Marker.** The last ``### Answer`` heading (any number of ``#``, any case, optional bold, colon optional)
   counts. If there is none, the last ``Answer:`` (colon required; ``**Answer:**``, ``**Answer**:``,
   ``Answer :`` and ``Final answer:`` all match) counts. If there is neither, the status is ``"no_marker"``:
   numbers elsewhere in the reply are restated problem numbers or working as often as they are answers.
2. **Segment.** The text after the marker up to the end of that line is read; if that holds no letter or
   digit (``"### Answer:"`` then a new line), the next line that does is read instead.
3. **Worked sum, then leading value.** A segment that opens with a worked sum -- terms with or without words,
   joined by operators (``+ - * × x / ÷``, plus, and, with, minus, times), then ``=``, an arrow (``→``, ``->``,
   ``=>``) or a word link ("makes", "equals", "gives", "which is", "that's", "so the answer is", "for a total
   of", ...) and a number -- reads the sum's result: the first side after the last operation that names one
   number and no operator. ``"6 sisters + Alice = 7"`` and ``"3 + Alice = 4"`` read 7 and 4 (not their first
   terms), ``"2 brothers + 1 (Alice) = 3 sisters"`` reads 3, ``"M + 1 = 3 + 1 = 4"`` reads 4; what follows the
   result is not read (``"6 + 1 = 7 sisters for each of her 3 brothers"`` is 7); when the operation comes last,
   the side before it counts (``"7 = 6 + 1"`` is 7). The sum ends where prose begins: punctuation, a second
   number in one term, a dash before a word, an explanation or a hedge (because, which includes, or, but, ...).
   A chain whose every side is an operation (``"6 + 1 = 3 + 4"``) is **ambiguous**. The arithmetic is not
   checked: the answer given is the result the reply states.
   Otherwise, when the segment opens with numbers before any prose, that opening decides:
   ``"7  Alice has 3 sisters, so..."`` reads 7 (the value right after the marker wins over numbers in the prose
   that follows), and the same number repeated (``"7, 7"``, ``"5 (5 sisters)"``) is that number. An opening
   that names several different numbers without an ``=`` is **ambiguous** -- a range (``"4-6"``, ``"4 to 6"``,
   ``"between 4 and 6"``), a list (``"3, 4 or 5"``, ``"3,4"``) or an operation whose result the reply does not
   state (``"14/2"``, ``"6/7"``, ``"6 + 1"``): its own status, never a right answer. ``a/b`` is written for
   "a or b" (``"6/7 sisters"``) as often as for a fraction, and the prompt asks for the final answer, not a sum
   to work out. A segment that opens with words is read by the next rules.
4. **Explanation cut.** Once the segment has produced a number (an expression for symbolic answers), an
   explanation that follows is dropped: from the words because, since, where (whereas, whereby), as, which,
   include and count in any of their forms (includes, including, counted, ...), means, consists or
   comprising, and (for numbers) a trailing parenthetical remark. So ``"7 (6 sisters plus Alice)"`` and
   ``"7, because her 6 sisters and Alice"`` read as 7, while ``"2 * (3 + 1) = 8"`` reads as 8.
5. **Value.** The final number in what remains: digits (sign, decimals, ``1,000`` thousands separators, inside
   ``**7**``, ``\\boxed{7}``, ``$7$``, after an equation's ``=``) are preferred; only if there are none is
   the final number word read ("seven", "twenty-one", "one hundred and five"; zero to 999). Digits win
   because "one" is also a pronoun ("7 sisters, one of whom is Alice"). Integral decimals (``7.0``) read
   as ints. Digit strings longer than :data:`MAX_DIGITS` are ignored, not read.

A base model's continuation (the completion of a ``"### Problem: ... ### Answer:"`` prompt) runs on past its
answer and invents further problems and answers: with ``first_answer`` the first marker counts and the text is
read up to the next ``### Problem`` heading. A heading restated right after the marker is the same marker (a
continuation that opens with ``### Answer: 6 or 7`` is ambiguous, as that reply is to any other prompt).

A marker with nothing readable after it is ``"unparseable"`` -- never a wrong number.

Answer kinds (:data:`Kind`): ``"number"`` (the default); ``"sex"`` for the AIW Light attribute control
("Is Alice male or female?"), read as ``"female"``/``"male"`` (female, girl, woman / male, boy, man;
a segment naming both is unparseable, since "female, not male" and "male? no, female" both occur; the
SEX_CODE prompt type's ``1``/``0`` codes are numbers, so use ``"number"`` for it); ``"symbolic"`` for
AIW-Param (``"M + 1"``), read by a whitelisted tokenizer and recursive-descent parser (integers,
single-letter symbols, ``+ - *`` and parentheses; implicit multiplication as in ``2M``) that builds sympy
objects directly -- model text never reaches ``sympify``/``parse_expr``. Symbols are case-sensitive, as in
the problem text (``m + 1`` is not ``M + 1``). The final parseable expression in the segment counts, unless
a hedge or a list joins others to it: expressions separated only by "or" (also "or maybe"), "to", "and",
commas, semicolons, ``/`` or an en dash (``M - 1 or M``, ``M, M + 1``, ``between M and M + 1``, ``M/M + 1``;
"or" and "to" may follow a noun, ``M sisters or M + 1 sisters``) that differ after expansion are
**ambiguous**, as several different numbers are. Equivalent ones are one answer (``M + 1 or 1 + M``), and
words or an ``=`` between two expressions join nothing: ``M + 1, that is, M + 1``, ``I think M, no wait,
M + 1`` and ``M - 1 or M = M + 1`` read ``M + 1``; ``X sisters and Y brothers`` names two things, not a hedge.

:func:`answers_match` compares numbers numerically and expressions by ``expand(a - b) == 0``.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any, Literal

from wason.tasks.aiw.families import WORD_NUMBERS

Kind = Literal["number", "sex", "symbolic"]
Status = Literal["ok", "unparseable", "no_marker", "ambiguous"]

#: Digit strings longer than this are not read as numbers: Python refuses to convert very long ones and no
#: AIW answer is anywhere near this size.
MAX_DIGITS = 100
#: Symbolic expressions longer than this many tokens, or nested deeper, are not parsed (keeps hostile
#: input from driving recursion or sympy expansion costs up).
MAX_EXPR_TOKENS = 64
MAX_EXPR_DEPTH = 16

_PRIMARY_MARKER = re.compile(
    r"#{1,6}[ \t]*(?:\*\*|__)?[ \t]*(?:final[ \t]+)?answer\b[ \t]*(?:\*\*|__)?[ \t]*:?", re.IGNORECASE
)
_FALLBACK_MARKER = re.compile(r"\banswer[ \t]*(?:\*\*|__)?[ \t]*:", re.IGNORECASE)
# a heading restated right after the marker ("### Answer: ### Answer: 7"): the same marker
_RESTATED = re.compile(r"[\s*_]*" + _PRIMARY_MARKER.pattern, re.IGNORECASE)
_ALNUM = re.compile(r"[^\W_]")

_DIGITS = re.compile(
    r"(?<![\d.])(?P<sign>[-−])?(?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?(?!\d|,\d)|\d+(?:\.\d+)?)(?!\d)"
)
_UNITS = {w: n for w, n in WORD_NUMBERS.items() if 1 <= n <= 9}
_SMALL = {w: n for w, n in WORD_NUMBERS.items() if n < 20}
_TENS = {w: n for w, n in WORD_NUMBERS.items() if n in range(20, 100, 10)}


def _alt(words: dict[str, int]) -> str:
    # Longest first so "seventeen" is not read as "seven".
    return "|".join(sorted(words, key=len, reverse=True))


_SEP = r"[ \t]*-[ \t]*|[ \t]+"
_BELOW_100 = rf"(?:{_alt(_TENS)})(?:(?:{_SEP})(?:{_alt(_UNITS)}))?|{_alt(_SMALL)}"
_WORDS = re.compile(
    rf"\b(?:(?P<hundreds>{_alt(_UNITS)}|a)(?:{_SEP})hundred(?:(?:{_SEP})(?:and(?:{_SEP}))?(?P<rest>{_BELOW_100}))?"
    rf"|(?P<below>{_BELOW_100}))\b",
    re.IGNORECASE,
)
_SEX = re.compile(r"\b(?P<female>female|girl|woman)\b|\b(?P<male>male|boy|man)\b", re.IGNORECASE)
_TRAILING_REMARK = re.compile(r"(?<!\\)\([^()]*\)[\s.,;:!?*_$]*$")
_EXPLANATION_WORDS = re.compile(
    r"\b(?:because|since|where(?:as|by)?|as|which|includ(?:e|es|ed|ing)|count(?:s|ed|ing)?|mean(?:s|ing)?|"
    r"consist(?:s|ing)?|comprising)\b",
    re.IGNORECASE,
)
# The numbers an answer can open with, before any prose: digits, the operators of a worked sum, the words and
# punctuation of a range or a list, and markup. Rule 3 of the module docstring reads this leading part first.
_LEAD_TOKEN = re.compile(
    r"(?P<num>(?<![\w.])[-−]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?!\w|\.\d|,\d{3}))|(?P<open>\()"
    r"|(?P<op>[-+*/×÷−–=xX](?=[\s\d(]))|(?P<link>\b(?:to|or|and|between)\b|,)"
    r"|(?P<skip>[\s*_$`)\[\]{}]|\\boxed|\\text)|(?P<stop>.)",
    re.IGNORECASE,
)
_PROBLEM_HEADING = re.compile(r"#{1,6}[ \t]*(?:\*\*|__)?[ \t]*problem\b", re.IGNORECASE)


class _Ambiguous:
    """The reply's answer names several different numbers or expressions (a range, a list, a hedge): no single
    answer was given."""


AMBIGUOUS = _Ambiguous()


@dataclass(frozen=True)
class ParsedAnswer:
    """What was read from one reply.

    Attributes:
        value: the answer -- an int or float for ``"number"``, ``"female"``/``"male"`` for ``"sex"``, a sympy
            expression for ``"symbolic"``; ``None`` unless ``status == "ok"``.
        status: ``"ok"``; ``"unparseable"`` (a marker with nothing readable after it); ``"no_marker"``;
            ``"ambiguous"`` (several different numbers or expressions and no single answer: a range, a list,
            ``14/2``, ``M - 1 or M``).
        raw: the text after the marker that was read (the segment, before the explanation cut); ``""``
            without a marker.
        kind: the kind of answer that was looked for.
    """

    value: Any  # int | float | str | sympy.Expr | None; sympy is untyped, hence Any
    status: Status
    raw: str
    kind: Kind = "number"


def answer_segment(reply: str, *, first_answer: bool = False) -> str | None:
    """Return the text the answer is read from (rules 1 and 2 of the module docstring).

    Args:
        reply: the model's whole reply.
        first_answer: read a base model's continuation: its first answer, up to the next ``### Problem`` it
            goes on to invent (a completion runs on past its answer), instead of the last marker.

    Returns:
        The segment after the last marker, stripped of surrounding whitespace and markup, or ``None`` when
        the reply has no marker.
    """
    # The last marker counts: a reply may restate the format or correct itself before its final answer.
    markers = list(_PRIMARY_MARKER.finditer(reply)) or list(_FALLBACK_MARKER.finditer(reply))
    if not markers:
        return None
    marker = markers[0] if first_answer else markers[-1]
    start = marker.end()
    # A continuation that opens with the prompt's heading of its own ("### Answer:" then "### Answer: 6 or 7") is
    # read after it: the heading would otherwise open the segment as prose, and a hedge would read as its last
    # number.
    while (again := _RESTATED.match(reply, start)) is not None:
        start = again.end()
    rest = reply[start:]
    if first_answer and (invented := _PROBLEM_HEADING.search(rest)) is not None:
        rest = rest[: invented.start()]
    lines = rest.split("\n", 1)
    segment = lines[0]
    if not _ALNUM.search(segment) and len(lines) > 1:
        # The answer is on a following line ("### Answer:\n\n**7**"); take the first one with any content.
        segment = next((line for line in lines[1].split("\n") if _ALNUM.search(line)), "")
    return segment.strip(" \t\r*_")


def _cut_explanation(segment: str, first_value_end: int, parens: bool) -> str:
    """Drop an explanation that follows the first value read (rule 4 of the module docstring)."""
    cut = _EXPLANATION_WORDS.search(segment, first_value_end)
    if cut is not None:
        segment = segment[: cut.start()]
    if parens:
        # Only a trailing remark is dropped: "2 * (3 + 1) = 8" keeps its parenthesis, "7 (6 + Alice)" loses it.
        remark = _TRAILING_REMARK.search(segment, first_value_end)
        if remark is not None:
            segment = segment[: remark.start()]
    return segment


def _digit_value(m: re.Match[str]) -> int | float | None:
    text = m.group("num").replace(",", "")
    whole, _, frac = text.partition(".")
    if len(whole) > MAX_DIGITS:
        return None
    sign = -1 if m.group("sign") else 1
    if not frac.strip("0"):
        return sign * int(whole)
    return sign * float(text)


def _word_value(m: re.Match[str]) -> int:
    def below_100(text: str) -> int:
        parts = re.split(_SEP, text.lower())
        if parts[0] in _TENS:
            return _TENS[parts[0]] + (_UNITS[parts[1]] if len(parts) > 1 else 0)
        return _SMALL[parts[0]]

    if m.group("below") is not None:
        return below_100(m.group("below"))
    hundreds = m.group("hundreds").lower()
    value = 100 * (1 if hundreds == "a" else _UNITS[hundreds])
    return value + (below_100(m.group("rest")) if m.group("rest") else 0)


# --- worked sums: "6 sisters + Alice = 7", "3 + 1 = 4", "2 brothers + 1 (Alice) = 3 sisters" -----------------

#: A worked sum is read from at most this many tokens (numbers, words, operators, links): past it the segment is
#: prose, and the other rules read it.
MAX_SUM_TOKENS = 64

_AFTER_WORD = r"(?![\w'’])"
_SUM_TAIL = rf"(?:[ \t]+(?:a[ \t]+total[ \t]+of|in[ \t]+total|altogether|total){_AFTER_WORD})?"
_SUM_VERB = (
    r"(?:is[ \t]+equal[ \t]+to|equals?|makes?|making|gives?|giving|yields?|comes?[ \t]+to|adds?[ \t]+up[ \t]+to"
    r"|totals?|totall?ing|results?[ \t]+in|resulting[ \t]+in|means?|brings?[ \t]+(?:it|us|the[ \t]+total)[ \t]+to)"
)
_SUM_RESULT_IS = r"the[ \t]+(?:final[ \t]+)?(?:answer|total|result|sum)[ \t]+is"
# What joins a sum to its result. "is" alone is not one ("3 sisters and Alice is one of them"), nor is a bare
# comma; a word link takes the comma before it ("6 sisters plus Alice, which makes 7").
_SUM_LINK = (
    r"=+>?|-+>|→|⟶|⇒|⟹|\\(?:to|rightarrow|Rightarrow|implies)(?![a-zA-Z])"
    rf"|(?:,[ \t]*)?(?<![\w'’])(?:"
    rf"(?:(?:which|that|this|it)[ \t]+)?{_SUM_VERB}"
    rf"|(?:which|that|this|it)(?:[ \t]+is|['’]s)"
    rf"|(?:so|thus|hence|therefore)(?:,?[ \t]+(?:{_SUM_RESULT_IS}|(?:it|that)(?:[ \t]+is|['’]s)|we[ \t]+get))?"
    rf"|{_SUM_RESULT_IS}|for[ \t]+a[ \t]+total[ \t]+of"
    rf"){_AFTER_WORD}"
)
_SUM_TOKEN = re.compile(
    r"(?P<skip>\*\*|__|\s+|\\(?:boxed|text|mathrm|mathbf|left|right|displaystyle)(?![a-zA-Z])|\\[()\[\],]"
    r"|[$`{}\[\]()_])"
    rf"|(?P<link>{_SUM_LINK}){_SUM_TAIL}"
    r"|(?P<num>(?<![\w.,])(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?![\w.]\d|,\d{3}|[^\W\d_]))"
    r"|(?P<op>[+×÷·/]|\\(?:times|cdot|div)(?![a-zA-Z])|\*(?!\*)|[-−–](?=[ \t]*[\d(])|[xX](?=[ \t]*\d)"
    rf"|(?<![\w'’])(?:plus|minus|times|and|with|(?:along|together)[ \t]+with|multiplied[ \t]+by|divided[ \t]+by)"
    rf"{_AFTER_WORD})"
    r"|(?P<word>[^\W\d_]+(?:['’][^\W\d_]+)*)"
    r"|(?P<stop>.)",
    re.IGNORECASE | re.DOTALL,
)
# Words after which the segment explains or hedges rather than works the sum out.
_SUM_END_WORDS = re.compile(
    rf"(?:{_EXPLANATION_WORDS.pattern})|\b(?:but|or|if|not|wait|unless|assuming|except|excluding)\b",
    re.IGNORECASE,
)


@dataclass
class _SumSide:
    """One side of a worked sum: the numbers it names, and whether an operator joins two of its terms."""

    values: list[int | float] = field(default_factory=list)
    words: int = 0
    operator: bool = False

    def empty(self) -> bool:
        return not self.values and not self.words and not self.operator


def _sum_number(text: str) -> int | float | None:
    text = text.replace(",", "")
    if len(text.split(".")[0]) > MAX_DIGITS:
        return None
    value = float(text)
    return int(text.split(".")[0]) if value.is_integer() else value


def _sum_sides(segment: str) -> list[_SumSide]:
    """The sides of the worked sum the segment opens with, up to where prose begins (rule 3)."""
    sides: list[_SumSide] = []
    side = _SumSide()
    prev = ""  # the kind of the previous token: "" (none yet), "num", "op", "word" or "link"
    has_num = False  # the current term names a number already: another one without an operator is prose
    sign = 1
    pos = tokens = 0
    while pos < len(segment) and tokens < MAX_SUM_TOKENS:
        m = _SUM_TOKEN.match(segment, pos)
        if m is None:  # pragma: no cover - the pattern's last branch matches any character
            break
        kind, text, pos = m.lastgroup or "stop", m.group(), m.end()
        value = _sum_number(text) if kind == "num" else None
        if kind == "word" and (words := _WORDS.match(segment, m.start())) is not None:
            kind, text, pos, value = "num", words.group(), words.end(), _word_value(words)
        if kind == "skip":
            continue
        tokens += 1
        if kind == "op" and text in ("x", "X") and not has_num:
            kind = "word"  # "x + 3": a symbol, not "times"
        if kind == "op" and prev in ("", "op", "link"):  # an operator with no term before it
            if text in ("-", "−", "–", "+") and prev != "op":
                sign = 1 if text == "+" else -1
                continue
            if text == "*":
                continue  # markup: "*7*"
            if not text.isalpha():
                break
            kind = "word"  # "and", "with" opening a term
        if kind == "link":
            if prev == "op":
                break
            if side.empty() and not sides:
                continue  # "So 6 + 1 = 7": nothing before the link
            if prev != "link":
                sides.append(side)
                side, has_num, sign = _SumSide(), False, 1
        elif kind == "num":
            if has_num or value is None:
                break
            side.values.append(sign * value)
            has_num, sign = True, 1
        elif kind == "op":
            if prev == "link":
                break
            side.operator, has_num = True, False
        elif kind == "word":
            if prev == "link" or _SUM_END_WORDS.fullmatch(text):
                break  # a link not followed by a number, or the explanation begins
            side.words += 1
        elif text in ",:" and not sides and not side.values:
            side, prev = _SumSide(), ""  # words before it: "Well, 6 + 1 = 7", "Total: 6 + 1 = 7"
            continue
        else:
            break  # punctuation ends the sum
        prev = kind
    if not side.empty():
        sides.append(side)
    return sides


def _worked_sum(segment: str) -> int | float | _Ambiguous | None:
    """The result of the worked sum the segment opens with (rule 3), or None when it does not open with one.

    The sides of ``a + b = c`` (joined by ``=``, ``→``, "makes", "which is", "so the answer is", ...) are read
    up to the first prose. The answer is the sum's result: the first side after the last operation that names
    one number and no operator (``6 sisters + Alice = 7`` is 7, ``M + 1 = 3 + 1 = 4`` is 4, and a restatement or
    an explanation after it is not read), or, when the operation comes last, the side before it (``7 = 6 + 1``).
    A chain of operations with no such side (``6 + 1 = 3 + 4``) states no result: ambiguous. The arithmetic is
    not checked: the answer given is the result the reply states.
    """
    sides = _sum_sides(segment)
    operations = [i for i, s in enumerate(sides) if s.operator]
    if len(sides) < 2 or not operations:
        return None
    results = [i for i, s in enumerate(sides) if not s.operator and len(s.values) == 1]
    after = [i for i in results if i > operations[-1]]
    if after:
        return sides[after[0]].values[0]
    return sides[results[-1]].values[0] if results else AMBIGUOUS


def _leading_number(segment: str) -> int | float | _Ambiguous | None:
    """The answer the segment opens with, before any prose (rule 3 of the module docstring), or None when it
    opens with words or with an equation that is not a worked sum, ``x = −2`` (the later rules decide those)."""
    numbers: list[int | float] = []
    ops: list[str] = []
    for m in _LEAD_TOKEN.finditer(segment):
        kind = m.lastgroup
        if kind == "stop" or (kind == "open" and numbers and not ops):
            break  # prose, or a remark in parentheses after the answer ("7 (6 sisters and Alice)")
        if kind == "num":
            text = m.group().replace(",", "").replace("−", "-")
            if len(text.split(".")[0].lstrip("-")) > MAX_DIGITS:
                return None
            value = float(text)
            numbers.append(int(value) if value.is_integer() else value)
        elif kind == "op":
            ops.append(m.group())
        # a link ("to", "or", ",") joins numbers of a range or a list: read on
    if not numbers:
        return None
    if "=" in ops:
        return None  # an equation _worked_sum did not read (no operation, or prose inside): rule 5 reads it
    if len(set(numbers)) == 1:
        return numbers[0]
    # Several different numbers and no "=": a range or a list ("4-6", "4 to 6", "3, 4 or 5"), or an operation
    # whose result the reply does not state ("14/2", "6 + 1"). "a/b" is written as often for "a or b" ("6/7
    # sisters") as for a fraction, and the prompt asks for the final answer, not a sum to work out.
    return AMBIGUOUS


def _read_number(segment: str) -> int | float | _Ambiguous | None:
    worked = _worked_sum(segment)
    if worked is not None:
        return worked
    lead = _leading_number(segment)
    if lead is not None:
        return lead
    first = next((m for m in _DIGITS.finditer(segment) if _digit_value(m) is not None), None)
    if first is None:
        first_word = _WORDS.search(segment)
        if first_word is None:
            return None
        words = list(_WORDS.finditer(_cut_explanation(segment, first_word.end(), parens=True)))
        return _word_value(words[-1])
    kept = _cut_explanation(segment, first.end(), parens=True)
    values = [v for m in _DIGITS.finditer(kept) if (v := _digit_value(m)) is not None]
    return values[-1]


def _read_sex(segment: str) -> str | None:
    found = {"female" if m.group("female") else "male" for m in _SEX.finditer(segment)}
    return found.pop() if len(found) == 1 else None


# --- symbolic answers: tokenizer and recursive-descent parser --------------------------------------------

_TOKEN = re.compile(
    r"(?P<int>\d+)|(?P<word>[A-Za-z]+)|(?P<op>[-+*×·−()])|(?P<space>[ \t]+)|(?P<other>.)", re.DOTALL
)
_OPS = {"×": "*", "·": "*", "−": "-"}


class _ExprParser:
    """Recursive descent over one run of expression tokens.

    Grammar::

        expr   := term (("+" | "-") term)*
        term   := unary (("*" unary) | implicit)*       implicit: a symbol or "(" right after a factor
        unary  := ("+" | "-") unary | factor
        factor := INT | SYMBOL | "(" expr ")"
    """

    def __init__(self, tokens: list[str]) -> None:
        self.tokens = tokens
        self.pos = 0
        self.depth = 0

    def parse(self) -> Any:
        value = self.expr()
        if self.pos != len(self.tokens):
            raise ValueError("trailing tokens")
        return value

    def peek(self) -> str | None:
        return self.tokens[self.pos] if self.pos < len(self.tokens) else None

    def take(self) -> str:
        token = self.peek()
        if token is None:
            raise ValueError("unexpected end")
        self.pos += 1
        return token

    def expr(self) -> Any:
        value = self.term()
        while self.peek() in ("+", "-"):
            sign = self.take()
            operand = self.term()
            value = value + operand if sign == "+" else value - operand
        return value

    def term(self) -> Any:
        value = self.unary()
        while True:
            token = self.peek()
            if token == "*":
                self.take()
                value = value * self.unary()
            elif token is not None and (token == "(" or token.isalpha()):
                value = value * self.factor()
            else:
                return value

    def unary(self) -> Any:
        token = self.peek()
        if token in ("+", "-"):
            self.take()
            operand = self.unary()
            return -operand if token == "-" else operand
        return self.factor()

    def factor(self) -> Any:
        token = self.take()
        if token == "(":
            self.depth += 1
            if self.depth > MAX_EXPR_DEPTH:
                raise ValueError("nested too deeply")
            value = self.expr()
            if self.take() != ")":
                raise ValueError("unbalanced parenthesis")
            self.depth -= 1
            return value
        if token.isdigit():
            if len(token) > MAX_DIGITS:
                raise ValueError("number too long")
            return _sympy().Integer(int(token))
        if token.isalpha():
            return _sympy().Symbol(token)
        raise ValueError(f"unexpected token {token!r}")


def _sympy() -> Any:
    # imported on first use: sympy alone costs more start-up than the rest of wason (issue 39)
    import sympy

    return sympy


def _expression_runs(segment: str) -> list[tuple[int, int, list[str]]]:
    """Split a segment into maximal runs of expression tokens, each with its start and end offsets.

    A run is broken by anything that cannot be part of an expression: a word longer than one letter, ``=``,
    punctuation, LaTeX commands and braces. Single letters are symbols.
    """
    runs: list[tuple[int, int, list[str]]] = []
    current: list[str] = []
    start = end = 0
    for m in _TOKEN.finditer(segment):
        kind, text = m.lastgroup, m.group()
        if kind == "space":
            continue
        if kind in ("int", "op") or (kind == "word" and len(text) == 1):
            if not current:
                start = m.start()
            current.append(_OPS.get(text, text))
            end = m.end()
        elif current:
            runs.append((start, end, current))
            current = []
    if current:
        runs.append((start, end, current))
    return runs


def _parse_tokens(tokens: list[str]) -> Any:
    if not tokens or len(tokens) > MAX_EXPR_TOKENS:
        return None
    try:
        return _ExprParser(tokens).parse()
    except ValueError:
        return None


# What joins the expressions of a hedge or a list (``M - 1 or M``, ``M, M + 1``, ``between M and M + 1``,
# ``M/M + 1``): the gap between two runs holds only these links, with spaces and markup around them. A gap
# with a word in it ("I think M, no wait, M + 1"; "M + 1, that is, M + 1"; "has M sisters") or an ``=``
# ("S = M + 1") joins nothing, so an equation's result is read alone.
_GAP_MARKUP = r"(?:[\s*_$`]|\\[()\[\]])*"
_OR = r"\bor(?:[ \t]+(?:maybe|perhaps|possibly|probably))?\b"  # "M, or maybe M + 1" hedges too
_HEDGE_GAP = re.compile(rf"{_GAP_MARKUP}(?:(?:[,;/–&]|{_OR}|\b(?:to|and)\b){_GAP_MARKUP})+", re.IGNORECASE)
# An alternative names its unit ("M sisters or M + 1 sisters"): a noun may come before "or" or "to", which
# only offer alternatives. Not before "and" or a comma, which also join different things ("X sisters and Y
# brothers", "X brothers, Y sisters"): those are not a hedge.
_NOUN_HEDGE_GAP = re.compile(
    rf"{_GAP_MARKUP}(?:sisters?|brothers?|girls?|boys?|siblings?|children|kids?){_GAP_MARKUP}(?:,{_GAP_MARKUP})?"
    rf"(?:{_OR}|\bto\b){_GAP_MARKUP}",
    re.IGNORECASE,
)


def _same_expression(a: Any, b: Any) -> bool:
    return bool(a == b or _sympy().expand(a - b) == 0)


def _hedged(segment: str, runs: list[tuple[int, int, list[str]]], final: int, expr: Any) -> Any | _Ambiguous:
    """``expr`` (the final expression, ``runs[final]``) unless a link joins a different expression to it.

    Runs before the final one are followed back while only a link (``_HEDGE_GAP``, or ``_NOUN_HEDGE_GAP``'s
    noun then "or"/"to") separates them and each parses; one that differs from ``expr`` after expansion
    (``M + 1`` and ``1 + M`` are one) makes the answer ambiguous, as several different numbers do. Each
    distinct form is parsed and compared once, so a long list costs one pass.
    """
    start, _, tokens = runs[final]
    same = {tuple(tokens)}  # the forms already read as the answer: a long list of them is parsed once
    for begin, end, tokens in reversed(runs[:final]):
        gap = segment[end:start]
        if _HEDGE_GAP.fullmatch(gap) is None and _NOUN_HEDGE_GAP.fullmatch(gap) is None:
            break
        if (written := tuple(tokens)) not in same:
            other = _parse_tokens(tokens)
            if other is None:
                break
            if not _same_expression(other, expr):
                return AMBIGUOUS
            same.add(written)
        start = begin
    return expr


def _read_symbolic(segment: str) -> Any | _Ambiguous:
    runs = _expression_runs(segment)
    first = next((end for _, end, tokens in runs if _parse_tokens(tokens) is not None), None)
    if first is None:
        return None
    kept = _cut_explanation(segment, first, parens=False)
    # The final expression counts, unless a hedge or a list joins others to it; search from the end so a
    # long line is not parsed run by run.
    runs = _expression_runs(kept)
    for i in reversed(range(len(runs))):
        expr = _parse_tokens(runs[i][2])
        if expr is not None:
            return _hedged(kept, runs, i, expr)
    return None  # pragma: no cover - the first run that parsed lies before the cut


def parse_expression(text: str) -> Any:
    """Parse a whole string as one expression with the whitelisted grammar (no marker, no other words).

    Args:
        text: e.g. ``"M + 1"``, ``"(M+1)"``, ``"2M - 1"``.

    Returns:
        A sympy expression, or ``None`` if the text is not exactly one expression.
    """
    runs = _expression_runs(text)
    # Anything outside the single run (a word, "=", punctuation) means the text is not just an expression.
    if len(runs) != 1 or text[: runs[0][0]].strip() or text[runs[0][1] :].strip():
        return None
    return _parse_tokens(runs[0][2])


# --- public API -------------------------------------------------------------------------------------------


def parse_answer(reply: str, kind: Kind = "number", *, first_answer: bool = False) -> ParsedAnswer:
    """Read the final answer from a reply (see the module docstring for the rules).

    Args:
        reply: the model's whole reply.
        kind: ``"number"`` (default), ``"sex"`` (attribute control) or ``"symbolic"`` (AIW-Param).
        first_answer: a base model's continuation: read its first answer (see :func:`answer_segment`).

    Returns:
        The parsed answer; ``value`` is ``None`` unless ``status == "ok"``.
    """
    segment = answer_segment(reply, first_answer=first_answer)
    if segment is None:
        return ParsedAnswer(None, "no_marker", "", kind)
    value: Any
    if kind == "number":
        value = _read_number(segment)
        if value is AMBIGUOUS:
            return ParsedAnswer(None, "ambiguous", segment, kind)
    elif kind == "sex":
        value = _read_sex(segment)
    else:
        value = _read_symbolic(segment)
        if value is AMBIGUOUS:
            return ParsedAnswer(None, "ambiguous", segment, kind)
    return ParsedAnswer(value, "unparseable" if value is None else "ok", segment, kind)


def parse_symbolic(reply: str) -> Any:
    """Read an AIW-Param answer (``"### Answer: M + 1 sisters"``) as a sympy expression.

    Args:
        reply: the model's whole reply.

    Returns:
        The final expression after the last marker (a sympy expression; plain integers are expressions
        too), or ``None`` when there is no marker, no expression after it, or several different ones
        (``M - 1 or M``: ambiguous).
    """
    return parse_answer(reply, "symbolic").value


def answer_kind(expected: int | float | str) -> Kind:
    """The kind of answer to look for given the right answer.

    Args:
        expected: a right answer as :func:`wason.tasks.aiw.solve` or ``expected_answer`` gives it.

    Returns:
        ``"sex"`` for ``"female"``/``"male"``, ``"number"`` for numbers and numeric strings (the SEX_CODE
        ``"1"``/``"0"`` included), else ``"symbolic"``.
    """
    if isinstance(expected, str):
        text = expected.strip().lower()
        if text in ("female", "male"):
            return "sex"
        if _number_literal(text) is None:
            return "symbolic"
    return "number"


def _number_literal(text: str) -> int | float | None:
    m = _DIGITS.fullmatch(text.strip())
    return None if m is None else _digit_value(m)


def _as_sympy(value: Any) -> Any:
    # Python numbers become sympy numbers directly; expressions were built by the parser above.
    if isinstance(value, int):
        return _sympy().Integer(value)
    if isinstance(value, float):
        return _sympy().Float(value)
    return value


def answers_match(parsed: ParsedAnswer, expected: int | float | str) -> bool:
    """Whether a parsed answer equals the right answer.

    Numbers compare numerically (``7`` equals ``"7.0"``); sexes by label; when either side is an expression
    (AIW-Param), by ``sympy.expand(a - b) == 0``, so ``1 + M`` matches ``"M + 1"`` but ``m + 1`` does not.

    Args:
        parsed: a :func:`parse_answer` result; anything but ``status == "ok"`` never matches.
        expected: the right answer: an int/float, a numeric string, ``"female"``/``"male"``, or an
            expression string such as ``"M + 1"``.

    Returns:
        True when they are equal.

    Raises:
        ValueError: if ``expected`` is none of those (e.g. the published AIW-Param records' ``"null"``).
    """
    kind = answer_kind(expected)
    if kind == "sex":
        return parsed.status == "ok" and parsed.value == str(expected).strip().lower()
    want: Any
    if kind == "number":
        want = expected if not isinstance(expected, str) else _number_literal(expected)
    else:
        want = parse_expression(str(expected))
        if want is None or not want.free_symbols:
            raise ValueError(f"cannot interpret expected answer {expected!r}")
    if parsed.status != "ok" or isinstance(parsed.value, str):
        return False
    got = parsed.value
    if isinstance(got, int | float) and isinstance(want, int | float):
        return math.isclose(got, want, rel_tol=1e-9, abs_tol=1e-9)
    return bool(_sympy().expand(_as_sympy(got) - _as_sympy(want)) == 0)
