"""`wason eval lists` end to end over real HTTP: rounds, the three judges, the LLM labeller, the solver
baseline, reports and transcripts."""

from __future__ import annotations

import ast
import itertools
import json
import re
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.openai_server import FakeOpenAIServer
from wason.cli import main
from wason.store import Store

JUDGE_OPENING = "Hello! You are a careful mathematical analyst. Your job today"
LABELLER_OPENING = "Hello! You are a careful mathematical analyst. You will be presented"
INCREASING = "lambda xs: all(a < b for a, b in zip(xs, xs[1:]))"


def _increasing(xs: list[int]) -> bool:
    return all(a < b for a, b in itertools.pairwise(xs))


def scientist(messages: list[dict[str, Any]], body: dict[str, Any]) -> str:
    """A scripted model that always believes 'strictly increasing': one round of tests, then its answers."""
    first, last = messages[0]["content"].lstrip(), messages[-1]["content"]
    if first.startswith(JUDGE_OPENING):  # a lenient judge: any hypothesis about increasing items will do
        hypothesis = first.rsplit("2. ", 1)[-1]
        verdict = "true" if "increasing" in hypothesis else "false"
        return f'{{\n  "explanation": "close enough",\n  "judgment": {verdict},\n}}'
    if first.startswith(LABELLER_OPENING):  # a careless labeller: everything fits
        return "Looks fine.\n<response>\n" + "\n".join(f"{i}. Yes" for i in range(1, 6)) + "\n</response>"
    if last.startswith("Thank you. Please also state"):
        return f'<response>\n{{"predicate": "{INCREASING}"}}'
    if last.startswith("Finally, here are"):
        lists = [ast.literal_eval(m) for m in re.findall(r"^\d+\. (\[.*\])$", last, re.MULTILINE)]
        return "<response>\n" + "\n".join(
            f"{i}. {'Yes' if _increasing(xs) else 'No'}" for i, xs in enumerate(lists, 1)
        )
    if not any(m["role"] == "assistant" for m in messages):
        tests = [[1, 2, 3], [3, 2, 1], [5, 5, 6], [-4, 0, 9], [2, 1.5]]
        return "Let me test.\n<response>\n" + json.dumps(
            {"leading_hypothesis": "increasing", "possible_hypotheses": ["a"], "test_cases": tests}
        )
    return '<response>\n{"final_hypothesis": "The items are strictly increasing."}'


def _eval(server: FakeOpenAIServer, db: str, *extra: str) -> list[str]:
    return ["eval", "lists", "--model", "vllm:fake", "--base-url", server.base_url, "--db", db, *extra]


