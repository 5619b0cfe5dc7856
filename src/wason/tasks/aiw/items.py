"""Render and solve AIW items, recognise published prompts, and list the published records reproduced.

The published mapping (``data/published.json``) was produced once by :func:`parse` over the public
``prompts.json``; the fidelity tests re-render every entry and compare it byte for byte with the source.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache
from importlib import resources

from wason.tasks.aiw.families import (
    ALL_FAMILIES,
    MAX_WORD_NUMBER,
    SLOT_RE,
    WORD_NUMBERS,
    Answer,
    Family,
    Slot,
    Slots,
    number_word,
)
from wason.tasks.aiw.prompt_types import PROMPT_TYPES, PromptType

_SYMBOL = re.compile(r"[A-Z]")


def _family(family: Family | str) -> Family:
    return ALL_FAMILIES[family] if isinstance(family, str) else family


def _prompt_type(prompt_type: PromptType | str) -> PromptType:
    return PROMPT_TYPES[prompt_type] if isinstance(prompt_type, str) else prompt_type


def _check_slots(fam: Family, slots: Slots) -> None:
    if set(slots) != set(fam.slots):
        raise ValueError(f"{fam.name} needs slots {sorted(fam.slots)}, got {sorted(slots)}")
    for name, value in slots.items():
        if fam.symbolic:
            if not (isinstance(value, str) and _SYMBOL.fullmatch(value)):
                raise ValueError(f"{fam.name}: slot {name} must be a capital letter, got {value!r}")
        elif not isinstance(value, int) or isinstance(value, bool) or value < fam.min_value:
            raise ValueError(f"{fam.name}: slot {name} must be an int >= {fam.min_value}, got {value!r}")
        elif fam.words and value > MAX_WORD_NUMBER:
            raise ValueError(
                f"{fam.name}: slot {name} must be <= {MAX_WORD_NUMBER} to be spelled, got {value}"
            )


def _spell(fam: Family, value: Slot, sentence_start: bool) -> str:
    """A slot value as the family writes it: digits, a symbol, or a number word."""
    if not (fam.words and isinstance(value, int)):
        return str(value)
    word = "a" if fam.article and value == 1 else number_word(value)
    return word[0].upper() + word[1:] if sentence_start else word


def _starts_sentence(text: str) -> bool:
    return text == "" or text.endswith((". ", "? ", "! "))


def render_problem(family: Family | str, slots: Slots) -> str:
    """The problem statement: a family's template (or its name's) filled with a value for every slot, no
    prompt-type instruction. Raises ValueError if slots are missing, extra, or of the wrong kind for the family."""
    fam = _family(family)
    _check_slots(fam, slots)

    def fill(m: re.Match[str]) -> str:
        value = slots[m.group(1)]
        spelled = _spell(fam, value, _starts_sentence(fam.template[: m.start()]))
        if m.group(2) is None:
            return spelled
        noun = m.group(2) if value == 1 else m.group(3)
        return f"{spelled} {noun}"

    return SLOT_RE.sub(fill, fam.template)


def render(family: Family | str, slots: Slots, prompt_type: PromptType | str) -> str:
    """The full prompt: the problem wrapped in the prompt type's instruction text (byte-identical to the published
    record for published items)."""
    return _prompt_type(prompt_type).wrap(render_problem(family, slots))


def solve(family: Family | str, slots: Slots) -> Answer:
    """The right answer: an int, ``"female"`` for the attribute control, or an expression string such as
    ``"M + 1"`` for symbolic slots. Raises ValueError if the slots do not fit the family."""
    fam = _family(family)
    _check_slots(fam, slots)
    return fam.solver(slots)


def expected_answer(family: Family | str, slots: Slots, prompt_type: PromptType | str) -> str:
    """The answer a response to this prompt should give, as text (applying the prompt type's answer code)."""
    answer = str(solve(family, slots))
    return _prompt_type(prompt_type).answer_codes.get(answer, answer)


@cache
def _pattern(fam: Family) -> re.Pattern[str]:
    out: list[str] = []
    seen: set[str] = set()
    pos = 0
    value = r"[A-Z]" if fam.symbolic else r"\d+"
    if fam.words:
        # Longest words first so "seventy-one" is not cut at "seventy"; case is folded for sentence starts and
        # the re-render in parse rejects a capital anywhere else.
        spelled = sorted([*WORD_NUMBERS, *(["a"] if fam.article else [])], key=len, reverse=True)
        value = "(?i:" + "|".join(re.escape(w) for w in spelled) + ")"
    for m in SLOT_RE.finditer(fam.template):
        out.append(re.escape(fam.template[pos : m.start()]))
        name = m.group(1)
        out.append(f"(?P={name})" if name in seen else f"(?P<{name}>{value})")
        seen.add(name)
        if m.group(2) is not None:
            out.append(f" (?:{re.escape(m.group(2))}|{re.escape(m.group(3))})")
        pos = m.end()
    out.append(re.escape(fam.template[pos:]))
    return re.compile("".join(out))


def _slot_value(fam: Family, text: str) -> Slot:
    """The slot value a matched piece of prompt text stands for (inverse of :func:`_spell`)."""
    if fam.symbolic:
        return text
    if fam.words:
        word = text.lower()
        return 1 if word == "a" else WORD_NUMBERS[word]
    return int(text)


def parse(prompt: str) -> list[tuple[str, dict[str, Slot], str]]:
    """Every (family name, slots, prompt type name) whose rendering is exactly ``prompt`` (none when nothing
    reproduces the text). Several families share wording (AIW original and its exaggerated-number instances);
    callers choose among the candidates."""
    found: list[tuple[str, dict[str, Slot], str]] = []
    for ptype in PROMPT_TYPES.values():
        if not (prompt.startswith(ptype.prefix) and prompt.endswith(ptype.suffix)):
            continue
        problem = prompt[len(ptype.prefix) : len(prompt) - len(ptype.suffix)]
        for fam in ALL_FAMILIES.values():
            m = _pattern(fam).fullmatch(problem)
            if m is None:
                continue
            slots = {k: _slot_value(fam, v) for k, v in m.groupdict().items()}
            try:
                # Re-rendering rejects wrong noun forms ("1 sisters") and out-of-range values.
                if render(fam, slots, ptype) == prompt:
                    found.append((fam.name, slots, ptype.name))
            except ValueError:
                continue
    return found


@dataclass(frozen=True)
class PublishedItem:
    """A published AIW record reproduced by this package.

    Attributes:
        id: the record id in the public ``prompts.json``.
        family: family name (see :data:`~wason.tasks.aiw.families.ALL_FAMILIES`).
        slots: slot values.
        prompt_type: prompt type name.
        variation: the variation name ("AIW variation 1" ... for the paper's named instances, else the
            variation label in the record's description, or ``None``).
    """

    id: int
    family: str
    slots: Mapping[str, Slot] = field(hash=False)
    prompt_type: str
    variation: str | None

    def render(self) -> str:
        """The prompt text."""
        return render(self.family, self.slots, self.prompt_type)

    def answer(self) -> str:
        """The expected answer text."""
        return expected_answer(self.family, self.slots, self.prompt_type)


@cache
def published_items() -> tuple[PublishedItem, ...]:
    """Every published record this package reproduces byte for byte, in id order."""
    raw = (resources.files("wason.tasks.aiw") / "data" / "published.json").read_text(encoding="utf-8")
    rows: list[dict[str, object]] = json.loads(raw)["items"]
    return tuple(
        PublishedItem(
            id=int(str(r["id"])),
            family=str(r["family"]),
            slots=dict(r["slots"]),  # type: ignore[call-overload]
            prompt_type=str(r["prompt_type"]),
            variation=None if r["variation"] is None else str(r["variation"]),
        )
        for r in rows
    )
