"""Browse pages over a store filled by real runs: solver runs (WILT lite, Static Picnic), model runs over a fake
OpenAI-compatible endpoint (WILT with its solver baseline, AIW with plots) and an ongoing session of every
family. Every page renders for every family, filters and sorting work and are one clear error when bad, compare
refuses mixed families, and no page shows the hidden part of a game that is not over."""

from __future__ import annotations

import html
import json
import re
import shutil
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.fakes.openai_server import FakeOpenAIServer
from tests.server.web.conftest import start_live_server
from wason.cli import main
from wason.core import registry, session
from wason.core.records import calls_note
from wason.server import create_app
from wason.store import Store


@dataclass
class Filled:
    """The store and what each run in it is."""

    path: Path
    store: Store
    runs: dict[str, int] = field(default_factory=dict)
    sessions: dict[str, int] = field(default_factory=dict)  # family -> session (episode) id, ongoing


def _eval(db: str, *argv: str) -> int:
    import contextlib
    import io

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["eval", *argv, "--db", db, "--json"]) == 0
    return int(json.loads(out.getvalue())["run"])


def fill_store(path: Path) -> Filled:
    db = str(path)
    filled = Filled(path=path, store=Store(db))
    filled.runs["wilt_solver"] = _eval(db, "wilt", "--player", "solver", "--split", "lite", "--ids", "1,2,3")
    filled.runs["picnic_a"] = _eval(db, "picnic", "--player", "solver", "--level", "L1", "--n", "2")
    filled.runs["picnic_b"] = _eval(
        db, "picnic", "--player", "solver", "--level", "L2", "--n", "2", "--seed", "3"
    )
    filled.runs["math_solver"] = _eval(db, "math", "--player", "solver", "--n", "2")
    filled.runs["code_functions_solver"] = _eval(db, "code-functions", "--player", "solver", "--n", "2")
    filled.runs["lists_solver"] = _eval(db, "lists", "--player", "solver", "--ids", "1")
    filled.runs["lab_solver"] = _eval(db, "lab", "--player", "solver", "--n", "2")
    with FakeOpenAIServer() as server:
        model = ["--model", "vllm:fake-model", "--base-url", server.base_url]
        filled.runs["dynamic_picnic_model"] = _eval(db, "dynamic-picnic", *model, "--ids", "1")
        filled.runs["wilt_model"] = _eval(db, "wilt", *model, "--split", "lite", "--ids", "1,2")
        filled.runs["aiw_model"] = _eval(db, "aiw", *model, "--trials", "1", "--families", "AIW")
    baselines = [
        r.id for r in filled.store.list_runs() if r.config.get("baseline_for") == filled.runs["wilt_model"]
    ]
    assert len(baselines) == 1
    filled.runs["wilt_baseline"] = baselines[0]
    for name in registry.names():
        filled.sessions[name] = session.start(filled.store, name, {}, index=0)
    return filled


@pytest.fixture(scope="module")
def filled(tmp_path_factory: pytest.TempPathFactory, empty_store: Path) -> Iterator[Filled]:
    from tests.server import hidden_family

    registry.register(hidden_family.FAMILY, replace=True)  # the server tests' family plays too
    path = tmp_path_factory.mktemp("browse") / "browse.db"
    shutil.copyfile(empty_store, path)
    data = fill_store(path)
    yield data
    data.store.close()


@pytest.fixture(scope="module")
def web(filled: Filled) -> Iterator[TestClient]:
    with TestClient(create_app(filled.store), base_url="http://127.0.0.1") as client:
        yield client


def rows(page: str) -> list[int]:
    """The run ids of a runs table, in page order."""
    return [int(x) for x in re.findall(r'<tr data-run="(\d+)">', page)]


def one_error(page: str) -> str:
    errors = re.findall(r'<p class="error" id="page-error">([^<]*)</p>', page)
    assert len(errors) == 1, page
    assert "Traceback" not in page
    return html.unescape(errors[0])


