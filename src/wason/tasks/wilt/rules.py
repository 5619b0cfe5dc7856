"""The published WILT splits, held as rule data that the sandbox compiles (never Python's eval)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from wason.sandbox import GuessRejected, Program, compile_rule

SPLITS = ("lite", "full")


@dataclass(frozen=True)
class WiltRule:
    """One hidden rule: where it comes from, its id there, its text in the guess language, and its tier.

    Attributes:
        split: ``lite`` / ``full`` (published), ``generated``, or ``file``.
        id: published id, index in a generated split, or line number in a rules file.
        text: the rule as a lambda (or expression) in the guess language; the sandbox evaluates it.
        tier: difficulty tier where known.
        meta: provenance of generated rules (generator, version, seed, family).
    """

    split: str
    id: int
    text: str
    tier: str | None = None
    meta: Mapping[str, Any] = field(default_factory=dict, compare=False, hash=False)

    @property
    def key(self) -> str:
        return f"{self.split}/{self.id}"

    @property
    def sample_key(self) -> str:
        """Keeps episodes on different hidden rules from sharing cached replies, whatever their source."""
        return f"{self.key}|{self.text}"

    def program(self) -> Program:
        return _compiled(self.text)


@cache
def _compiled(text: str) -> Program:
    return compile_rule(text)


@cache
def _data() -> dict[str, list[dict[str, object]]]:
    raw = (resources.files("wason.tasks.wilt") / "data" / "rules.json").read_text(encoding="utf-8")
    splits: dict[str, list[dict[str, object]]] = json.loads(raw)["splits"]
    return splits


def load_split(split: str) -> list[WiltRule]:
    """All rules of a published split (``lite``: 10, ``full``: 50), in published order."""
    if split not in SPLITS:
        raise ValueError(f"unknown WILT split {split!r}; choose one of: {', '.join(SPLITS)}")
    return [
        WiltRule(split=split, id=int(str(r["id"])), text=str(r["rule"]), tier=_opt(r.get("tier")))
        for r in _data()[split]
    ]


def get_rule(split: str, rule_id: int) -> WiltRule:
    """One rule of a split by its published id."""
    for rule in load_split(split):
        if rule.id == rule_id:
            return rule
    n = len(_data()[split])
    raise ValueError(f"split {split!r} has no rule {rule_id} (ids are 1..{n})")


def load_rules_file(path: str | Path) -> list[WiltRule]:
    """Rules written by a user, one per line in the guess language (``#`` starts a comment line).

    Every rule is checked by the sandbox; a bad line raises ``ValueError`` naming the file and line.
    """
    source = Path(path)
    try:
        lines = source.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise ValueError(f"cannot read rules file {source}: {exc.strerror}") from None
    rules = []
    for number, line in enumerate(lines, start=1):
        text = line.strip()
        if not text or text.startswith("#"):
            continue
        try:
            _compiled(text)
        except GuessRejected as exc:
            raise ValueError(f"{source}:{number}: {exc.reason}") from None
        rules.append(WiltRule(split="file", id=number, text=text, meta={"file": source.name}))
    if not rules:
        raise ValueError(f"rules file {source} has no rules")
    return rules


def rule_from_item(item: Mapping[str, Any]) -> WiltRule:
    """Rebuild a rule from a stored episode item (its text travels with it, so any source resumes)."""
    meta = {k: v for k, v in item.items() if k not in {"split", "id", "rule", "tier"}}
    return WiltRule(
        split=str(item["split"]), id=int(item["id"]), text=str(item["rule"]), tier=item.get("tier"), meta=meta
    )


def rule_item(rule: WiltRule) -> tuple[str, dict[str, Any]]:
    """The ``(key, item)`` a run stores for an episode on ``rule``."""
    return rule.key, {"split": rule.split, "id": rule.id, "rule": rule.text, "tier": rule.tier, **rule.meta}


def _opt(value: object) -> str | None:
    return None if value is None else str(value)
