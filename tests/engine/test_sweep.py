"""``wason sweep``: the sweep file (each bad key is one line naming it), the grid's cells, a local sweep with the
solver and a model behind the fake OpenAI-compatible endpoint, and resuming one (after failed cells, and after
kill -9)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa

from tests.fakes.openai_server import FakeOpenAIServer
from wason.cli import main
from wason.engine.sweep import parse_sweep
from wason.store import Store

ROOT = Path(__file__).resolve().parents[2]


def scripted_reply(messages: list[dict[str, Any]], body: dict[str, Any]) -> str:
    """A rule-discovery 'model': three tests, then guesses that the numbers increase."""
    turn = sum(m.get("role") == "assistant" for m in messages)
    if turn < 3:
        return f"Test Case: ```({turn}, {turn * 2 + 1}, {turn + 7})```"
    return "Final Guess: ```lambda x, y, z: x < y < z```"


def slow_reply(messages: list[dict[str, Any]], body: dict[str, Any]) -> str:
    time.sleep(0.05)
    return scripted_reply(messages, body)


def sweep_text(base_url: str, *, name: str = "grid", extra: str = "") -> str:
    return f"""
name = "{name}"
[run]
timeout = 5
retries = 0
concurrency = 2
{extra}
[[families]]
name = "wilt"
splits = ["lite"]
ids = [1, 2, 3]

[[players]]
player = "solver"

[[players]]
models = ["vllm:fake"]
base_url = "{base_url}"

[[settings]]
temperature = 0.0

[[settings]]
temperature = 0.7
max_tokens = 64
"""


def write(tmp_path: Path, text: str, name: str = "sweep.toml") -> str:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def sweep_runs(db: str, sweep: str) -> list[dict[str, Any]]:
    store = Store(db)
    try:
        with store.engine.connect() as c:
            rows = c.execute(sa.text("SELECT id, cell, status FROM runs WHERE sweep = :s"), {"s": sweep})
            return [dict(r._mapping) for r in rows]
    finally:
        store.close()


# -- the sweep file -------------------------------------------------------------------------------------------
def test_the_grid_is_families_x_settings_x_models_x_generation_settings() -> None:
    sweep = parse_sweep(
        """