def test_a_model_run_with_all_three_judges_and_its_solver_baseline(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = f"sqlite:///{tmp_path / 'lists.db'}"
    with FakeOpenAIServer(scientist) as server:
        assert main([*_eval(server, db, "--ids", "1,2", "--trials", "2", "--json")]) == 0
    data = json.loads(capsys.readouterr().out)
    rules = {r["rule"]: r for r in data["rules"]}
    # rule 1 is strictly increasing: every judge agrees
    assert rules["pilot/1"]["judges"]["predicate"]["k"] == 2 and rules["pilot/1"]["judges"]["llm"]["k"] == 2
    assert rules["pilot/1"]["judges"]["quiz"]["k"] == 2 and rules["pilot/1"]["quiz_accuracy"] == 1.0
    # rule 2 is "no repeated numbers": the lenient LLM judge accepts "strictly increasing"; code does not
    assert rules["pilot/2"]["judges"]["llm"]["k"] == 2
    assert rules["pilot/2"]["judges"]["predicate"]["k"] == 0 and rules["pilot/2"]["judges"]["quiz"]["k"] == 0
    assert rules["pilot/2"]["quiz_accuracy"] < 1.0
    summary = data["summary"]
    assert summary["primary_judge"] == "predicate" and summary["success"]["k"] == 2
    assert (
        summary["success"]["n"] == 4
        and summary["success"]["interval"][0] < 0.5 < summary["success"]["interval"][1]
        and summary["success"]["rate"] == 0.5
    )
    assert summary["rounds"] == 1 and summary["lists_tested"] == 5 and summary["rounds_to_solution"] == 1
    assert summary["non_integer_lists"] == 4  # [2, 1.5] in each episode, labelled No
    # the solver's row is beside the model's, on the same rules and examples
    (baseline,) = data["baselines"]
    assert baseline["player"] == "solver" and baseline["config"]["baseline_for"] == data["run"]
    assert baseline["summary"]["episodes"] == 4 and "llm" not in baseline["config"]["judges"]

    store = Store(db)
    calls = store.list_calls(run_id=data["run"])
    judge_calls = [c for c in calls if c["messages"][0]["content"].lstrip().startswith(JUDGE_OPENING)]
    assert len(judge_calls) == 12 and not any(c["cached"] for c in calls)  # 3 independent votes per episode
    player_calls = [c for c in calls if c not in judge_calls]
    assert all(c["messages"][0]["role"] == "user" for c in player_calls)
    assert len(player_calls) == 4 * 4  # tests, final, predicate, quiz
    episode = store.list_episodes(data["run"])[0]
    assert episode.metrics is not None and episode.metrics["history"][0]["labels"] == [
        True,
        False,
        False,
        True,
        False,
    ]

    assert main(["show", str(data["run"]), "--db", db]) == 0
    out = capsys.readouterr().out
    assert "pilot/1" in out and "Pred. *" in out and "solver (reference)" in out
    assert "Pred. *: the stated Python predicate is the rule" in " ".join(out.split())
    assert main(["show", str(data["run"]), "--db", db, "--episode", "0"]) == 0
    out = capsys.readouterr().out
    flat = " ".join(out.split())  # piped output is 100 columns wide: a long line wraps
    assert "[final hypothesis] The items are strictly increasing." in flat and "quiz accuracy: 1.00" in flat
    assert "1. Yes\n2. No" in out


def test_the_llm_labeller_reproduces_the_pilot_and_keeps_every_disagreement(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = f"sqlite:///{tmp_path / 'label.db'}"
    with FakeOpenAIServer(scientist) as server:
        args = _eval(server, db, "--ids", "1", "--labeller", "llm", "--judges", "predicate", "--no-baseline")
        assert main([*args, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["summary"]["llm_labels"] == 5 and data["summary"]["label_disagreements"] == 3
    metrics = Store(db).list_episodes(data["run"])[0].metrics or {}
    # the player saw the careless labeller's Yes for every list; the code's labels are kept beside them
    assert metrics["history"][0]["labels"] == [True] * 5
    assert metrics["history"][0]["code_labels"] == [True, False, False, True, False]
    assert {tuple(d["list"]) for d in metrics["label_disagreements"]} == {(3, 2, 1), (5, 5, 6), (2, 1.5)}


def test_every_call_samples_at_the_pilots_temperature_unless_the_user_sets_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # the pilot's api.py sends temperature=0 on every call: the player's, the labeller's and the judge's
    bodies: list[dict[str, Any]] = []

    def recorded(messages: list[dict[str, Any]], body: dict[str, Any]) -> str:
        bodies.append(body)
        return scientist(messages, body)

    db = f"sqlite:///{tmp_path / 'temperature.db'}"
    common = ("--ids", "1", "--labeller", "llm", "--judges", "predicate,llm", "--no-baseline")
    with FakeOpenAIServer(recorded) as server:
        assert main(_eval(server, db, *common)) == 0
        header = " ".join(capsys.readouterr().out.split("; store")[0].split())  # the line, unwrapped
        assert "temperature=0.0" in header and "temperature 0, as the pilot" in header
        # 3 player calls (tests, final hypothesis, predicate), 1 labelling, 3 judge votes
        assert {b.get("temperature") for b in bodies} == {0} and len(bodies) == 7
        labeller = [b for b in bodies if b["messages"][0]["content"].lstrip().startswith(LABELLER_OPENING)]
        # {test_cases} as the pilot's tester.py filled it: the parsed list's text
        assert (
            "analyze:\n[[1, 2, 3], [3, 2, 1], [5, 5, 6], [-4, 0, 9], [2, 1.5]]\n"
            in (labeller[0]["messages"][0]["content"])
        )
        bodies.clear()
        assert main(_eval(server, db, *common, "--temperature", "0.7")) == 0
        header = " ".join(capsys.readouterr().out.split("; store")[0].split())  # the line, unwrapped
        assert "temperature=0.7" in header and "temperature 0.7 (the pilot's: 0)" in header
        assert {b.get("temperature") for b in bodies} == {0.7}


def test_a_run_stored_without_a_temperature_resumes_without_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # a run stored before the pilot's default (params without a temperature) keeps the model's default
    from wason.engine.runs import create_run
    from wason.tasks.lists.family import ListsRunConfig

    bodies: list[dict[str, Any]] = []

    def recorded(messages: list[dict[str, Any]], body: dict[str, Any]) -> str:
        bodies.append(body)
        return scientist(messages, body)

    db = f"sqlite:///{tmp_path / 'old.db'}"
    with FakeOpenAIServer(recorded) as server:
        config = ListsRunConfig(model="vllm:fake", base_url=server.base_url, ids=[1], judges=["predicate"])
        run = create_run(Store(db), config, config.items())
        assert main(["eval", "--resume", str(run), "--db", db, "--no-baseline"]) == 0
    assert "the model's default temperature (the pilot's: 0)" in " ".join(capsys.readouterr().out.split())
    assert bodies and all("temperature" not in b for b in bodies)


def test_a_run_that_calls_no_model_gets_no_temperature(tmp_path: Path) -> None:
    from wason.tasks.lists.family import FAMILY, ListsRunConfig

    store = Store(f"sqlite:///{tmp_path / 'solver.db'}")
    assert FAMILY.prepare(ListsRunConfig(player="solver"), store).params.temperature is None
    judged = ListsRunConfig(player="solver", judge_model="vllm:judge", judge_base_url="http://127.0.0.1:9/v1")
    assert FAMILY.prepare(judged, store).params.temperature == 0.0


def test_user_errors_are_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = str(tmp_path / "e.db")
    assert main(["eval", "lists", "--split", "all", "--examples", "published", "--db", db]) == 2
    assert "no published examples" in capsys.readouterr().err
    assert main(["eval", "lists", "--judges", "vibes", "--db", db, "--player", "solver"]) == 2
    assert "unknown judge" in capsys.readouterr().err
    assert main(["eval", "lists", "--split", "generated", "--db", db]) == 2
    assert "--seed S and --n N" in capsys.readouterr().err


def test_a_failed_judge_errors_the_episode_and_resume_finishes_it_without_repeating_calls(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = f"sqlite:///{tmp_path / 'resume.db'}"
    state = {"judge_up": False, "player_requests": 0}

    def flaky(messages: list[dict[str, Any]], body: dict[str, Any]) -> str:
        if messages[0]["content"].lstrip().startswith(JUDGE_OPENING):
            if not state["judge_up"]:
                raise ConnectionError("the judge is down")  # the fake drops the connection
        else:
            state["player_requests"] += 1
        return scientist(messages, body)

    with FakeOpenAIServer(flaky) as server:
        args = _eval(server, db, "--ids", "1", "--no-baseline", "--retries", "0", "--timeout", "5", "--json")
        assert main(args) == 1  # its one episode errored: a run with no episode completed fails (issue 10)
        first = json.loads(capsys.readouterr().out)
        assert first["summary"]["errored"] == 1 and first["summary"]["success"]["k"] == 0
        played = state["player_requests"]
        assert played == 2  # the tests and the final hypothesis; the judge failed before the follow-ups
        state["judge_up"] = True
        assert main(["eval", "--resume", str(first["run"]), "--db", db, "--json", "--no-baseline"]) == 0
    resumed = json.loads(capsys.readouterr().out)
    assert resumed["summary"]["errored"] == 0 and resumed["summary"]["success"]["k"] == 1
    assert resumed["summary"]["judges"]["llm"]["k"] == 1
    # the replayed episode's first two player calls came from the cache: only the follow-ups were new requests
    assert state["player_requests"] == played + 2
    cached = [c for c in Store(db).list_calls(run_id=first["run"]) if c["cached"]]
    assert len(cached) == 2


def test_the_solver_finds_generated_rules_and_records_where_they_came_from(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = f"sqlite:///{tmp_path / 'gen.db'}"
    args = ["eval", "lists", "--split", "generated", "--seed", "3", "--n", "4", "--trials", "2"]
    assert main([*args, "--player", "solver", "--db", db, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["summary"]["episodes"] == 8 and data["summary"]["primary_judge"] == "predicate"
    assert data["summary"]["judges"]["predicate"]["k"] == 8 and data["summary"]["quiz_accuracy"] == 1.0
    episodes = Store(db).list_episodes(data["run"])
    item = episodes[0].item
    assert item["rule"]["provenance"]["generator"] == "wason.lists.generated"
    assert item["rule"]["source"].startswith("lambda xs:")
    assert item["examples_provenance"]["generator"] == "wason.lists.examples"
    # trials of a rule have their own seeds, so their examples differ
    assert episodes[0].item["seed"] == 3 and episodes[1].item["seed"] == 4
    assert episodes[0].item["examples"] != episodes[1].item["examples"]


def test_a_wrong_published_example_is_replaced_not_shown() -> None:
    from wason.tasks.lists.family import ListsRunConfig
    from wason.tasks.lists.rules import get_rule

    items = dict(ListsRunConfig(split="phase1", ids=[5], player="solver", judges=["predicate"]).items())
    (item,) = items.values()
    rule = get_rule("phase1", 5)  # alternating increase decrease, published with [9, 14, 19]
    assert item["examples_replaced"] == [[9, 14, 19]]
    assert [9, 14, 19] not in item["examples"] and len(item["examples"]) == 3
    assert all(rule.accepts(e) for e in item["examples"])
    kept = [list(e) for e in rule.examples if rule.accepts(e)]
    assert all(e in item["examples"] for e in kept)
