"""Rules written by a game-master model with the published prompts (``--split write-rules``).

A family may not call a model itself (models sit above tasks), so rule writing is a run of its own: the player
is the game master. Each episode sends the published rule-generator messages (system
``rule_generator_system_<level>.txt``; user ``rule_generator_user.txt`` with the published
``negative_history_L1.txt`` and ``history_L1.txt`` injected as published; the reference has no history files
for L2 and L3 in this pack, so they get ``Empty file\\n`` as its code did for a missing file). The reply's
function is translated into the word language by :mod:`translate` (text only, never run) and checked for balance;
the episode succeeds when the rule is accepted, and records the rule or the reason it was rejected. Unlike the
reference, the prompt files are never written to (the reference appended every reply to them, so prompts grew
without bound and concurrent games raced), and a rejected reply is not retried in a loop: each episode is one
attempt.

``wason show RUN --json`` lists the accepted rules; ``wason code-functions check REPORT.json -o rules.jsonl``
turns them into a rules file for ``--split file``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict

from wason.core.family import Item, RunReader
from wason.core.game import Malformed, Outcome
from wason.core.labels import results_title
from wason.core.records import RunReport, run_header
from wason.core.results import Cell, Column, Results, Table
from wason.tasks.code_functions.grammar import balance
from wason.tasks.code_functions.judge import JUDGE_STEPS, truth_of_source
from wason.tasks.code_functions.protocol import load_text
from wason.tasks.code_functions.translate import split_functions, translate_function

MAX_REPLY_CHARS = 20_000


@dataclass(frozen=True)
class WrittenRule:
    """The game master's reply: the code it wrote."""

    code: str


class WriterObservation(BaseModel):
    model_config = ConfigDict(frozen=True)

    kind: str
    accepted: bool | None = None
    reason: str | None = None


def strip_fences(reply: str) -> str:
    """The reply without lines that start with three backticks (as the reference stripped them)."""
    return "".join(line + "\n" for line in reply.splitlines() if not line.startswith("```"))


def check_code(code: str, seed: str) -> dict[str, Any]:
    """Translate the first function of ``code`` and check its balance; a JSON record of the verdict."""
    functions = split_functions(strip_fences(code)[:MAX_REPLY_CHARS])
    if not functions:
        return {"accepted": False, "reason": "no function definition (def ...) in the reply", "source": None}
    t = translate_function(functions[0], 1)
    record: dict[str, Any] = {"name": t.name, "code": t.code, "source": t.source}
    if t.source is None:
        return {**record, "accepted": False, "reason": t.reason}
    truth, within = truth_of_source(t.source)
    if not within:
        return {**record, "accepted": False, "reason": f"the predicate needs more than {JUDGE_STEPS} steps"}
    check = balance(truth, seed)
    record["balance"] = check.to_json()
    reason = check.reason()
    return {**record, "accepted": reason is None, "reason": reason}


class WriterGame:
    """One rule-writing attempt."""

    def __init__(self, level: str) -> None:
        self.level = level
        self.record: dict[str, Any] | None = None

    @property
    def done(self) -> bool:
        return self.record is not None

    def start(self) -> WriterObservation:
        return WriterObservation(kind="start")

    def step(self, action: WrittenRule | Malformed) -> WriterObservation:
        if self.done:
            raise RuntimeError("the game is over")
        if isinstance(action, WrittenRule):
            self.record = check_code(action.code, f"write-rules|{self.level}")
        else:
            self.record = {
                "accepted": False,
                "reason": getattr(action, "reason", "unreadable"),
                "source": None,
            }
        return WriterObservation(
            kind="ended", accepted=self.record["accepted"], reason=self.record.get("reason")
        )

    def outcome(self) -> Outcome:
        record = self.record or {"accepted": False, "reason": "no reply"}
        return Outcome(success=bool(record.get("accepted")), metrics={"level": self.level, **record})


def history_text(level: str, negative: bool) -> str:
    if level != "L1":
        return "Empty file\n"
    return load_text("negative_history_L1.txt" if negative else "history_L1.txt")


def generator_messages(level: str) -> tuple[str, str]:
    """The published rule-generator system and user messages for ``level``."""
    system = load_text(f"rule_generator_system_{level}.txt")
    user = (
        load_text("rule_generator_user.txt")
        .replace("{negative_history_file}", history_text(level, True))
        .replace("{history_file}", history_text(level, False))
    )
    return system, user


class WriterProtocol:
    """The game master's protocol: the published messages; the whole reply is the code."""

    name = "rule-generator-published"

    def __init__(self, level: str) -> None:
        self.level = level

    def system_prompt(self) -> str:
        return generator_messages(self.level)[0]

    def first_message(self, observation: Any) -> str:
        return generator_messages(self.level)[1]

    def parse(self, reply: str) -> WrittenRule | Malformed:
        if not reply.strip():
            return Malformed("empty reply")
        return WrittenRule(reply[:MAX_REPLY_CHARS])

    def feedback(self, observation: Any) -> str:
        if observation.kind == "start":
            return self.first_message(observation)
        return ""


def writer_items(level: str, n: int, seed: int) -> list[Item]:
    prompts = ("rule_generator_system", "rule_generator_user")
    return [
        (f"write-rules|{level}|{k}", {"level": level, "attempt": k, "seed": seed, "prompts": [*prompts]})
        for k in range(1, n + 1)
    ]


class WriterReport(RunReport):
    accepted: int
    rejected: int
    rules: list[dict[str, Any]]
    rejections: list[dict[str, Any]]


def writer_report(store: RunReader, run_id: int) -> WriterReport:
    run = store.get_run(run_id)
    eps = store.list_episodes(run_id)
    rules: list[dict[str, Any]] = []
    rejections: list[dict[str, Any]] = []
    for e in eps:
        m = e.metrics or {}
        row = {
            "index": e.index,
            **{k: m.get(k) for k in ("level", "name", "source", "code", "balance", "reason")},
        }
        (rules if m.get("accepted") else rejections).append(
            row if e.status == "completed" else {**row, "error": e.error}
        )
    counts = {"accepted": len(rules), "rejected": len(rejections)}
    return WriterReport.model_validate(
        {**run_header(run), **counts, "rules": rules, "rejections": rejections}
    )


def writer_results(store: RunReader, run_id: int) -> Results:
    """The rules a game master wrote: each accepted rule's code, each rejection's reason."""
    report = writer_report(store, run_id)
    rows: list[dict[str, Cell]] = [
        {
            "episode": row["index"],
            "index": row["index"],
            "accepted": "yes" if ok else "no",
            "what": str(row["source"] if ok else row.get("reason") or row.get("error")),
        }
        for ok, group in ((True, report.rules), (False, report.rejections))
        for row in group
    ]
    table = Table(
        name="rules",
        title=f"Rules written by {report.model}: {report.accepted} accepted, {report.rejected} rejected",
        columns=[
            Column(key="index", name="Episode", kind="count"),
            Column(key="accepted", name="Accepted"),
            Column(key="what", name="Predicate / reason"),
        ],
        rows=rows,
    )
    return Results(title=results_title(store.get_run(run_id)), tables=[table])