# -- every page, every family ------------------------------------------------------------------------------
def test_every_page_renders_for_every_family_with_runs(web: TestClient, filled: Filled) -> None:
    home = web.get("/")
    assert home.status_code == 200
    for fam in registry.families():
        assert html.escape(fam.title) in home.text
    listed = web.get("/runs")
    assert listed.status_code == 200
    runs = filled.store.list_runs()
    assert sorted(rows(listed.text)) == sorted(r.id for r in runs)
    assert {r.task for r in runs} >= set(registry.names())  # a run (at least a session) of every family
    # and a finished run of every built-in family: their summaries and transcripts of games that are over
    assert {r.task for r in runs if r.status == "completed"} >= set(registry.names()) - {"hidden_mod"}
    for run in runs:
        page = web.get(f"/runs/{run.id}")
        assert page.status_code == 200, (run.task, page.text[:500])
        assert f"Run {run.id}: {html.escape(registry.get(run.task).title)}" in page.text
        episodes = filled.store.list_episodes(run.id)
        for e in episodes[:2]:
            assert f'href="/runs/{run.id}/episodes/{e.index}"' in page.text
            ep = web.get(f"/runs/{run.id}/episodes/{e.index}")
            assert ep.status_code == 200, (run.task, ep.text[:500])
            assert f"Episode {e.index} of" in ep.text


def test_a_finished_run_shows_its_summary_baseline_transcripts_and_calls(
    web: TestClient, filled: Filled
) -> None:
    run_id, baseline = filled.runs["wilt_model"], filled.runs["wilt_baseline"]
    page = web.get(f"/runs/{run_id}").text
    # the family's own tables, as `wason show` prints them: the model's row and the baseline's
    assert "Accuracy" in page and "solver (reference)" in page
    assert f'href="/runs/{baseline}"' in page and f"/compare?runs={run_id}%2C{baseline}" in page
    calls = filled.store.call_totals(run_id)
    assert calls["calls"] > 0
    # the sentence `wason show` prints, retries named only if any: once (the summary's notes hold it)
    assert page.count(html.escape(calls_note(calls))) == 1
    assert f"model calls: {calls['calls']} made, 0 failed" in page  # the fake server never failed a call
    rule = filled.store.list_episodes(run_id)[0].item["rule"]
    assert html.escape(rule) in page  # the games are over: their rules are the results
    episode = web.get(f"/runs/{run_id}/episodes/0").text
    stored = filled.store.list_calls(episode_id=filled.store.list_episodes(run_id)[0].id)
    assert stored and len(re.findall(r'<tr><td class="num">\d+</td><td class="num">', episode)) == len(stored)
    first = stored[0]
    assert f'<td class="num">{first["input_tokens"]}</td>' in episode
    assert first["finish_reason"] and first["finish_reason"] in episode
    assert html.escape(first["messages"][-1]["content"][:60]) in episode  # the prompt sent
    assert html.escape(first["response"][:40]) in episode  # the fake's echo
    # the solver's episodes made no calls
    solver_ep = web.get(f"/runs/{filled.runs['wilt_solver']}/episodes/0").text
    assert "No model calls" in solver_ep and "Transcript" in solver_ep


def _drawn(web: TestClient, url: str) -> Any:
    """A figure as a browser gets it: a 202 ("still drawing", on a loaded machine) is asked again after its
    Retry-After, as the page's script does, a bounded number of times."""
    for _ in range(30):
        response = web.get(url)
        if response.status_code != 202:
            return response
        time.sleep(float(response.headers["Retry-After"]))
    raise AssertionError(f"{url} still drawing after 30 tries")


