"""`wason eval aiw` end to end: trials over real HTTP, statistics, robustness, histograms, resume, transcripts."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.openai_server import FakeOpenAIServer
from tests.reference import reference
from wason.cli import main
from wason.store import Store
from wason.tasks.aiw.family import FAMILY, AiwRunConfig


def alice_reply(messages: list[dict[str, Any]], body: dict[str, Any]) -> str:
    """Right on variations with 1 sister, off by one (answers M) elsewhere; the restated numbers come first."""
    prompt = messages[0]["content"]
    sisters = int(re.search(r"(\d+) sisters?", prompt).group(1))  # type: ignore[union-attr]
    answer = sisters + 1 if sisters == 1 else sisters
    return f"Alice has {sisters} sisters, so her brother has **{answer}**.\n### Answer: {answer}"


def test_aiw_trials_statistics_and_histograms(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = f"sqlite:///{tmp_path / 'aiw.db'}"
    with FakeOpenAIServer(alice_reply) as server:
        args = ["eval", "aiw", "--model", "vllm:fake", "--base-url", server.base_url, "--trials", "5"]
        assert main([*args, "--temperature", "0.7", "--db", db, "--json"]) == 0
        requests = server.requests
    data = json.loads(capsys.readouterr().out)
    cells = {c["variation"]: c for c in data["cells"]}
    assert len(cells) == 6 and requests == 30
    # only variation 4 of the paper has 1 sister: answered right; the others get M instead of M + 1
    assert cells["AIW variation 4"]["k"] == 5 and cells["AIW variation 1"]["k"] == 0
    near = cells["AIW variation 1"]["near_miss"]
    assert near["expected"] == 7 and near["at_m"] == 5 and near["share_m"] == 1.0
    summary = data["by_prompt_type"]["STANDARD"]
    assert summary["mean_rate"] == pytest.approx(1 / 6)
    assert 0 < summary["robustness"] < summary["mean_rate"]
    # every trial is its own request: five trials of one prompt are five sampled calls, not one cached
    store = Store(db)
    calls = store.list_calls(run_id=data["run"])
    assert len(calls) == 30 and not any(c["cached"] for c in calls)
    assert all(c["messages"][0]["role"] == "user" for c in calls)
    assert all(c["params"]["temperature"] == 0.7 for c in calls)

    assert main(["show", str(data["run"]), "--db", db, "--plots", str(tmp_path / "png")]) == 0
    out = capsys.readouterr().out
    pngs = sorted((tmp_path / "png").glob("*.png"))
    # the accuracy, the correct rate per variation, and an answer distribution per cell; each also as SVG
    assert len(pngs) == 2 + 6 and all(p.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" for p in pngs)
    assert {p.stem for p in pngs} >= {
        "accuracy",
        "correct-by-variation",
        "distribution-AIW_variation_1-STANDARD",
    }
    assert all(p.with_suffix(".svg").is_file() for p in pngs)
    assert "robustness R" in out and "AIW variation 1" in out
    assert main(["show", str(data["run"]), "--db", db, "--episode", "0"]) == 0
    assert "answer read: 6 (ok); right answer 7: wrong" in capsys.readouterr().out
    assert main(["runs", "--db", db, "--json"]) == 0
    accuracy = json.loads(capsys.readouterr().out)[0]["accuracy"]
    assert (accuracy["k"], accuracy["n"], accuracy["rate"]) == (5, 30, pytest.approx(5 / 30))


def test_generated_variations_and_config_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = AiwRunConfig(
        variations="generated", seed=4, n=3, families=["AIW"], trials=2, prompt_types=["THINKING"]
    )
    items = config.items()
    assert len(items) == 2 * 3 * 1 * 2  # two word orders x 3 variations x 1 prompt type x 2 trials
    assert items == AiwRunConfig(**config.model_dump()).items()  # same seed, same items
    for _key, item in items:
        assert item["prompt"].endswith('Provide then the final answer in following form: "### Answer: ".')
        assert str(item["expected"]) == str(int(item["slots"]["sisters"]) + 1)
    db = f"sqlite:///{tmp_path / 'x.db'}"
    for argv, message in [
        (["eval", "aiw", "--prompt-types", "LOUD", "--db", db], "unknown prompt type"),
        (["eval", "aiw", "--families", "nope", "--db", db], "unknown AIW family"),
        (["eval", "aiw", "--variations", "generated", "--db", db], "--seed S and --n K"),
        (["eval", "aiw", "--player", "solver", "--db", db], "invalid choice: 'solver' (choose from 'llm')"),
    ]:
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert message in err and len(err.strip().splitlines()) == 1


def test_the_published_one_off_prompt_types_are_selectable_and_only_base_forms_continue() -> None:
    types = [
        "SQL",
        "THINKING_V2_NO_PERIOD",
        "THINKING_V2_TWO_PERIODS",
        "REFLECTION_THINKING_V2_SPACED",
        "ICL",
    ]
    config = AiwRunConfig(prompt_types=types, trials=1)
    items = {
        item["prompt_type"]: item for _key, item in config.items() if item["variation"] == "AIW variation 1"
    }
    assert set(items) == set(types)
    assert items["SQL"]["prompt"].startswith(
        'Build SQLite queries for creation and population of the table that represents: "Alice has 3 brothers'
    )
    assert items["THINKING_V2_NO_PERIOD"]["prompt"].endswith('"### Answer: "')
    assert items["THINKING_V2_TWO_PERIODS"]["prompt"].endswith('"### Answer: "..')
    assert items["REFLECTION_THINKING_V2_SPACED"]["prompt"].endswith(
        '".  <|eot_id|><|start_header_id|>assistant<|end_header_id|>'
    )
    # only the base-model forms are read as continuations (first answer)
    assert [t for t, item in items.items() if item.get("continuation")] == ["ICL"]
    assert {item["expected"] for item in items.values()} == {"7"}


def test_self_verification_follow_ups_match_the_published_conversations() -> None:
    from wason.tasks.aiw import render
    from wason.tasks.aiw.followups import FOLLOWUPS, first_message

    records = {r["id"]: r for r in json.loads(reference("aiw", "prompts.json").read_text())}
    for record_id, kind, slots in [
        (110, "review", {"brothers": 3, "sisters": 6}),
        (111, "double-check", {"brothers": 4, "sisters": 1}),
        (112, "double-check", {"brothers": 3, "sisters": 6}),
    ]:
        published = records[record_id]["prompt"]
        opening = first_message(render("aiw.bs", slots, "STANDARD"), as_published=True)
        assert [opening, *FOLLOWUPS[kind]] == published


def stubborn_reply(messages: list[dict[str, Any]], body: dict[str, Any]) -> str:
    """Answers M first, then 'revises' to M + 1 only when asked to improve (the review follow-up)."""
    prompt = messages[0]["content"]
    sisters = int(re.search(r"(\d+) sisters?", prompt).group(1))  # type: ignore[union-attr]
    improving = "improve your answer" in messages[-1]["content"]
    return f"### Answer: {sisters + 1 if improving else sisters}"


def test_self_verification_runs_read_every_turn(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = f"sqlite:///{tmp_path / 'sv.db'}"
    with FakeOpenAIServer(stubborn_reply) as server:
        args = ["eval", "aiw", "--model", "vllm:fake", "--base-url", server.base_url, "--trials", "2"]
        assert main([*args, "--self-verify", "review", "--db", db, "--json"]) == 0
        assert server.requests == 6 * 2 * 3  # three turns per trial
    data = json.loads(capsys.readouterr().out)
    for cell in data["cells"]:
        assert cell["k"] == 2 and cell["initially_correct"] == 0 and cell["revised"] == 2
    store = Store(db)
    last_call = store.list_calls(run_id=data["run"])[-1]
    assert [m["role"] for m in last_call["messages"]] == ["user", "assistant", "user", "assistant", "user"]
    assert main(["show", str(data["run"]), "--db", db]) == 0
    assert "first answer right" in " ".join(capsys.readouterr().out.split())
    # every cell says so in its answers column (the terminal wraps the column; the data has it whole)
    tables = FAMILY.results(store, [data["run"]]).tables[:-1]
    assert all("first answer right 0/2, changed 2" in str(row["top"]) for t in tables for row in t.rows)


async def test_an_interrupted_aiw_run_resumes_without_repeating_trials(tmp_path: Path) -> None:
    from tests.conftest import FakeModel
    from wason.engine import create_run, execute_run, llm_player_factory
    from wason.models.base import ChatMessage
    from wason.models.client import ModelClient

    class Crash(BaseException):
        pass

    def reply(messages: list[ChatMessage]) -> str:
        return "### Answer: 7"

    store = Store(f"sqlite:///{tmp_path / 'r.db'}")
    config = AiwRunConfig(model="fake:scripted", trials=4)
    run_id = create_run(store, config)
    first = FakeModel(reply, fail=lambda n: Crash() if n == 10 else None)  # type: ignore[arg-type,return-value]
    with pytest.raises(Crash):
        await execute_run(
            store, run_id, llm_player_factory(ModelClient(first, store), config, run_id), concurrency=1
        )
    done_before = {e.index for e in store.list_episodes(run_id) if e.status == "completed"}
    assert len(done_before) >= 10  # an episode already past its call when the crash lands may still finish
    second = FakeModel(reply)
    await execute_run(
        store, run_id, llm_player_factory(ModelClient(second, store), config, run_id), concurrency=1
    )
    episodes = store.list_episodes(run_id)
    assert all(e.status == "completed" for e in episodes) and len(episodes) == 24
    assert second.calls == 24 - len(done_before)  # only the unfinished trials were asked again
    assert all(e.success is not None for e in episodes)
    # variation 1's right answer is 7: its four trials are right, every other variation's are wrong
    assert sum(bool(e.success) for e in episodes) == 4
