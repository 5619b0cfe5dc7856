"""A lab run played by a model over HTTP (a fake OpenAI-compatible server scripted as a scientist that knows the
laws), judged by code, with the report judge and the solver's row beside it."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.openai_server import FakeOpenAIServer
from wason.cli import main
from wason.tasks.lab.drawing import generate
from wason.tasks.lab.game import LabConfig, LabGame
from wason.tasks.lab.judge import JUDGE_SYSTEM
from wason.tasks.lab.laws import Thing, apply, format_value
from wason.tasks.lab.protocol import LabProtocol
from wason.tasks.lab.world import PRESETS, Domain

SEED, N = 3, 3
DOMAINS = [generate(PRESETS["easy"], f"{SEED}|{k}") for k in range(1, N + 1)]
CALLS: list[list[dict[str, Any]]] = []
_TRIAL = re.compile(r"^(\d+)\. (\w+)\(([^)]*)\) where (.*)$")
_OBJECT = re.compile(r"([\w-]+) \((\w+)\): (.*)")


def _domain_of(messages: list[dict[str, Any]]) -> Domain:
    first = messages[1]["content"]
    return next(d for d in DOMAINS if all(f"{name} (" in first for name, _, _ in d.objects))


def _value(text: str) -> bool | float:
    return text == "true" if text in ("true", "false") else float(text)


def scientist(messages: list[dict[str, Any]], body: dict[str, Any]) -> str:
    """Tries every operation on the first object, says it is done, then predicts with the true laws."""
    if messages[0]["content"] == JUDGE_SYSTEM:
        return "Yes. The report states every law."
    if len(messages) == 2:
        CALLS.append(messages)
    domain = _domain_of(messages)
    last = messages[-1]["content"]
    if "The test:" not in last:
        if len(messages) == 2:
            first = domain.objects[0][0]
            steps = [[o.name, first] for o in domain.operations]
            return f"Let me try each operation once.\n```json\n{json.dumps({'experiments': steps})}\n```"
        return 'I have seen enough. {"done": true}'
    predictions = []
    for line in last.splitlines():
        found = _TRIAL.match(line)
        if not found:
            continue
        things = []
        for part in found.group(4).split("; "):
            name, type_name, values = _OBJECT.match(part).groups()  # type: ignore[union-attr]
            pairs = (kv.split("=") for kv in values.split(", "))
            things.append(Thing(name, type_name, {k: _value(v) for k, v in pairs}))
        changes: dict[str, dict[str, Any]] = {}
        for name, prop, _, new in apply(domain.laws, found.group(2), things):
            changes.setdefault(name, {})[prop] = json.loads(format_value(new))
        predictions.append(changes)
    answer = {"predictions": predictions, "theory": "\n".join(domain.law_text()), "report": "as stated"}
    return "My answer:\n" + json.dumps(answer)


def test_a_model_run_with_its_judge_and_the_solver_beside_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = f"sqlite:///{tmp_path / 'runs.db'}"
    with FakeOpenAIServer(scientist) as server:
        args = ["eval", "lab", "--model", "vllm:fake", "--base-url", server.base_url, "--db", db]
        assert main([*args, "--n", str(N), "--seed", str(SEED), "--report-judge", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    summary = data["summary"]
    assert data["task"] == "lab" and summary["episodes"] == N and summary["completed"] == N
    assert summary["success"]["k"] == N and summary["prediction_accuracy"]["mean"] == 1.0
    assert summary["theory_equivalent"]["k"] == N and summary["format_errors"] == 0
    assert summary["experiments"] == 2.0 and summary["finished_early"] == N
    assert summary["report_judge"]["k"] == N == summary["report_judge"]["n"]
    # the protocol's texts went out as written
    config = LabConfig(budget=20, max_turns=30)
    protocol = LabProtocol(config)
    assert len(CALLS) == N
    for messages in CALLS:
        domain = _domain_of(messages)
        assert messages[0] == {"role": "system", "content": protocol.system_prompt()}
        assert messages[1]["content"] == protocol.first_message(LabGame(domain, config).start())
    # the solver's row is beside it, on the same domains
    (solver,) = data["baselines"]
    assert solver["player"] == "solver" and solver["summary"]["theory_equivalent"]["k"] == N
    assert main(["show", str(data["run"]), "--db", db]) == 0
    text = capsys.readouterr().out
    assert "solver (reference)" in text and "vllm:fake" in text
