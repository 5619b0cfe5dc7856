"""The `wason` command as a user runs it: results, transcripts, judge, and one-line errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import FakeModel
from wason.cli import main
from wason.engine import create_run, execute_run, llm_player_factory
from wason.models.client import ModelClient
from wason.store import Store
from wason.tasks.wilt import WiltRunConfig


def _kn(rate: dict[str, object]) -> tuple[object, object]:
    """A rate of the JSON (numbers, with its interval) as (k, n)."""
    low, high = rate["interval"]  # type: ignore[misc]
    assert 0 <= low <= high <= 1
    return rate["k"], rate["n"]


def exit_code(argv: list[str]) -> int | str | None:
    try:
        return main(argv)
    except SystemExit as exc:  # argparse exits for bad flags
        return exc.code


@pytest.fixture
def db(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'cli.db'}"


async def _scripted_run(db: str) -> int:
    store = Store(db)
    cfg = WiltRunConfig(model="fake:scripted", split="lite")
    rid = create_run(store, cfg)
    client = ModelClient(model=FakeModel(), store=store)
    await execute_run(store, rid, llm_player_factory(client, cfg, rid), concurrency=2)
    return rid


async def test_runs_and_show(db: str, capsys: pytest.CaptureFixture[str]) -> None:
    rid = await _scripted_run(db)
    assert main(["runs", "--db", db, "--json"]) == 0
    runs = json.loads(capsys.readouterr().out)
    assert [(r["id"], r["accuracy"]["k"], r["accuracy"]["n"], r["status"]) for r in runs] == [
        (rid, 1, 10, "completed")
    ]

    assert main(["show", str(rid), "--db", db, "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    table = shown["table"]
    assert _kn(table["accuracy"]) == (1, 10) and table["avg_guesses"] == 4.0 and table["repeats"] == 0
    assert table["errored"] == 0 and table["input_tokens"] > 0 and table["output_tokens"] > 0
    assert [e["correct"] for e in shown["episodes"]].count(True) == 1

    assert main(["show", str(rid), "--db", db]) == 0
    out = capsys.readouterr().out
    for column in (
        "Accuracy",
        "Approx. Correct",
        "Avg. Guesses",
        "Repeats",
        "Invalid tests",
        "Format errors",
    ):
        assert column in out

    assert main(["show", str(rid), "--db", db, "--episode", "1", "--json"]) == 0
    episode = json.loads(capsys.readouterr().out)
    assert episode["rule_text"] == "lambda x, y, z: x < y < z" and len(episode["turns"]) == 5
    assert episode["turns"][0]["feedback"] == "Result for input (0.0, 1.0, 2.0): True. Attempts Remaining: 29"
    assert main(["show", str(rid), "--db", db, "--episode", "1"]) == 0
    assert "Congratulations! Your guess is correct." in capsys.readouterr().out


def test_judge_command(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["wilt", "judge", "lambda x, y, z: x < y < z", "x < y < z and z < 500", "--json"]) == 0
    verdict = json.loads(capsys.readouterr().out)
    assert verdict["equivalent"] is False and verdict["n_disagree"] > 0
    assert main(["wilt", "judge", "lambda x, y, z: x < y < z", "lambda a, b, c: b > a and c > b"]) == 0
    assert "verdict: CORRECT" in capsys.readouterr().out
    assert main(["wilt", "judge", "x < y", "self.rule", "--json"]) == 0
    rejected = json.loads(capsys.readouterr().out)
    assert rejected["accepted"] is False and rejected["equivalent"] is False


@pytest.mark.parametrize(
    "argv, message",
    [
        (["eval", "wilt", "--bogus"], "--bogus: not a flag of this command"),
        (["eval", "wilt", "--model", "nosuch:thing"], "nosuch"),
        (["eval", "wilt", "--split", "huge"], "huge"),
        (["eval", "wilt", "--ids", "1,99"], "no rule 99"),
        (["eval", "wilt", "--rules", "/nonexistent/rules.txt"], "cannot read rules file"),
        (
            ["eval", "wilt", "--temperature", "7", "--model", "openai:gpt-4o-mini", "--api-key", "k"],
            "temperature",
        ),
        (["show", "12345"], "no run 12345"),
        (["wilt", "judge", "__import__('os')", "x < y"], "not allowed"),
    ],
)
def test_user_mistakes_give_one_clear_line(
    argv: list[str],
    message: str,
    db: str,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("WASON_DB", db.removeprefix("sqlite:///"))
    assert exit_code(argv) == 2
    err = capsys.readouterr().err.strip()
    assert message in err and len(err.splitlines()) == 1 and "Traceback" not in err


@pytest.mark.parametrize(
    ("flags", "fields", "message"),
    [
        # grew until a MemoryError traceback
        (
            ["--trials", "10000000000000"],
            {"trials": 10**13},
            "trials: Input should be less than or equal to 50000",
        ),
        # accepted, and the solver ran on
        (
            ["--max-tests", str(10**23)],
            {"max_tests": 10**23},
            "max_tests: Input should be less than or equal to 1000",
        ),
        # accepted, and every episode errored
        (["--timeout", "nan"], {"timeout": float("nan")}, "timeout: Input should be a finite number"),
        (["--timeout", "inf"], {"timeout": float("inf")}, "timeout: Input should be a finite number"),
        (
            ["--retry-delay", "nan"],
            {"retry_delay": float("nan")},
            "retry_delay: Input should be a finite number",
        ),
    ],
)
def test_sizes_beyond_their_bounds_are_one_line(
    flags: list[str], fields: dict[str, object], message: str, db: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # the configuration refuses it first, so code without the bound fails here rather than fill the memory
    with pytest.raises(ValueError):
        WiltRunConfig(player="solver", ids=[1], **fields)  # type: ignore[arg-type]
    argv = ["eval", "wilt", "--ids", "1", *flags, "--player", "solver", "--db", db]
    assert exit_code(argv) == 2
    err = capsys.readouterr().err.strip()
    assert message in err and len(err.splitlines()) == 1 and "Traceback" not in err, err


def test_missing_key_names_the_variable(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, db: str
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    assert main(["eval", "wilt", "--model", "openai:gpt-4o-mini", "--db", db]) == 2
    err = capsys.readouterr().err
    assert "OPENAI_API_KEY" in err and len(err.strip().splitlines()) == 1
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    assert main(["eval", "wilt", "--model", "anthropic:claude-sonnet-4-5", "--db", db]) == 2
    assert "ANTHROPIC_API_KEY" in capsys.readouterr().err


def test_unreachable_endpoint_is_one_line(capsys: pytest.CaptureFixture[str], db: str) -> None:
    # port 9 (discard) on loopback: nothing listens there
    code = main(
        ["eval", "wilt", "--model", "vllm:some-model", "--base-url", "http://127.0.0.1:9/v1", "--db", db]
    )
    assert code == 2
    err = capsys.readouterr().err.strip()
    assert "127.0.0.1:9" in err and len(err.splitlines()) == 1


def test_solver_player_and_reduction_curve(db: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["eval", "wilt", "--player", "solver", "--split", "lite", "--db", db, "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["player"] == "solver" and shown["model"] is None
    assert _kn(shown["table"]["accuracy"]) == (10, 10)
    curve = shown["table"]["reduction"]
    values = [curve[k] for k in ("1", "5", "10", "20", "30")]
    assert values == sorted(values) and 0 < values[0] < values[-1] <= 1
    # once it is sure, the solver spends its tests trying to break its guess: most of those rule out nothing
    # new in the listed space (which is what a hypothesis that survives them looks like)
    assert 0.5 < shown["table"]["uninformative_share"] < 1
    assert main(["show", str(shown["run"]), "--db", db]) == 0
    out = capsys.readouterr().out
    assert (
        "Hypothesis-space reduction" in out
        and "Nothing new: share of the tests that ruled out nothing new" in " ".join(out.split())
    )
    args = ["eval", "wilt", "--player", "solver", "--split", "lite", "--db", db, "--json"]
    assert main([*args, "--solver-stop", "confident"]) == 0
    confident = json.loads(capsys.readouterr().out)
    assert _kn(confident["table"]["accuracy"]) == (10, 10)
    assert 0 <= confident["table"]["uninformative_share"] < 0.5


def test_model_runs_get_a_solver_baseline_row(db: str, capsys: pytest.CaptureFixture[str]) -> None:
    import asyncio

    from wason.engine import baselines_of, run_baseline

    rid = asyncio.run(_scripted_run(db))
    store = Store(db)
    baseline = run_baseline(store, rid)
    assert baselines_of(store, rid) == [baseline]
    ours = [(e.item_key, e.item["rule"]) for e in store.list_episodes(rid)]
    theirs = [(e.item_key, e.item["rule"]) for e in store.list_episodes(baseline)]
    assert ours == theirs
    assert main(["show", str(rid), "--db", db, "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert _kn(shown["table"]["accuracy"]) == (1, 10)
    assert [b["player"] for b in shown["baselines"]] == ["solver"]
    assert _kn(shown["baselines"][0]["table"]["accuracy"]) == (10, 10)
    assert main(["show", str(rid), "--db", db]) == 0
    assert "solver (reference)" in capsys.readouterr().out


def test_user_rules_file_and_generated_split(
    db: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rules = tmp_path / "rules.txt"
    rules.write_text("lambda x, y, z: x > 2 and y > 2\nx + z == y and x > 0\n")
    assert main(["eval", "wilt", "--rules", str(rules), "--player", "solver", "--db", db, "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert [e["rule"] for e in shown["episodes"]] == ["file/1", "file/2"]
    assert _kn(shown["table"]["accuracy"]) == (2, 2)
    args = [
        "eval",
        "wilt",
        "--split",
        "generated",
        "--seed",
        "3",
        "--n",
        "4",
        "--player",
        "solver",
        "--db",
        db,
    ]
    assert main([*args, "--json"]) == 0
    generated = json.loads(capsys.readouterr().out)
    assert _kn(generated["table"]["accuracy"]) == (4, 4)
    assert main([*args, "--json"]) == 0
    again = json.loads(capsys.readouterr().out)
    assert [e["text"] for e in again["episodes"]] == [e["text"] for e in generated["episodes"]]
    assert exit_code(["eval", "wilt", "--split", "generated", "--seed", "3", "--db", db]) == 2
    assert "--n N" in capsys.readouterr().err


HUGE = "99999999999999999999999999"


@pytest.mark.parametrize(
    "argv",
    [
        ["show", HUGE],
        ["show", "1", HUGE],
        ["compare", "1", HUGE],
        ["runs", "--delete", HUGE, "--yes"],
        ["export", HUGE, "--to", "out"],
        ["report", HUGE, "-o", "out"],
        ["grid", HUGE],
        ["session", "view", HUGE],
        ["session", "summary", HUGE],
        ["session", "step", HUGE, "{}"],
        ["play", "--session", HUGE],
        ["eval", "--resume", HUGE],
        ["show", "2147483648"],  # one past the store's largest id (PostgreSQL's INTEGER)
        ["show", "0"],
        ["show", "1" * 5000],  # more digits than int() reads
    ],
)
def test_an_id_beyond_the_store_is_one_line(
    argv: list[str], db: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert exit_code([*argv, "--db", db]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "is not a " in err and "id (a whole number from 1 to 2147483647)" in err
    assert "1" * 100 not in err  # a huge argument is not printed whole
    if HUGE in argv:  # and in its place something that is not a number: argparse's words
        assert exit_code([*[a if a != HUGE else "x" * 100 for a in argv], "--db", db]) == 2
        assert f"invalid int value: '{'x' * 37}...'" in capsys.readouterr().err


def test_an_id_that_reaches_the_store_another_way_is_not_found(
    db: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # a run id in a family's own flag is bounded by the store's ids where it is declared: one line, not an
    # OverflowError; one within the bound that names no run is the store's "no run"
    argv = ["eval", "wilt", "--protocol", "testswap", "--tests-from", HUGE, "--db", db]
    assert exit_code(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "tests_from" in err and "2147483647" in err
    argv = ["eval", "wilt", "--protocol", "testswap", "--tests-from", "2147483647", "--db", db]
    assert exit_code(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no run 2147483647" in err


def test_constrain_both_plays_free_then_constrained_with_one_baseline(
    db: str, capsys: pytest.CaptureFixture[str]
) -> None:
    from tests.fakes.openai_server import FakeOpenAIServer

    def reply(messages: list[dict[str, object]], body: dict[str, object]) -> str:
        turn = sum(m.get("role") == "assistant" for m in messages)
        return (
            f"Test Case: ```({turn}, {turn * 2}, {turn + 7})```"
            if turn < 2
            else "Final Guess: ```x < y < z```"
        )

    with FakeOpenAIServer(reply) as server:
        argv = ["eval", "wilt", "--split", "lite", "--ids", "1,2", "--model", "vllm:fake", "--db", db]
        assert main([*argv, "--base-url", server.base_url, "--constrain", "both"]) == 0
    out = capsys.readouterr().out
    runs = Store(db).list_runs()
    # the same items free, then constrained; the solver once, as the first run's baseline
    assert [(r.player, r.config["constrain"], r.config.get("baseline_for")) for r in runs] == [
        ("llm", False, None),
        ("llm", True, None),
        ("solver", False, runs[0].id),
    ]
    assert all(r.status == "completed" for r in runs)
    assert "Running run 1" in out and "Running run 2" in out and f"Paired with run {runs[0].id}" in out
