"""Every family as an Inspect task, played by Inspect against the fake OpenAI server and by ``wason eval``
against the same server with the same replies: the same samples as episodes, the same verdicts and metrics, the
same messages sent to the model; then the logs read back into the store by ``wason import``."""

from __future__ import annotations

import fcntl
import json
import os
import re
import subprocess
import sys
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("inspect_ai")

from tests.fakes.openai_server import FakeOpenAIServer
from tests.families.toy import FAMILY
from tests.inspect.scripted import LIMIT, TASK_ARGS, reply
from tests.inspect.view import inspect_view
from tests.server.web.conftest import browser_page, chromium  # noqa: F401 - fixtures
from wason.api import evaluate
from wason.cli import main
from wason.core import registry
from wason.report.inspect_log import target_and_answer
from wason.store import Store

ROOT = Path(__file__).resolve().parents[2]
BUILTIN = ["wilt", "lists", "aiw", "picnic", "code-functions", "math", "dynamic-picnic", "lab"]
FAMILIES = [*BUILTIN, FAMILY.name]


@dataclass
class Played:
    store: Store
    runs: dict[str, int]  # family -> the wason eval run
    logs: dict[str, Any]  # family -> the Inspect log
    files: dict[str, str]
    inspect_messages: Counter[str]
    wason_messages: Counter[str]


def _messages(bodies: list[dict[str, Any]]) -> Counter[str]:
    return Counter(json.dumps(b.get("messages"), sort_keys=True) for b in bodies if "messages" in b)