def test_plots_are_drawn_and_served(web: TestClient, filled: Filled) -> None:
    aiw = filled.runs["aiw_model"]
    page = web.get(f"/runs/{aiw}").text
    srcs = re.findall(r'<img src="([^"]+)"', page)
    assert srcs and all(s.startswith(f"/runs/{aiw}/plots/") and s.endswith(".png") for s in srcs)
    assert {s.rsplit("/", 1)[1] for s in srcs} >= {"accuracy.png", "correct-by-variation.png"}
    png = _drawn(web, srcs[0])
    assert png.status_code == 200 and png.content[:8] == b"\x89PNG\r\n\x1a\n"
    # each figure's SVG is linked beside its PNG, and served as SVG
    svgs = re.findall(r'<a href="([^"]+\.svg)">SVG</a>', page)
    assert sorted(s.removesuffix(".svg") for s in svgs) == sorted(s.removesuffix(".png") for s in srcs)
    svg = _drawn(web, svgs[0])
    assert svg.status_code == 200 and svg.headers["content-type"].startswith("image/svg+xml")
    assert b"<svg" in svg.content
    assert web.get(f"/runs/{aiw}/plots/..%2Fbrowse.db").status_code == 404
    # a family with no figures of its own still has the accuracy figure of its scores
    picnic = re.findall(r'<img src="([^"]+)"', web.get(f"/runs/{filled.runs['picnic_a']}").text)
    assert [s.rsplit("/", 1)[1] for s in picnic] == ["accuracy.png"]
    # a model's run draws its finished solver baseline beside it
    wilt = web.get(f"/runs/{filled.runs['wilt_model']}").text
    reduction = next(s for s in re.findall(r'<img src="([^"]+)"', wilt) if s.endswith("/reduction.png"))
    svg_text = _drawn(web, reduction.removesuffix(".png") + ".svg").text
    assert "solver (reference)" in svg_text and "vllm:fake-model" in svg_text


# -- the runs list: filters, sorting, errors -------------------------------------------------------------
def test_filters(web: TestClient, filled: Filled) -> None:
    runs = filled.store.list_runs()
    picnic = web.get("/runs?family=picnic").text
    assert sorted(rows(picnic)) == sorted(r.id for r in runs if r.task == "picnic")
    assert '<option value="picnic" selected>' in picnic
    model = web.get("/runs?model=FAKE").text  # part of the name, any case
    fake = sorted(r.id for r in runs if r.model == "vllm:fake-model")
    assert sorted(rows(model)) == fake and len(fake) == 3  # WILT, AIW, Dynamic Picnic
    both = web.get("/runs?family=wilt&model=solver").text
    assert sorted(rows(both)) == sorted([filled.runs["wilt_solver"], filled.runs["wilt_baseline"]])
    running = web.get("/runs?status=running").text
    assert sorted(rows(running)) == sorted(r.id for r in runs if r.status == "running")
    assert len(rows(running)) >= len(filled.sessions)
    today = datetime.now(UTC).date()
    assert len(rows(web.get(f"/runs?from={today - timedelta(days=1)}&to={today}").text)) == len(runs)
    assert rows(web.get(f"/runs?from={today + timedelta(days=1)}").text) == []
    assert rows(web.get(f"/runs?to={today - timedelta(days=1)}").text) == []


def test_sorting(web: TestClient, filled: Filled) -> None:
    runs = filled.store.list_runs()
    assert rows(web.get("/runs").text) == sorted((r.id for r in runs), reverse=True)  # newest first
    assert rows(web.get("/runs?sort=id&order=asc").text) == sorted(r.id for r in runs)
    # accuracy over the episodes that ended, as `wason runs` counts it; a run with none ended sorts last
    ended = {
        r.id: [e for e in filled.store.list_episodes(r.id) if e.status in ("completed", "errored")]
        for r in runs
    }
    accuracy = {i: sum(bool(e.success) for e in eps) / len(eps) if eps else None for i, eps in ended.items()}
    valued = [v for v in accuracy.values() if v is not None]
    blanks = [None] * (len(accuracy) - len(valued))
    asc = rows(web.get("/runs?sort=accuracy&order=asc").text)
    assert [accuracy[i] for i in asc] == sorted(valued) + blanks
    desc = rows(web.get("/runs?sort=accuracy").text)
    assert [accuracy[i] for i in desc] == sorted(valued, reverse=True) + blanks
    by_family = rows(web.get("/runs?sort=family&order=asc").text)
    tasks = {r.id: r.task for r in runs}
    assert [tasks[i] for i in by_family] == sorted(tasks.values())
    # the header links keep the filters and flip the order of the column sorted by
    page = web.get("/runs?family=picnic&sort=episodes&order=desc").text
    assert 'href="/runs?family=picnic&amp;sort=episodes&amp;order=asc"' in page


