"""How often wason's AIW reader reads the same number as the reference did, on the replies the AIW repository
published (its ``collected_responses/``), from the reference's own stored reads (``parsed_answer``).

The replies are not kept in this repository (about 10 MB); run this against a checkout of ``LAION-AI/AIW``::

    .venv-dev/bin/python -m tests.tasks.aiw.published_replies /path/to/AIW

Every record with a numeric ``right_answer`` counts (8,820 at LAION-AI/AIW 4d5d079: the o1 set, Reflection-70B and
the base models; ``AIW_param.json`` stores ``"null"`` answers for its symbolic problems and is left out). A base
model's record (its prompt opens with ``### Problem:``) is read from its first answer, as wason reads
continuations. Both readers agree when they read the same whole number, or neither reads one. The numbers this
prints are the ones docs/aiw.md reports.
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from wason.tasks.aiw.answers import parse_answer


def published_records(checkout: Path) -> list[tuple[str, dict[str, Any]]]:
    """``(file, record)`` for every record with a reply, the reference's read and a numeric right answer."""
    out: list[tuple[str, dict[str, Any]]] = []
    for path in sorted((checkout / "collected_responses").rglob("*.json")):
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError):
            continue  # a Git LFS pointer, not the file
        if not isinstance(data, list):
            continue  # the multi-turn conversations, keyed by model
        for record in data:
            if not isinstance(record, dict) or not {"model_response", "parsed_answer"} <= set(record):
                continue
            try:
                float(str(record.get("right_answer")))
            except ValueError:
                continue
            out.append((str(path.relative_to(checkout)), record))
    return out


def agrees(record: dict[str, Any]) -> bool:
    """Whether wason reads the number the reference read (``parsed_answer``), or, like it, none."""
    reference = record["parsed_answer"]
    parsed = parse_answer(
        str(record["model_response"]), first_answer=str(record["prompt"]).startswith("### Problem:")
    )
    if parsed.status != "ok":
        return reference is None
    return isinstance(parsed.value, int) and str(reference) == str(parsed.value)


def main(argv: list[str]) -> int:
    """Print the agreement over the checkout given as the only argument."""
    if len(argv) != 1 or not (Path(argv[0]) / "collected_responses").is_dir():
        print(
            "usage: python -m tests.tasks.aiw.published_replies PATH-TO-LAION-AI/AIW-CHECKOUT",
            file=sys.stderr,
        )
        return 2
    same: Counter[str] = Counter()
    total: Counter[str] = Counter()
    for name, record in published_records(Path(argv[0])):
        group = Path(name).parts[1] if len(Path(name).parts) > 2 else Path(name).stem
        total[group] += 1
        same[group] += agrees(record)
    print(f"agree: {sum(same.values())} of {sum(total.values())} published replies")
    for group in sorted(total):
        print(f"  {group}: {same[group]} of {total[group]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