def _play_both_ways(tmp: Path) -> None:
    """Every family played by Inspect (in a process of its own) and by ``wason eval`` against one fake server, into
    ``tmp``: the logs, the store ``wason.db``, and ``played.json`` (the runs, the logs' files, the request bodies)."""
    with FakeOpenAIServer(reply=reply) as server:
        env = {
            **os.environ,
            "FAKE_BASE_URL": server.base_url,
            "FAKE_API_KEY": "k",
            "INSPECT_LOG_DIR": str(tmp / "logs"),
            "HOME": str(tmp / "home"),
        }
        done = subprocess.run(  # no timeout: a busy machine makes it slow, never failed
            [sys.executable, "-m", "tests.inspect.scripted", str(tmp / "logs"), *FAMILIES],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
        )
        assert done.returncode == 0, done.stderr[-3000:]
        made = json.loads(done.stdout.strip().splitlines()[-1])
        inspect_bodies = list(server.bodies)
        store = Store(f"sqlite:///{tmp / 'wason.db'}")
        runs = {}
        for name in FAMILIES:
            runs[name] = evaluate(
                name,
                model="openai:fake-model",
                base_url=server.base_url,
                api_key="k",
                db=store,
                limit=LIMIT,
                **TASK_ARGS.get(name, {}),
            )
        store.close()
        wason_bodies = list(server.bodies)[len(inspect_bodies) :]
    files = {}
    for entry in made:
        assert entry["status"] == "success", entry
        files[entry["task"].removeprefix("wason/")] = entry["file"].removeprefix("file://")
    record = {"runs": runs, "files": files, "inspect": inspect_bodies, "wason": wason_bodies}
    (tmp / "played.json").write_text(json.dumps(record))


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Played]:
    """The games of :func:`_play_both_ways`, played once for the whole test run: the test workers share a folder,
    the first to come plays them under a lock, the others read what it wrote."""
    from inspect_ai.log import read_eval_log

    shared = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        shared = shared.parent  # the folder every worker's own folder is in
    tmp = shared / "inspect-played"
    registry.register(FAMILY)
    try:
        with open(shared / "inspect-played.lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            if not (tmp / "played.json").exists():
                tmp.mkdir(exist_ok=True)
                _play_both_ways(tmp)
        record = json.loads((tmp / "played.json").read_text())
        files: dict[str, str] = record["files"]
        logs = {name: read_eval_log(path) for name, path in files.items()}
        store = Store(f"sqlite:///{tmp / 'wason.db'}")
        yield Played(
            store, record["runs"], logs, files, _messages(record["inspect"]), _messages(record["wason"])
        )
        store.close()
    finally:
        registry.unregister(FAMILY.name)


INSPECT_SPEC = "openai-api:fake/fake-model"
"""The fake server's model as a run played under Inspect names it (Inspect's openai-api/fake/fake-model)."""
WASON_SPEC = "openai:fake-model"


def _named(value: Any) -> Any:
    """A record with the model's name as one word: the two harnesses name the same server's model apart."""
    text = json.dumps(value, sort_keys=True)
    return json.loads(text.replace(INSPECT_SPEC, "MODEL").replace(WASON_SPEC, "MODEL"))


def _episodes(played: Played, name: str) -> dict[str, tuple[Any, ...]]:
    return {
        e.item_key: (e.status, e.success, _named(e.metrics))
        for e in played.store.list_episodes(played.runs[name])
    }


def _samples(played: Played, name: str) -> dict[str, tuple[Any, ...]]:
    out = {}
    for s in played.logs[name].samples:
        record = s.store["wason:episode"]
        out[record["key"]] = (record["status"], record["success"], _named(record["metrics"]))
    return out


@pytest.mark.parametrize("name", FAMILIES)
def test_the_same_episodes_and_verdicts_as_wason_eval(played: Played, name: str) -> None:
    episodes = _episodes(played, name)
    samples = _samples(played, name)
    assert len(episodes) >= LIMIT
    for key in episodes:
        if samples.get(key) != episodes[key]:
            a, b = samples.get(key), episodes[key]
            diff = {
                k: (a[2].get(k), b[2].get(k)) for k in set(a[2]) | set(b[2]) if a[2].get(k) != b[2].get(k)
            }
            pytest.fail(f"{key}: {a[:2]} vs {b[:2]}; metrics differ: {json.dumps(diff)[:3000]}")
    assert samples == episodes  # one sample per episode, with its verdict and metrics
    log = played.logs[name]
    trials = TASK_ARGS.get(name, {}).get("trials", 1)
    assert len(log.samples) == LIMIT * trials and len({s.id for s in log.samples}) == LIMIT


@pytest.mark.parametrize("name", FAMILIES)
def test_samples_carry_target_answer_and_the_code_verdict(played: Played, name: str) -> None:
    for sample in played.logs[name].samples:
        record = sample.store["wason:episode"]
        target, answer = target_and_answer(name, record["item"], record["metrics"])
        assert sample.target == target  # what was hidden, in inspect view beside what was guessed
        assert target, f"{name}: a sample without a target"
        score = sample.scores["verdict"]
        assert score.answer == answer
        if record["success"] is not None:
            assert score.value == ("C" if record["success"] else "I")
        assert score.metadata["metrics"] == {
            k: v
            for k, v in (record["metrics"] or {}).items()
            if v is None or isinstance(v, str | int | float | bool)
        }
        # nothing a client reads before the game ends names the hidden item
        assert set(sample.metadata) == {"wason_task", "family", "index", "item"}


def test_the_model_saw_exactly_the_messages_wason_eval_sends(played: Played) -> None:
    assert played.inspect_messages, "Inspect sent the fake server nothing"
    assert played.inspect_messages == played.wason_messages


def test_metrics_aggregate_the_family_columns(played: Played) -> None:
    results = played.logs["wilt"].results
    metrics = results.scores[0].metrics
    assert metrics["accuracy"].value == pytest.approx(
        sum(e.success for e in played.store.list_episodes(played.runs["wilt"])) / LIMIT
    )
    assert "repeats" in metrics and "tests" in metrics


def test_wason_import_gives_the_same_show_table(
    played: Played, tmp_path: Path, capsys: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "400")  # no model name broken over two lines
    db = str(tmp_path / "imported.db")
    names = ["wilt", "aiw", FAMILY.name]
    assert main(["import", *[played.files[n] for n in names], "--db", db]) == 0
    said = capsys.readouterr().out
    assert said.count("imported as run") == len(names)
    assert main(["import", played.files["wilt"], "--db", db]) == 0
    assert "already in the store as run 1" in capsys.readouterr().out
    imported = Store(db)
    for run_id, name in enumerate(names, 1):
        row = imported.get_run(run_id)
        assert row.task == name and row.model == INSPECT_SPEC and row.status == "completed"
        ours = {e.item_key: (e.status, e.success, _named(e.metrics)) for e in imported.list_episodes(run_id)}
        assert ours == _episodes(played, name)
        theirs = played.runs[name]
        assert main(["show", str(run_id), "--db", db]) == 0
        table = capsys.readouterr().out
        assert main(["show", str(theirs), "--db", played.store.url]) == 0
        wason_table = capsys.readouterr().out
        # the same table, but for the run's number and the model's name (one server, named by each harness)
        assert _table(wason_table, theirs) == _table(table, run_id)


def _table(text: str, run_id: int) -> str:
    """The table's words and numbers (its columns are as wide as the model's name)."""
    for said in ("Run {}:", "run id: {} ", "wason show {} "):
        text = text.replace(said.format(run_id), said.format("R"))
    named = text.replace(INSPECT_SPEC, "M").replace(WASON_SPEC, "M")
    named = named.replace("openai-api:fake/fake-", "M")  # the longer name, broken over two lines
    return " ".join(w for w in re.sub("─+", "─", named).split() if w != "model")


def test_import_refuses_what_is_not_a_wason_log(tmp_path: Path, capsys: Any) -> None:
    not_a_log = tmp_path / "x.eval"
    not_a_log.write_text("hello")
    assert main(["import", str(not_a_log), "--db", str(tmp_path / "s.db")]) != 0
    err = capsys.readouterr().err
    assert "not an Inspect log" in err and "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert main(["import", str(tmp_path / "missing.eval"), "--db", str(tmp_path / "s.db")]) != 0
    assert "no such log file" in capsys.readouterr().err


def test_the_record_of_a_running_game_holds_only_what_a_client_may_read() -> None:
    """The sample's store holds the episode record; until the game is over it is the item's public keys, the
    turns without their oracle work and no calls (a judge's messages may name the rule), then the whole."""
    from wason.core.memory import EpisodeRecord

    item = {"split": "lite", "id": 1, "rule": "lambda x, y, z: x > y > z", "tier": None}
    record = EpisodeRecord("wilt", "lite/1", item, {}, "llm")
    record.start_episode(0)
    record.add_turn(
        0, 0, action={"type": "ProposeTest"}, observation={}, reply="r", feedback="f", oracle={"o": 1}
    )
    record.record_call({"messages": [{"role": "user", "content": "judge lambda x, y, z: x > y > z"}]})
    running = json.dumps(record.data())
    assert "x > y > z" not in running
    assert record.data()["item"] == {"split": "lite"} and record.data()["calls"] == []
    assert record.data()["turns"][0]["oracle"] is None and record.data()["turns"][0]["reply"] == "r"
    record.finish_episode(0, status="completed", success=False, metrics={})
    assert record.data()["item"] == item and len(record.data()["calls"]) == 1
    assert record.data()["turns"][0]["oracle"] == {"o": 1}


def _letters(text: str) -> str:
    """Text as letters and digits alone: what a rendered cell keeps of it, whatever markdown makes of the rest."""
    return "".join(ch for ch in text.lower() if ch.isalnum())


def test_inspect_view_shows_each_family_target_and_answer(
    browser_page: Any,  # noqa: F811 - the web tests' fixture; first, so a missing Chromium skips at once
    played: Played,
    tmp_path: Path,
) -> None:
    page = browser_page
    page.set_default_timeout(60_000)
    folders = {Path(f).parent for f in played.files.values()}
    assert len(folders) == 1
    answered = 0
    with inspect_view(folders.pop(), tmp_path) as url:
        elsewhere: list[str] = []

        def local_only(route: Any) -> None:
            if route.request.url.startswith(url):
                route.continue_()
            else:
                elsewhere.append(route.request.url)
                route.abort()

        page.context.route("**/*", local_only)
        for name in FAMILIES:
            log = played.logs[name]
            page.goto(f"{url}/#/tasks/{Path(played.files[name]).name}")
            page.get_by_text(f"{len(log.samples)} Samples").first.wait_for()
            page.screenshot(path=str(tmp_path / f"{name}.png"))
            shown = _letters(page.inner_text("body"))
            for sample in log.samples:
                target = _letters(str(sample.target))[:40]
                assert target and target in shown, f"{name}: target {sample.target!r} not shown"
                answer = _letters(str(sample.scores["verdict"].answer or ""))[:40]
                if answer:
                    answered += 1
                    assert answer in shown, f"{name}: answer {sample.scores['verdict'].answer!r} not shown"
        assert elsewhere == [], f"inspect view asked the network for {elsewhere}"
    assert answered >= len(FAMILIES)  # the scripted replies give most samples an answer