@pytest.mark.parametrize(
    ("query", "says"),
    [
        ("family=nope", "family: no family named 'nope'"),
        ("status=sleeping", "status: 'sleeping' is not a run status"),
        ("from=2026-13-01", "from: '2026-13-01' is not a date (YYYY-MM-DD)"),
        ("to=yesterday", "to: 'yesterday' is not a date"),
        ("from=2026-02-02&to=2026-01-01", "from: 2026-02-02 is after to: 2026-01-01"),
        ("sort=rule", "sort: 'rule' is not a column"),
        ("order=up", "order: 'up' is neither asc nor desc"),
        ("page=0", "page: '0' is not a page number"),
        ("colour=red", "colour: not a filter of the runs list"),
    ],
)
def test_bad_filters_are_one_clear_error(web: TestClient, query: str, says: str) -> None:
    r = web.get(f"/runs?{query}")
    assert r.status_code == 400 and r.headers["content-type"].startswith("text/html")
    assert one_error(r.text).startswith(says)
    assert rows(r.text) == [] and '<form class="filters"' in r.text


def test_unknown_runs_and_episodes_are_404_pages(web: TestClient, filled: Filled) -> None:
    run_id = filled.runs["wilt_solver"]
    for url, says in [
        ("/runs/99999", "there is no run 99999"),
        ("/runs/abc", "there is no run 'abc'"),
        (f"/runs/{run_id}/episodes/99", f"run {run_id} has no episode 99 (its episodes are 0..2)"),
        (f"/runs/{run_id}/episodes/-1", "there is no episode '-1'"),
        ("/runs/99999/episodes/0", "there is no run 99999"),
        (f"/runs/{run_id}/plots/x.png", f"run {run_id} has no plot 'x.png'"),
    ]:
        r = web.get(url)
        assert r.status_code == 404, url
        assert one_error(r.text).startswith(says), url


# -- compare ----------------------------------------------------------------------------------------------
def test_compare_runs_of_one_family(web: TestClient, filled: Filled) -> None:
    a, b = filled.runs["picnic_a"], filled.runs["picnic_b"]
    page = web.get(f"/compare?runs={a},{b}")
    assert page.status_code == 200
    text = page.text
    assert "2 runs side by side" in text
    assert text.count('<div class="results">') == 2  # each run's summary, as HTML tables
    # the table across runs names the columns of the two levels, and the differing settings are listed
    assert "SP L1" in text and "SP L2" in text and 'id="grid"' in text
    assert "<th>level.0</th>" not in text and "level" in text
    # one table of the two runs, the family's columns with their intervals
    table = text.split('id="comparison"')[1].split("</table>")[0]
    assert table.count("<tr>") == 3 and "<th>Win rate</th>" in table and "<th>Truncated</th>" in table
    assert f'<td class="num">{a}</td>' in table and f'<td class="num">{b}</td>' in table
    # the two runs played different levels: no items in common, and the page says so instead of a pairing
    assert (
        'id="paired"' not in text
        and f"run {b} (solver (reference) (run {b})) shares no items with run {a}" in text
    )
    # the check boxes of the runs list send runs=1&runs=2: the same page
    assert web.get(f"/compare?runs={a}&runs={b}").text == text


