"""The published WILT splits, held as rule data that the sandbox compiles (never Python's eval)."""

from __future__ import annotations

import codecs
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from wason.sandbox import GuessRejected, Program, compile_rule

SPLITS = ("lite", "full")

# A rules file holds one short rule a line; a megabyte is thousands of rules. Reading stops one byte past this,
# so `--rules /dev/zero` or a stray video file fails at once.
MAX_RULES_FILE_BYTES = 1024 * 1024

_LINE_END = re.compile(r"\r\n|\r|\n")
_BYTE_LINE_END = re.compile(rb"\r\n|\r|\n")


@dataclass(frozen=True)
class WiltRule:
    """One hidden rule: where it comes from, its id there, its text in the guess language, and its tier."""

    split: str  # ``lite`` / ``full`` (published), ``generated``, ``file`` or ``single``
    id: int  # published id, index in a generated split, or line number in a rules file
    text: str  # a lambda (or expression) in the guess language; the sandbox evaluates it
    tier: str | None = None  # difficulty tier where known
    # provenance of generated rules (generator, version, seed, family)
    meta: Mapping[str, Any] = field(default_factory=dict, compare=False, hash=False)

    @property
    def key(self) -> str:
        return f"{self.split}/{self.id}"

    @property
    def sample_key(self) -> str:
        """Keeps episodes on different hidden rules from sharing cached replies, whatever their source."""
        return f"{self.key}|{self.text}"

    def program(self) -> Program:
        if self.split == "single":  # a one-variable rule, lifted into the three-argument language
            from wason.tasks.wilt.single import compile_single

            return compile_single(self.text)
        return _compiled(self.text)


@cache
def _compiled(text: str) -> Program:
    return compile_rule(text)


@cache
def _data() -> dict[str, list[dict[str, Any]]]:
    raw = (resources.files("wason.tasks.wilt") / "data" / "rules.json").read_text(encoding="utf-8")
    splits: dict[str, list[dict[str, Any]]] = json.loads(raw)["splits"]
    return splits


def load_split(split: str) -> list[WiltRule]:
    """All rules of a published split (``lite``: 10, ``full``: 50), in published order."""
    if split not in SPLITS:
        raise ValueError(f"unknown WILT split {split!r}; choose one of: {', '.join(SPLITS)}")
    return [
        WiltRule(split=split, id=int(r["id"]), text=str(r["rule"]), tier=r.get("tier"))
        for r in _data()[split]
    ]


def get_rule(split: str, rule_id: int) -> WiltRule:
    """One rule of a split by its published id."""
    for rule in load_split(split):
        if rule.id == rule_id:
            return rule
    raise ValueError(f"split {split!r} has no rule {rule_id} (ids are 1..{len(_data()[split])})")


def load_rules_file(path: str | Path) -> list[WiltRule]:
    """Rules written by a user, one per line in the guess language (``#`` starts a comment line), read as
    :func:`read_lines` reads, each checked by the sandbox; ValueError (one line naming the file and the line)
    for one the sandbox rejects or no rules at all."""
    source = Path(path)
    rules = []
    for number, text_of_rule in read_lines(source, "rules file", "one rule a line"):
        try:
            _compiled(text_of_rule)
        except GuessRejected as exc:
            raise ValueError(f"{source}:{number}: {exc.reason}") from None
        rules.append(WiltRule(split="file", id=number, text=text_of_rule, meta={"file": source.name}))
    if not rules:
        raise ValueError(f"rules file {source} has no rules")
    return rules


MAX_TESTS_IN_FILE = 1_000
"""Most tests a tests file holds (an episode makes at most :data:`wason.tasks.wilt.game.MAX_TESTS`)."""
_TEST_LINE = re.compile(r"\(?\s*([^,()]*),([^,()]*),([^,()]*?)\s*\)?\s*:\s*(\w+)\s*")


