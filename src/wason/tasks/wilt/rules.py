"""The published WILT splits, held as rule data that the sandbox compiles (never Python's eval)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from importlib import resources

from wason.sandbox import Program, compile_rule

SPLITS = ("lite", "full")


@dataclass(frozen=True)
class WiltRule:
    """One hidden rule: its split, published id, lambda text and difficulty tier (full split only)."""

    split: str
    id: int
    text: str
    tier: str | None = None

    @property
    def key(self) -> str:
        return f"{self.split}/{self.id}"

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


def _opt(value: object) -> str | None:
    return None if value is None else str(value)
