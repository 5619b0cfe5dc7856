"""What the Inspect tests play: a reply for every family's protocol (deterministic in the conversation), the
task arguments that keep each family's run small, and the Inspect side of a comparison, run in a process of its
own (``python -m tests.inspect.scripted LOG_DIR``) so that Inspect's models, memoised by name, never outlive the
fake server they were made for."""

from __future__ import annotations

import json
import sys
from typing import Any

LIMIT = 2
"""Items each family plays."""

TASK_ARGS: dict[str, dict[str, Any]] = {"aiw": {"trials": 2}}
"""Arguments that keep a family's run small (AIW plays 30 trials of an item by default)."""

FAKE_MODEL = "openai-api/fake/fake-model"
"""The fake server's model as Inspect names it (``FAKE_BASE_URL`` and ``FAKE_API_KEY`` say where it is)."""


def reply(messages: list[dict[str, Any]], body: dict[str, Any]) -> str:
    """WILT: tests (n, n+1, n+2) for four turns, then the guess x < y < z; any other game: a reply that reads as
    an answer of 3 where a protocol reads one, and as an unreadable reply elsewhere."""
    first = str(messages[0].get("content")) if messages else ""
    turn = sum(m.get("role") == "assistant" for m in messages)
    if "Final Guess" in first:
        if turn < 4:
            return f"Reasoning about ordering.\nTest Case: ```({turn}, {turn + 1}, {turn + 2})```"
        return "I am confident.\nFinal Guess: ```lambda x, y, z: x < y < z```"
    return f"I am not sure (turn {turn}).\nGUESS 3\n### Answer: 3"


def main(log_dir: str, families: list[str]) -> None:
    from inspect_ai import eval as inspect_eval

    from tests.families.toy import FAMILY
    from wason.core import registry

    registry.register(FAMILY)
    from wason.inspect._registry import family_tasks

    made = family_tasks()  # the plugin registered above is a task too
    tasks = [made[name](**TASK_ARGS.get(name, {})) for name in families]
    logs = inspect_eval(tasks, model=FAKE_MODEL, limit=LIMIT, log_dir=log_dir, display="none")
    print(json.dumps([{"task": log.eval.task, "status": log.status, "file": log.location} for log in logs]))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
