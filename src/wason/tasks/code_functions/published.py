"""The published accepted functions (``history_L1.txt``) as a split of rules in the word language.

``history_L1.txt`` holds 171 function definitions (170 start a line; one is glued to the previous
``generated_fn = ...`` line, which is why counts of ``^def`` give 170). 167 translate into the word language;
the 4 that define a nested ``is_prime`` helper do not (the reasons are listed by
``wason code-functions published``). Each translated rule's balance on this game's word list is precomputed in
``data/published_rules.json`` (rebuilding it evaluates 167 predicates on 10,608 words, about a minute;
:func:`build_published_rules` does it and a slow test checks the file against it).
"""

from __future__ import annotations

import hashlib
import json
from functools import cache
from typing import Any

from wason.core.guess_rule import package_text
from wason.tasks.code_functions.grammar import Rule, balance
from wason.tasks.code_functions.judge import rule_truth
from wason.tasks.code_functions.translate import published_translations

PUBLISHED_FILE = "published_rules.json"


def _rule(index: int, name: str, source: str, code: str, extra: dict[str, Any] | None = None) -> Rule:
    return Rule(
        key=f"published:{index}",
        level="L1",
        text=f"the published function {name}",
        source=source,
        provenance={"split": "published", "index": index, "name": name, "code": code, **(extra or {})},
    )


def build_published_rules() -> dict[str, Any]:
    """Translate every published function and check each translation's balance (slow: about a minute)."""
    rules = []
    untranslated = []
    for t in published_translations():
        if t.source is None:
            untranslated.append({"index": t.index, "name": t.name, "reason": t.reason})
            continue
        truth = rule_truth(_rule(t.index, t.name, t.source, t.code))
        check = balance(truth, f"published|{t.index}")
        digest = hashlib.sha256(truth.tobytes()).hexdigest()[:16]
        entry = {"index": t.index, "name": t.name, "source": t.source, "code": t.code}
        rules.append({**entry, "balance": check.to_json(), "extension": digest})
    return {"functions": len(rules) + len(untranslated), "rules": rules, "untranslated": untranslated}


@cache
def published_data() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(package_text("wason.tasks.code_functions", PUBLISHED_FILE))
    return data


def published_rules(*, balanced_only: bool = False) -> list[Rule]:
    """The translated published functions as rules (L1), optionally only those balanced on this word list."""
    out = []
    for r in published_data()["rules"]:
        bal = r["balance"]
        if balanced_only and not (bal["published_ok"] and bal["vocabulary_ok"]):
            continue
        out.append(_rule(r["index"], r["name"], r["source"], r["code"], {"balance": bal}))
    return out