@pytest.mark.parametrize(
    ("query", "status", "says"),
    [
        (
            "runs=WILT_SOLVER,PICNIC_A",
            400,
            "these runs are of different families (run WILT_SOLVER (wilt), run",
        ),
        ("runs=PICNIC_A", 400, "runs: give at least two runs to compare"),
        ("", 400, "runs: give the runs to compare"),
        ("runs=PICNIC_A,x", 400, "runs: 'x' is not a run id"),
        ("runs=PICNIC_A,99999", 404, "there is no run 99999"),
    ],
)
def test_compare_refuses(web: TestClient, filled: Filled, query: str, status: int, says: str) -> None:
    for name, run_id in filled.runs.items():
        query, says = query.replace(name.upper(), str(run_id)), says.replace(name.upper(), str(run_id))
    r = web.get(f"/compare?{query}")
    assert r.status_code == status
    assert one_error(r.text).startswith(says)


# -- a game not over --------------------------------------------------------------------------------------
def hidden_texts(store: Store, episode_id: int) -> list[str]:
    """What a page must not show of an ongoing game: its item key and the text of every key the family does
    not make public (leaving out values that are the run's public configuration, like a level)."""
    episode = store.get_episode(episode_id)
    run = store.get_run(episode.run_id)
    fam = registry.get(run.task)
    public = set(fam.public(episode.item))
    config = json.dumps(run.config)

    def strings(value: Any) -> Iterator[str]:
        if isinstance(value, str):
            yield value
        elif isinstance(value, dict):
            for v in value.values():
                yield from strings(v)
        elif isinstance(value, list):
            for v in value:
                yield from strings(v)

    found = [episode.item_key]
    for key, value in episode.item.items():
        if key not in public:
            found += [s for s in strings(value) if len(s) >= 4 and json.dumps(s) not in config]
    return found


def test_an_ongoing_game_shows_no_hidden_part(web: TestClient, filled: Filled) -> None:
    wilt = filled.sessions["wilt"]
    r = web.post(
        f"/api/sessions/{wilt}/step", json={"action": {"type": "ProposeTest", "values": ["1", "2", "3"]}}
    )
    assert r.status_code == 200, r.text
    checked = 0
    for name, episode_id in filled.sessions.items():
        episode = filled.store.get_episode(episode_id)
        assert episode.status == "running", name
        secrets = hidden_texts(filled.store, episode_id)
        assert secrets, name
        run_page = web.get(f"/runs/{episode.run_id}").text
        episode_page = web.get(f"/runs/{episode.run_id}/episodes/{episode.index}").text
        assert "This game is not over" in episode_page
        for url, text in [("run", run_page), ("episode", episode_page), ("list", web.get("/runs").text)]:
            for secret in secrets:
                assert secret not in html.unescape(text), (name, url, secret)
                checked += 1
    assert checked > 3 * len(filled.sessions)
    # the turns so far are shown: the wilt test proposed above and the game's answer to it
    wilt_ep = filled.store.get_episode(wilt)
    page = web.get(f"/runs/{wilt_ep.run_id}/episodes/0").text
    assert "ProposeTest" in page and html.escape(filled.store.list_turns(wilt)[0]["feedback"][:30]) in page