name = "g"
[[families]]
name = "wilt"
splits = ["lite", "full"]
max_tests = 12
[[families]]
name = "aiw"
trials = 2
[families.grid]
prompt_types = [["STANDARD"], ["THINKING"]]
[[players]]
player = "solver"
[[players]]
models = ["vllm:a", "vllm:b"]
[[settings]]
temperature = 0
[[settings]]
temperature = 1
"""
    )
    wilt = [c for c in sweep.cells if c.task == "wilt"]
    aiw = [c for c in sweep.cells if c.task == "aiw"]
    # 2 splits x (the solver + 2 models x 2 settings); 2 prompt-type lists x 2 models x 2 settings, no solver
    assert len(wilt) == 2 * (1 + 2 * 2) and len(aiw) == 2 * 2 * 2
    assert len({c.key for c in sweep.cells}) == len(sweep.cells)
    assert all(c.config["max_tests"] == 12 for c in wilt)
    assert {c.fields["split"] for c in wilt} == {"lite", "full"}
    assert {tuple(c.fields["prompt_types"]) for c in aiw} == {("STANDARD",), ("THINKING",)}
    assert [n for n in sweep.notes if "aiw" in n and "solver" in n]  # said, not silently dropped
    solver = [c for c in wilt if c.player == "solver"]
    assert len(solver) == 2 and all(not c.baseline and c.model is None for c in solver)
    assert all(c.baseline for c in wilt if c.player == "llm")


def test_a_cell_key_is_canonical_and_leaves_out_how_a_cell_runs() -> None:
    base = 'name = "k"\n[[families]]\nname = "wilt"\n{fam}\n[[players]]\nmodels = ["vllm:m"]\n{run}\n'
    one = parse_sweep(base.format(fam='split = "lite"\nmax_tests = 30', run="[[settings]]\ntemperature = 0"))
    # the same cell written otherwise: keys in another order, an int for a float, another timeout and URL
    two = parse_sweep(
        base.format(fam='max_tests = 30\nsplit = "lite"', run="[[settings]]\ntemperature = 0.0")
        + "[run]\ntimeout = 9\n"
    )
    assert [c.key for c in one.cells] == [c.key for c in two.cells]
    other = parse_sweep(base.format(fam='split = "lite"\nmax_tests = 29', run=""))
    assert other.cells[0].key != one.cells[0].key


BAD_FILES = [
    ("name = \n", "not valid TOML"),
    ('nmae = "x"\n[[families]]\nname = "wilt"\n[[players]]\nplayer = "solver"\n', "nmae: unknown key"),
    ('name = "x"\n[[players]]\nplayer = "solver"\n', "families: Field required"),
    ('name = "x"\n[[families]]\nname = "nope"\n[[players]]\nplayer = "solver"\n', "families[0].name: unknown"),
    ('name = "x"\n[[families]]\nname = "wilt"\nmax_test = 3\n[[players]]\nplayer = "solver"\n',
     "families[0] (wilt).max_test: not a setting of this family"),
    ('name = "x"\n[[families]]\nname = "wilt"\n[families.grid]\nsplt = ["lite"]\n[[players]]\nplayer = "solver"\n',
     "families[0] (wilt).grid.splt: not a setting"),
    ('name = "x"\n[[families]]\nname = "aiw"\nsplits = ["a"]\n[[players]]\nmodels = ["vllm:m"]\n',
     "families[0] (aiw).splits: this family has no 'split' setting"),
    ('name = "x"\n[[families]]\nname = "wilt"\nmax_tests = "many"\n[[players]]\nplayer = "solver"\n',
     "families[0] (wilt): max_tests: Input should be a valid integer"),
    ('name = "x"\n[[families]]\nname = "wilt"\n[[players]]\nplayer = "llm"\n', "players[0]"),
    ('name = "x"\n[[families]]\nname = "wilt"\n[[players]]\nplayer = "human"\n', "players[0].player"),
    ('name = "x"\n[[families]]\nname = "wilt"\n[[players]]\nmodels = ["vllm:m"]\n[[settings]]\ntemp = 1\n',
     "settings[0].temp: unknown key"),
    ('name = "x"\n[[families]]\nname = "wilt"\n[[players]]\nmodels = ["vllm:m"]\n[[settings]]\n'
     "temperature = 5\n", "settings[0].temperature"),
    ('name = "x"\n[[families]]\nname = "wilt"\nsplits = []\n[[players]]\nplayer = "solver"\n',
     "families[0].splits"),
    ('name = "x"\n[[families]]\nname = "wilt"\nsplit = "lite"\nsplits = ["full"]\n[[players]]\n'
     'player = "solver"\n', "families[0] (wilt).split: set both"),
]  # fmt: skip


@pytest.mark.parametrize(("text", "expected"), BAD_FILES, ids=[e for _, e in BAD_FILES])
def test_a_bad_sweep_file_is_one_line_naming_the_key(
    text: str, expected: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path, text)
    assert main(["sweep", path, "--db", str(tmp_path / "s.db")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("wason: error: ") and err.count("\n") == 1, err
    assert expected in err and path in err
    assert "Traceback" not in err
    assert not (tmp_path / "s.db").exists() or not sweep_runs(str(tmp_path / "s.db"), "x")


def test_items_that_cannot_be_drawn_fail_before_any_cell_runs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = 'name = "x"\n[[families]]\nname = "wilt"\nsplits = ["lite"]\nids = [999]\n[[players]]\nplayer = "solver"\n'
    db = f"sqlite:///{tmp_path / 's.db'}"
    assert main(["sweep", write(tmp_path, text), "--db", db]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "ids=999 split=lite" in err and "has no rule 999" in err, err
    assert sweep_runs(db, "x") == []


@pytest.mark.parametrize("kind", ["missing", "binary", "huge", "dev-zero", "bom"])
def test_unreadable_sweep_files_are_one_line(
    kind: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "s.toml"
    if kind == "binary":
        path.write_bytes(b"name = \xff\xfe\n")
    elif kind == "huge":
        path.write_bytes(b"#" * (2 << 20))
    elif kind == "bom":  # a byte-order mark is fine: the file is then read as usual
        path.write_bytes(b"\xef\xbb\xbfname = 1\n")
    target = "/dev/zero" if kind == "dev-zero" else str(path)
    assert main(["sweep", target, "--db", str(tmp_path / "s.db")]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"wason: error: {target}: ") and err.count("\n") == 1, err
    expected = {
        "missing": "cannot read",
        "binary": "not UTF-8 text (byte 7)",
        "huge": "larger than",
        "dev-zero": "larger than",
        "bom": "name: Input should be a valid string",
    }[kind]
    assert expected in err


def test_a_sweep_with_ray_needs_a_shared_store(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = 'name = "x"\n[[families]]\nname = "wilt"\nids = [1]\n[[players]]\nplayer = "solver"\n'
    # `--ray FILE` reads FILE as the sweep (not as a cluster's address)
    assert main(["sweep", "--ray", write(tmp_path, text), "--db", str(tmp_path / "s.db")]) == 2
    err = capsys.readouterr().err
    assert "needs a store every node of the cluster reaches" in err and err.count("\n") == 1


# -- running sweeps -------------------------------------------------------------------------------------------
def test_a_local_sweep_runs_every_cell_once_and_a_second_run_redoes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    db = f"sqlite:///{tmp_path / 's.db'}"
    # the table wide enough that no cell wraps (piped output is 100 wide)
    monkeypatch.setenv("COLUMNS", "160")
    with FakeOpenAIServer(scripted_reply) as server:
        path = write(tmp_path, sweep_text(server.base_url))
        assert main(["sweep", path, "--db", db, "--json"]) == 0
        rows = json.loads(capsys.readouterr().out)
        requests = server.requests
        assert requests > 0

        assert [(r["player"], r["settings"]) for r in rows] == [
            ("solver", "-"),
            ("llm", "temperature=0.0"),
            ("llm", "temperature=0.7 max_tokens=64"),
        ]
        assert all(r["status"] == "completed" and r["episodes"] == 3 and r["completed"] == 3 for r in rows)
        solver, *models = rows
        assert solver["correct"] == 3 and solver["baseline_run"] is None
        # the scripted guess (increasing numbers) is right for one of the three rules
        assert all(m["correct"] == 1 and m["baseline_correct"] == 3 for m in models)

        runs = sweep_runs(db, "grid")
        assert sorted(r["cell"] for r in runs) == sorted(r["cell"] for r in rows)
        store = Store(db)
        all_runs = store.list_runs()
        # the three cells, and one baseline per model run
        assert len(all_runs) == 5
        assert Counter(r.config.get("baseline_for") for r in all_runs) == {
            None: 3,
            models[0]["run"]: 1,
            models[1]["run"]: 1,
        }

        # again: every cell is complete, so nothing runs and no request is sent
        assert main(["sweep", path, "--db", db]) == 0
        out = capsys.readouterr().out
        assert "0 to run" in out and "completed" in out and "1/3 (33% [6-79])" in out
        assert server.requests == requests
        assert len(store.list_runs()) == 5
        store.close()


def test_failed_cells_exit_nonzero_and_a_second_run_finishes_only_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = f"sqlite:///{tmp_path / 's.db'}"
    with FakeOpenAIServer(scripted_reply, fail_share=1.0, fail_kinds=(500,)) as down:
        path = write(tmp_path, sweep_text(down.base_url))
        assert main(["sweep", path, "--db", db, "--json"]) == 1
        captured = capsys.readouterr()
        first = {r["cell"]: r for r in json.loads(captured.out)}
        assert "2 of 3 cells did not complete" in captured.err
        assert captured.err.count("\n") == 1 and "Traceback" not in captured.err
    statuses = sorted(r["status"] for r in first.values())
    assert statuses[0] == "completed" and all(s != "completed" for s in statuses[1:])
    solver_before = next(r for r in first.values() if r["player"] == "solver")

    store = Store(db)
    finished_before = {e.id: e for e in store.list_episodes(solver_before["run"])}
    with FakeOpenAIServer(scripted_reply) as up:
        write(tmp_path, sweep_text(up.base_url))  # the endpoint moved: the cells stay the same
        assert main(["sweep", path, "--db", db, "--json"]) == 0
        second = {r["cell"]: r for r in json.loads(capsys.readouterr().out)}
    assert second.keys() == first.keys()
    assert all(r["status"] == "completed" for r in second.values())
    # the failed cells were finished in their own runs, not new ones; the completed cell was left alone
    assert {k: r["run"] for k, r in second.items()} == {k: r["run"] for k, r in first.items() if r["run"]} | {
        k: second[k]["run"] for k, r in first.items() if r["run"] is None
    }
    assert {e.id: e for e in store.list_episodes(solver_before["run"])} == finished_before
    assert len(sweep_runs(db, "grid")) == 3
    store.close()


def test_kill_9_mid_sweep_then_the_sweep_again_loses_and_repeats_nothing(tmp_path: Path) -> None:
    db_path = tmp_path / "s.db"
    db = f"sqlite:///{db_path}"
    env = {**os.environ, "COLUMNS": "120"}
    with FakeOpenAIServer(slow_reply) as server:
        path = write(tmp_path, sweep_text(server.base_url, extra="baselines = false"))
        proc = subprocess.Popen(
            [sys.executable, "-m", "wason.cli", "sweep", path, "--db", db],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env, cwd=ROOT,
        )  # fmt: skip
        deadline = time.monotonic() + 90
        killed_in: int | None = None
        while time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.05)
            try:
                runs = {r["id"]: r for r in sweep_runs(db, "grid")}
                store = Store(db)
                # a model cell in the middle of its episodes: some finished, some not
                for run_id in sorted(runs)[1:]:
                    eps = store.list_episodes(run_id)
                    if 1 <= sum(e.status == "completed" for e in eps) < len(eps):
                        killed_in = run_id
                store.close()
            except Exception:  # the store is still being made
                continue
            if killed_in is not None:
                break
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)
        assert killed_in is not None, proc.stderr.read() if proc.stderr else ""

        assert main(["sweep", path, "--db", db]) == 0
    store = Store(db)
    runs = sweep_runs(db, "grid")
    assert len(runs) == 3 and len({r["cell"] for r in runs}) == 3  # no cell lost or made twice
    assert all(store.get_run(r["id"]).status == "completed" for r in runs)
    assert len(store.list_runs()) == 3  # and no baselines, as the file said
    for r in runs:
        model_run = store.get_run(r["id"]).player == "llm"
        for e in store.list_episodes(r["id"]):
            turns = [t["index"] for t in store.list_turns(e.id)]
            # the episode cut by the kill was replayed from its start: no turn is stored twice
            assert turns == list(range(4 if model_run else len(turns))) and turns
    store.close()


def test_a_ray_address_where_nothing_listens_is_one_line_at_once() -> None:
    pytest.importorskip("ray")
    from tests.postgres import free_port
    from wason.engine.sweep import SweepError
    from wason.engine.sweep_ray import _check_reachable

    with pytest.raises(
        SweepError, match=r"cannot reach a Ray cluster at '127\.0\.0\.1:\d+': .*ray start --head"
    ):
        _check_reachable(f"127.0.0.1:{free_port()}")


def test_a_cell_another_process_plays_is_refused_before_any_request(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from wason.store.db import new_owner

    db = f"sqlite:///{tmp_path / 's.db'}"
    with FakeOpenAIServer(scripted_reply, fail_share=1.0, fail_kinds=(500,)) as down:
        path = write(tmp_path, sweep_text(down.base_url))
        assert main(["sweep", path, "--db", db, "--json"]) == 1  # the model cells' episodes errored
    capsys.readouterr()
    store = Store(db)
    model_runs = [r.id for r in store.list_runs() if r.player == "llm" and r.status != "completed"]
    assert len(model_runs) == 2
    for run_id in model_runs:  # another live process (this one) is playing them
        store.acquire_lease(run_id, new_owner())
    with FakeOpenAIServer(scripted_reply) as up:
        write(tmp_path, sweep_text(up.base_url))
        assert main(["sweep", path, "--db", db, "--json"]) == 1
        rows = json.loads(capsys.readouterr().out)
        assert list(up.seen) == []  # not even the endpoint's pre-flight check
    assert sorted(r["status"] for r in rows if r["run"] in model_runs) == ["busy", "busy"]
    store.close()