def load_tests_file(path: str | Path) -> list[tuple[tuple[float, float, float], bool]]:
    """An episode's tests and the results it showed, one a line: ``(1, 2, 3): True`` (``#`` starts a comment
    line), as the test-swap prompt lists them; ValueError (one line naming the file and the line) for a line
    that is not one, a value the game refuses, or more than :data:`MAX_TESTS_IN_FILE` tests."""
    from wason.tasks.wilt.values import InvalidValue, parse_value

    source = Path(path)
    tests: list[tuple[tuple[float, float, float], bool]] = []
    for number, line in read_lines(source, "tests file", "one test a line, e.g. (1, 2, 3): True"):
        found = _TEST_LINE.fullmatch(line)
        word = found.group(4).lower() if found else ""
        if not found or word not in ("true", "false"):
            raise ValueError(f"{source}:{number}: not a test and its result, e.g. (1, 2, 3): True")
        try:
            a, b, c = (parse_value(found.group(k)) for k in (1, 2, 3))
        except InvalidValue as exc:
            raise ValueError(f"{source}:{number}: not a test the game accepts: {exc}") from None
        tests.append(((a, b, c), word == "true"))
        if len(tests) > MAX_TESTS_IN_FILE:
            raise ValueError(f"{source}:{number}: more than {MAX_TESTS_IN_FILE:,} tests")
    return tests


def read_lines(source: Path, what: str, hint: str) -> list[tuple[int, str]]:
    """The non-blank, non-comment lines of a small UTF-8 text file (a byte-order mark is accepted), stripped,
    with their line numbers; ValueError, one line naming the file (and the line, where there is one), when it
    is unreadable, too large, or not UTF-8 text. No more than :data:`MAX_RULES_FILE_BYTES` is ever read, so a
    device or a huge file fails at once. ``what`` names the file in messages and ``hint`` says what it holds."""
    try:
        with source.open("rb") as handle:
            data = handle.read(MAX_RULES_FILE_BYTES + 1)
    except OSError as exc:
        raise ValueError(f"cannot read {what} {source}: {exc.strerror or exc}") from None
    if len(data) > MAX_RULES_FILE_BYTES:
        raise ValueError(f"{source}: larger than {MAX_RULES_FILE_BYTES // 2**20} MiB; a {what} holds {hint}")
    # Editors on Windows write a byte-order mark; it is not part of the first line.
    start = len(codecs.BOM_UTF8) if data.startswith(codecs.BOM_UTF8) else 0
    try:
        text = data[start:].decode("utf-8")
    except UnicodeDecodeError as exc:
        at = start + exc.start
        raise ValueError(
            f"{source}:{_line_of(data, at)}: not UTF-8 text (byte {at + 1}); a {what} is text, {hint}"
        ) from None
    if "\0" in text:
        at = data.index(b"\0")
        raise ValueError(f"{source}:{_line_of(data, at)}: not a text file (a NUL byte at byte {at + 1})")
    # Lines end at \n, \r\n or \r only (not at form feeds or Unicode separators, as str.splitlines would have
    # it), so the numbers in messages are the ones an editor shows.
    out = []
    for number, line in enumerate(_LINE_END.split(text), start=1):
        stripped = line.strip()
        if stripped and not stripped.startswith("#"):
            out.append((number, stripped))
    return out


def _line_of(data: bytes, offset: int) -> int:
    """The 1-based line number of the byte at ``offset``, with lines ending as :data:`_LINE_END` has them."""
    return len(_BYTE_LINE_END.findall(data, 0, offset)) + 1


def rule_from_item(item: Mapping[str, Any]) -> WiltRule:
    """Rebuild a rule from a stored episode item (its text travels with it, so any source resumes)."""
    meta = {k: v for k, v in item.items() if k not in {"split", "id", "rule", "tier"}}
    return WiltRule(
        split=str(item["split"]), id=int(item["id"]), text=str(item["rule"]), tier=item.get("tier"), meta=meta
    )


def rule_item(rule: WiltRule) -> tuple[str, dict[str, Any]]:
    """The ``(key, item)`` a run stores for an episode on ``rule``."""
    return rule.key, {"split": rule.split, "id": rule.id, "rule": rule.text, "tier": rule.tier, **rule.meta}