# -- a real browser ---------------------------------------------------------------------------------------
def test_browse_and_the_static_report_in_chromium(filled: Filled, browser_page: Any, tmp_path: Path) -> None:
    live = start_live_server(filled.store)
    page = browser_page
    try:
        page.goto(f"{live.url}/runs")
        assert page.locator("tr[data-run]").count() == len(filled.store.list_runs())
        page.click("a.sort[data-key=accuracy]")
        page.wait_for_url("**/runs?sort=accuracy*")
        run_id = filled.runs["wilt_model"]
        page.goto(f"{live.url}/runs?family=wilt")
        page.click(f'tr[data-run="{run_id}"] td.num a')
        page.wait_for_url(f"**/runs/{run_id}")
        table = page.locator("table.results").first
        assert table.is_visible()
        # a click on a number column's header sorts the rows, best first; a second click reverses them
        header = page.locator('table.results th[data-kind="rate"]').first
        header.click()
        assert header.get_attribute("aria-sort") == "descending"
        header.click()
        assert header.get_attribute("aria-sort") == "ascending"
        page.click("#episodes a >> nth=0")
        page.wait_for_url(f"**/runs/{run_id}/episodes/0")
        assert page.locator("#calls").is_visible()
        # compare: tick two picnic runs in the list
        page.goto(f"{live.url}/runs?family=picnic")
        for key in ("picnic_a", "picnic_b"):
            page.check(f'input[name=runs][value="{filled.runs[key]}"]')
        page.click("text=Compare selected")
        page.wait_for_url("**/compare?*")
        assert page.locator("#grid").is_visible() and page.locator("div.results").count() == 2
    finally:
        live.stop()
    out = tmp_path / "report"
    assert (
        main(
            [
                "report",
                str(filled.runs["picnic_a"]),
                str(filled.runs["picnic_b"]),
                "--db",
                str(filled.path),
                "-o",
                str(out),
            ]
        )
        == 0
    )
    requests: list[str] = []
    page.on("request", lambda req: requests.append(req.url))
    page.goto((out / "index.html").as_uri())
    assert page.locator("tr[data-run]").count() == 2
    page.click(f'tr[data-run="{filled.runs["picnic_a"]}"] a')
    assert page.url.endswith(f"/runs/{filled.runs['picnic_a']}.html")
    page.click("#episodes a >> nth=0")
    assert page.url.endswith(f"/runs/{filled.runs['picnic_a']}/episodes/0.html")
    assert page.evaluate("getComputedStyle(document.body).margin") == "0px"  # the copied stylesheet applies
    page.click('header nav a[href$="compare.html"]')
    assert page.url.endswith("/compare.html") and page.locator("#grid").is_visible()
    assert requests and all(u.startswith("file://") for u in requests)


def test_a_run_under_way_is_summarised_from_its_finished_games(web: TestClient, filled: Filled) -> None:
    """A run with one game over and one still to play (a model run under way): Static Picnic's report needs every
    game's rule, so the summary counts the finished game and says so; the other game's rule is on no page."""
    done = filled.store.get_run(filled.runs["picnic_a"])
    episodes = filled.store.list_episodes(done.id)
    run_id = filled.store.create_run(
        task=done.task,
        player=done.player,
        model=done.model,
        config=done.config,
        items=[(e.item_key, e.item) for e in episodes],
    )
    first = filled.store.list_episodes(run_id)[0]
    filled.store.start_episode(first.id)
    filled.store.finish_episode(
        first.id, status="completed", success=episodes[0].success, metrics=episodes[0].metrics
    )
    waiting = filled.store.list_episodes(run_id)[1]
    assert waiting.status == "pending" and waiting.item["rule"]["text"] != first.item["rule"]["text"]
    page = web.get(f"/runs/{run_id}").text
    assert "This summary counts only the episodes that are over" in page and '<div class="results">' in page
    assert first.item["rule"]["text"] in html.unescape(page)  # the finished game's rule is its result
    for secret in hidden_texts(filled.store, waiting.id):
        assert secret not in html.unescape(page), secret
    assert "(hidden until the game ends)" in page


def test_a_transcript_the_family_cannot_draw_shows_the_turns(
    web: TestClient, filled: Filled, monkeypatch: pytest.MonkeyPatch
) -> None:
    fam = registry.get("wilt")

    def broken(data: dict[str, Any], run: Any) -> Any:
        raise KeyError("a key an old record does not have")

    monkeypatch.setattr(fam, "messages", broken)
    run_id = filled.runs["wilt_solver"]
    r = web.get(f"/runs/{run_id}/episodes/0")
    assert r.status_code == 200
    turns = filled.store.list_turns(filled.store.list_episodes(run_id)[0].id)
    assert turns and r.text.count('<tr><td class="num">') == len(turns)  # one row per turn
    assert html.escape(turns[0]["feedback"][:30]) in r.text
