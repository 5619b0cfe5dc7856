"""The results viewer a researcher uses instead of ``inspect view`` (issue 38): a WILT run of 50 episodes written
through the Store API (real games, model replies and calls, some episodes errored, some replies cut off), its
episode table filtered and searched in the database, the episode page as a chat with each call's numbers, figures
that no page waits for, the favicon, the runs list's duration and tokens, hostile parameters answered 4xx naming
the field; in Chromium: an errored episode's reason in two clicks, a word of a model reply found by search, and
the run and episode pages readable at 390 px."""

from __future__ import annotations

import html
import re
import shutil
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.server.web.conftest import start_live_server
from wason.core import registry
from wason.core.family import EpisodeContext
from wason.core.session import to_json
from wason.server import create_app
from wason.server.web import browse
from wason.store import Store

WORD = "xylophone"
"""A word that occurs only in model replies (of the episodes in ``Wilt50.with_word``)."""
ERROR = "endpoint failed after 6 attempts: HTTP 503 Service Unavailable"
ERRORED = (3, 17, 29, 41)
TRUNCATED = (5, 23)
WITH_WORD = (8, 33)


@dataclass
class Wilt50:
    path: Path
    store: Store
    run: int


def _play(store: Store, run_id: int, config: Any, episode: Any, fam: Any, right: int = 2) -> None:
    """One WILT game of a model: a few tests, then a guess (right on even indexes), each reply a model call;
    or an errored episode (its endpoint failed after its retries), or one whose replies were cut off."""
    i = episode.index
    store.start_episode(episode.id)
    game = fam.game(config, episode.item, EpisodeContext())
    game.start()
    n_tests = 1 + i % 4
    for t in range(n_tests + 1):
        guess = t == n_tests
        if guess:
            expression = episode.item["rule"] if i % right == 0 else "lambda x, y, z: x == 7"
            action = {"type": "FinalGuess", "expression": expression}
            reply = f"Final guess: {expression}"
        else:
            action = {"type": "ProposeTest", "values": [str(t), str(t + i), str(2 * t)]}
            reply = f"Test: ({t}, {t + i}, {2 * t})"
        if i in WITH_WORD and t == 1:
            reply = f"Thinking like a {WORD} player.\n{reply}"
        if i in ERRORED and t == 1:
            store.record_call(_call(run_id, episode.id, t, None, error=ERROR, attempts=6))
            store.finish_episode(episode.id, status="errored", error=ERROR)
            return
        observation = game.step(fam.actions.decode(action))
        store.add_turn(
            episode.id,
            t,
            action=action,
            observation=to_json(observation),
            reply=reply,
            feedback="True" if t % 2 else "False",
        )
        finish = "length" if i in TRUNCATED and t == 0 else "stop"
        store.record_call(_call(run_id, episode.id, t, reply, finish=finish))
    outcome = game.outcome()
    assert outcome is not None
    store.finish_episode(episode.id, status="completed", success=outcome.success, metrics=outcome.metrics)


def _call(
    run_id: int,
    episode_id: int,
    turn: int,
    reply: str | None,
    *,
    finish: str = "stop",
    error: str | None = None,
    attempts: int = 1,
) -> dict[str, Any]:
    return {
        "run_id": run_id,
        "episode_id": episode_id,
        "turn": turn,
        "model": "vllm:fake-model",
        "endpoint": "http://127.0.0.1:9/v1",
        "messages": [{"role": "user", "content": f"Turn {turn}: propose a test."}],
        "params": {},
        "response": reply,
        "finish_reason": None if error else finish,
        "input_tokens": None if error else 300 + turn,
        "output_tokens": None if error else 20 + turn,
        "latency_s": None if error else 0.25 + turn / 100,
        "attempts": attempts,
        "errors": [error] * attempts if error else None,
        "error": error,
        "cached": turn == 0,
    }


def fill(store: Store, right: int = 2) -> int:
    fam = registry.get("wilt")
    fields = fam.config_type.with_play_defaults({})
    config = fam.config_type.model_validate({**fields, "player": "llm", "model": "vllm:fake-model"})
    items = fam.items(config)
    assert len(items) == 50
    run_id = store.create_run(
        task="wilt", player="llm", model="vllm:fake-model", config=config.model_dump(mode="json"), items=items
    )
    for episode in store.list_episodes(run_id):
        _play(store, run_id, config, episode, fam, right)
    store.set_run_status(run_id, "incomplete")
    return run_id


@pytest.fixture(scope="module")
def wilt50(tmp_path_factory: pytest.TempPathFactory, empty_store: Path) -> Iterator[Wilt50]:
    path = tmp_path_factory.mktemp("viewer") / "viewer.db"
    shutil.copyfile(empty_store, path)
    store = Store(str(path))
    run_id = fill(store)
    yield Wilt50(path, store, run_id)
    store.close()


@pytest.fixture(scope="module")
def web(wilt50: Wilt50) -> Iterator[TestClient]:
    with TestClient(create_app(wilt50.store), base_url="http://127.0.0.1") as client:
        yield client


def shown(page: str) -> list[int]:
    """The episodes of a run page's table, in page order."""
    return [int(x) for x in re.findall(r'<tr data-episode="(\d+)"', page)]


def one_error(page: str) -> str:
    errors = re.findall(r'<p class="error" id="page-error">([^<]*)</p>', page)
    assert len(errors) == 1, page[-2000:]
    assert "Traceback" not in page
    return html.unescape(errors[0])


# -- the episode table: filters and search ----------------------------------------------------------------
def test_the_episode_table_filters(web: TestClient, wilt50: Wilt50) -> None:
    run = wilt50.run
    episodes = wilt50.store.list_episodes(run)
    page = web.get(f"/runs/{run}").text
    assert shown(page) == list(range(50))
    assert "50 of 50 episodes" in page
    # the one-click filters carry their counts
    assert re.search(r'data-filter="errored">errored <span class="n">4</span>', page)
    assert shown(web.get(f"/runs/{run}?outcome=errored").text) == list(ERRORED)
    succeeded = [e.index for e in episodes if e.success]
    assert succeeded and shown(web.get(f"/runs/{run}?outcome=succeeded").text) == succeeded
    failed = [e.index for e in episodes if e.status == "completed" and e.success is False]
    assert failed and shown(web.get(f"/runs/{run}?outcome=failed").text) == failed
    assert shown(web.get(f"/runs/{run}?outcome=unfinished").text) == []
    assert shown(web.get(f"/runs/{run}?error=yes").text) == list(ERRORED)
    assert len(shown(web.get(f"/runs/{run}?error=no").text)) == 50 - len(ERRORED)
    assert shown(web.get(f"/runs/{run}?truncated=yes").text) == list(TRUNCATED)
    turns = {e.index: len(wilt50.store.list_turns(e.id)) for e in episodes}
    assert shown(web.get(f"/runs/{run}?turns_min=4").text) == [i for i, n in turns.items() if n >= 4]
    assert shown(web.get(f"/runs/{run}?turns_min=2&turns_max=3").text) == [
        i for i, n in turns.items() if 2 <= n <= 3
    ]
    assert shown(web.get(f"/runs/{run}?item=full/12").text) == [11]  # item keys full/1..full/50, any case
    assert shown(web.get(f"/runs/{run}?item=FULL/12").text) == [11]
    both = web.get(f"/runs/{run}?outcome=errored&turns_max=1").text
    assert shown(both) == [i for i in ERRORED if turns[i] <= 1]
    # the table shows each episode's turns, tokens and truncation, and the error itself
    row = page.split('<tr data-episode="3"')[1].split("</tr>")[0]
    assert html.escape(ERROR) in row
    row = page.split('<tr data-episode="5"')[1].split("</tr>")[0]
    assert '<td class="num" data-sort="1">1</td>' in row  # one reply cut off


def test_the_table_shows_an_errors_first_line_and_its_page_all_of_it() -> None:
    assert browse._first_line("one line") == "one line"
    assert (
        browse._first_line("Traceback (most recent call last):\n  File x")
        == "Traceback (most recent call last): …"
    )
    long = "y" * (browse.ERROR_CHARS + 50)
    assert browse._first_line(long) == "y" * browse.ERROR_CHARS + " …"
    assert browse._first_line(None) is None


def test_search_finds_words_of_model_replies_in_the_database(web: TestClient, wilt50: Wilt50) -> None:
    run = wilt50.run
    page = web.get(f"/runs/{run}?q={WORD}").text
    assert shown(page) == list(WITH_WORD)
    assert f'href="/runs/{run}/episodes/{WITH_WORD[0]}#turn-1"' in page  # the link opens the turn
    assert shown(web.get(f"/runs/{run}?q={WORD.upper()}").text) == list(WITH_WORD)
    assert shown(web.get(f"/runs/{run}?q={WORD}&outcome=succeeded").text) == [
        i for i in WITH_WORD if i % 2 == 0
    ]
    assert shown(web.get(f"/runs/{run}?q=nowhere-to-be-found").text) == []
    everywhere = web.get(f"/search?q={WORD}")
    assert everywhere.status_code == 200
    links = re.findall(rf'href="/runs/{run}/episodes/(\d+)#turn-1"', everywhere.text)
    assert sorted(int(x) for x in links) == list(WITH_WORD)


@pytest.mark.parametrize(
    "q",
    [
        '"',
        'xylophone"',
        "NEAR(a b)",
        "a OR",
        "*",
        "col:x",
        "^x",
        "(",
        ")",
        "AND",
        "-",
        "'",
        "\\",
        "{a b}",
        "x +",
    ],
)
def test_search_text_is_never_query_syntax(web: TestClient, wilt50: Wilt50, q: str) -> None:
    for url in (f"/runs/{wilt50.run}", "/search"):
        r = web.get(url, params={"q": q})
        assert r.status_code == 200, (url, q, r.text[-500:])
        assert "Traceback" not in r.text


@pytest.mark.parametrize(
    ("query", "says"),
    [
        ("outcome=won", "outcome: 'won' is not an outcome (one of: succeeded, failed, errored, unfinished)"),
        ("error=maybe", "error: 'maybe' is neither yes nor no"),
        ("truncated=1", "truncated: '1' is neither yes nor no"),
        ("turns_min=abc", "turns_min: 'abc' is not a number of turns"),
        ("turns_max=-1", "turns_max: '-1' is not a number of turns"),
        ("turns_min=99999999999999999999", "turns_min: '99999999999999999999' is not a number of turns"),
        ("turns_min=5&turns_max=2", "turns_min: 5 is more than turns_max: 2"),
        ("item=" + "x" * 101, "item: at most 100 characters (got 101)"),
        ("q=" + "w" * 201, "q: at most 200 characters (got 201)"),
        ("q=a%00b", "q: a control character cannot be searched for"),
        ("q=" + "+".join("abcdefghijklm"), "q: at most 12 words"),
        ("colour=red", "colour: not a filter of a run's episodes"),
    ],
)
def test_bad_filters_are_a_400_naming_the_field(
    web: TestClient, wilt50: Wilt50, query: str, says: str
) -> None:
    r = web.get(f"/runs/{wilt50.run}?{query}")
    assert r.status_code == 400 and r.headers["content-type"].startswith("text/html")
    assert one_error(r.text).startswith(says)
    assert shown(r.text) == [] and 'class="filters episode-filters"' in r.text  # the form, to fix it


@pytest.mark.parametrize(
    ("query", "says"),
    [
        ("q=" + "w" * 201, "q: at most 200 characters"),
        ("q=%01", "q: a control character"),
        ("run=1", "run: not"),
    ],
)
def test_bad_searches_are_a_400_naming_the_field(web: TestClient, query: str, says: str) -> None:
    r = web.get(f"/search?{query}")
    assert r.status_code == 400
    assert one_error(r.text).startswith(says)


# -- the episode page -------------------------------------------------------------------------------------
def test_the_episode_page_is_a_chat_with_each_calls_numbers(web: TestClient, wilt50: Wilt50) -> None:
    run = wilt50.run
    episode = wilt50.store.list_episodes(run)[WITH_WORD[0]]
    page = web.get(f"/runs/{run}/episodes/{episode.index}").text
    chat = page.split('id="chat"')[1].split("<h2>")[0]
    assert '<details class="message system"' in chat  # the system prompt, folded
    assert 'id="turn-1"' in chat and WORD in chat
    calls = wilt50.store.list_calls(episode_id=episode.id)
    for c in calls:
        block = chat.split(f'data-call="{c["id"]}"')[1].split("</div>")[0]
        assert f"tokens {c['input_tokens']} in, {c['output_tokens']} out" in block
        assert f"{c['latency_s']:.2f} s" in block and f"finish {c['finish_reason']}" in block
        assert "1 attempt" in block and ("cache hit" if c["cached"] else "cache miss") in block
    # the game is over: its rule is shown, in the transcript's title above the chat
    assert html.escape(episode.item["rule"]) in page.split('id="chat-title"')[1].split("</p>")[0]
    errored = web.get(f"/runs/{run}/episodes/{ERRORED[0]}").text
    reason = errored.split('id="error-reason"')[1].split("</p>")[0]
    assert html.escape(ERROR) in reason


def test_a_finished_runs_report_is_kept_until_the_run_changes(
    web: TestClient, wilt50: Wilt50, monkeypatch: pytest.MonkeyPatch
) -> None:
    drawn: list[int] = []
    real = browse.results_of

    def counted(fam: Any, reader: Any, ids: Any) -> Any:
        drawn.append(ids[0])
        return real(fam, reader, ids)

    monkeypatch.setattr(browse, "results_of", counted)
    other = fill(wilt50.store, right=3)
    wilt50.store.set_run_status(other, "completed")
    try:
        first = web.get(f"/runs/{other}").text
        assert web.get(f"/runs/{other}?outcome=errored").status_code == 200
        assert drawn == [other]  # the second page used the kept report
        wilt50.store.set_run_status(other, "running")  # resumed: its report follows it again
        web.get(f"/runs/{other}")
        web.get(f"/runs/{other}")
        assert drawn == [other] * 3
        wilt50.store.set_run_status(other, "completed")  # over again, at another time: a new report, kept
        assert (
            web.get(f"/runs/{other}").text.split('<div class="summary">')[1]
            == first.split('<div class="summary">')[1]
        )
        web.get(f"/runs/{other}")
        assert drawn == [other] * 4
    finally:
        wilt50.store.delete_run(other)


# -- figures never hold a page ------------------------------------------------------------------------------
def test_no_page_waits_for_its_figures(
    wilt50: Wilt50, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, empty_store: Path
) -> None:
    """The drawing is held: the run page is answered with its figures linked, the figure says it is still
    being drawn (202) and is served once drawn."""
    release, drawing = threading.Event(), threading.Event()
    real = browse.plots_into

    def held(store: Store, run: Any, directory: Path) -> list[Path]:
        drawing.set()
        release.wait(timeout=60)
        return real(store, run, directory)

    monkeypatch.setattr(browse, "plots_into", held)
    monkeypatch.setattr(browse, "PLOT_WAIT", 0.2)
    with TestClient(create_app(wilt50.store), base_url="http://127.0.0.1") as client:
        try:
            page = client.get(f"/runs/{wilt50.run}")
            assert page.status_code == 200
            figures = re.findall(r'<img src="([^"]+)"', page.text)
            assert f"/runs/{wilt50.run}/plots/accuracy.png" in figures
            assert drawing.wait(timeout=30)  # the drawing began after the page, elsewhere
            again = client.get(f"/runs/{wilt50.run}")  # a page while the drawing is held
            assert again.status_code == 200
            waiting = client.get(figures[0])
            assert waiting.status_code == 202 and waiting.headers["retry-after"] == "2"
            assert "still being drawn" in waiting.text
            assert (
                client.head(figures[0]).status_code == 202
            )  # what the page's script asks before trying again
        finally:
            release.set()
        monkeypatch.setattr(browse, "PLOT_WAIT", 60.0)
        png = client.get(figures[0])
        assert png.status_code == 200 and png.content.startswith(b"\x89PNG")
        assert client.head(figures[0]).status_code == 200


# -- compare ----------------------------------------------------------------------------------------------
def test_compare_labels_its_numbers_and_says_what_the_paired_test_means(
    web: TestClient, wilt50: Wilt50
) -> None:
    other = fill(wilt50.store, right=1)  # every guess right
    try:
        page = web.get(f"/compare?runs={wilt50.run},{other}")
        assert page.status_code == 200
        numbers = html.unescape(page.text.split('id="numbers"')[1].split("</table>")[0])
        for raw in ("table.", "summary.", ".k<", ".n<", "accuracy.k"):
            assert raw not in numbers, raw
        labels = re.findall(r"<tr[^>]*><th>([^<]+)<", numbers)
        assert "Accuracy" in labels and "Errored episodes" in labels and "Tokens in" in labels
        # a rate as every report writes one: percent [95% Wilson interval] k/n
        assert re.search(r"<td class=\"num\">\d+% \[\d+-\d+\] \d+/\d+</td>", numbers)
        words = html.unescape(page.text.split('id="paired-words"')[1].split("</ul>")[0])
        assert f"run {other}" in words and "succeeded on" in words and "McNemar" in words
        assert "percentage points more" in words and "the runs differ" in words
    finally:
        wilt50.store.delete_run(other)


# -- small things -----------------------------------------------------------------------------------------
def test_favicon(web: TestClient, wilt50: Wilt50) -> None:
    icon = web.get("/favicon.ico")
    assert icon.status_code == 200 and icon.headers["content-type"].startswith("image/svg+xml")
    assert b"<svg" in icon.content
    for url in ("/", "/runs", f"/runs/{wilt50.run}", f"/runs/{wilt50.run}/episodes/0", "/search"):
        page = web.get(url).text
        assert '<link rel="icon" href="/static/favicon.svg" type="image/svg+xml">' in page, url
    assert web.get("/static/favicon.svg").status_code == 200


def test_the_runs_list_shows_duration_and_tokens(web: TestClient, wilt50: Wilt50) -> None:
    done = wilt50.store.create_run(
        task="wilt", player="solver", model=None, config={"task": "wilt"}, items=[]
    )
    wilt50.store.set_run_status(done, "completed")
    page = web.get("/runs").text
    for key, label in (("duration", "took"), ("tokens", "tokens")):
        assert f'<a href="/runs?sort={key}" class="sort" data-key="{key}">{label}</a>' in page
    row = page.split(f'<tr data-run="{wilt50.run}">')[1].split("</tr>")[0]
    totals = wilt50.store.call_totals(wilt50.run)
    assert totals["output_tokens"] < 10_000 <= totals["input_tokens"] < 100_000  # written as the CLI does
    assert f"{totals['input_tokens'] / 1000:.1f}k in, {totals['output_tokens']} out" in row
    assert '<td class="num">-</td>' in row  # not finished: no duration
    finished = page.split(f'<tr data-run="{done}">')[1].split("</tr>")[0]
    assert re.search(r'<td class="num">\d+\.\ds</td>', finished) and '<td class="num">-</td>' in finished
    assert rows_of(web.get("/runs?sort=tokens").text)[0] == wilt50.run  # the most tokens first
    by_duration = rows_of(web.get("/runs?sort=duration").text)
    assert by_duration[0] == done  # the only run with a duration; the others after it
    wilt50.store.delete_run(done)


def rows_of(page: str) -> list[int]:
    return [int(x) for x in re.findall(r'<tr data-run="(\d+)">', page)]


# -- PostgreSQL ---------------------------------------------------------------------------------------------
def test_the_viewer_filters_and_searches_a_postgres_store() -> None:
    """The same pages over PostgreSQL (its full-text search, GIN indexes): a throwaway server of this machine."""
    from tests.postgres import PostgresUnavailable, ThrowawayPostgres

    server = ThrowawayPostgres()
    try:
        url = server.start()
    except PostgresUnavailable as exc:
        pytest.skip(str(exc))
    try:
        store = Store(url)
        run = fill(store)
        with TestClient(create_app(store), base_url="http://127.0.0.1") as client:
            assert shown(client.get(f"/runs/{run}?q={WORD}").text) == list(WITH_WORD)
            assert shown(client.get(f"/runs/{run}?q={WORD.upper()}&outcome=succeeded").text) == [
                i for i in WITH_WORD if i % 2 == 0
            ]
            assert shown(client.get(f"/runs/{run}?outcome=errored").text) == list(ERRORED)
            assert shown(client.get(f"/runs/{run}?truncated=yes").text) == list(TRUNCATED)
            assert shown(client.get(f"/runs/{run}?item=FULL/12").text) == [11]
            for q in ('"', "a & b", "!x", "x:*", "(", "<->", "'"):
                r = client.get(f"/runs/{run}", params={"q": q})
                assert r.status_code == 200 and "Traceback" not in r.text, q
            found = client.get(f"/search?q={WORD}").text
            assert sorted(int(x) for x in re.findall(rf"/runs/{run}/episodes/(\d+)#", found)) == list(
                WITH_WORD
            )
        store.close()
    finally:
        server.stop()


# -- in Chromium ------------------------------------------------------------------------------------------
def test_an_errored_episode_is_two_clicks_away_and_search_finds_a_reply(
    wilt50: Wilt50, browser_page: Any
) -> None:
    live = start_live_server(wilt50.store)
    page = browser_page
    try:
        page.goto(f"{live.url}/runs/{wilt50.run}")
        clicks = 0
        page.click('nav.quick.top a[data-filter="errored"]')  # at the top of the page, beside the run's name
        clicks += 1
        page.wait_for_url("**outcome=errored*")
        rows = page.locator("#episodes tbody tr")
        assert rows.count() == len(ERRORED)
        assert all(ERROR in rows.nth(i).inner_text() for i in range(rows.count()))
        page.click("#episodes tbody tr >> nth=0 >> a")
        clicks += 1
        page.wait_for_url(f"**/runs/{wilt50.run}/episodes/{ERRORED[0]}")
        assert clicks == 2
        assert page.locator("#error-reason").is_visible()
        assert ERROR in page.locator("#error-reason").inner_text()
        # search: a word that is only in model replies
        page.goto(f"{live.url}/runs/{wilt50.run}")
        page.fill("#search", WORD)
        page.press("#search", "Enter")
        page.wait_for_url(f"**q={WORD}*")
        rows = page.locator("#episodes tbody tr")
        assert [int(rows.nth(i).get_attribute("data-episode") or -1) for i in range(rows.count())] == list(
            WITH_WORD
        )
        page.click("#episodes tbody tr >> nth=0 >> a")
        page.wait_for_url(f"**/episodes/{WITH_WORD[0]}#turn-1")
        turn = page.locator("#turn-1")
        assert turn.is_visible() and WORD in turn.inner_text()
        # the whole store's search, from the header
        page.click('header nav a[href="/search"]')
        page.fill("#search", WORD)
        page.press("#search", "Enter")
        assert page.locator("#hits tr").count() == 1 + len(WITH_WORD)
    finally:
        live.stop()


def test_a_figure_appears_once_drawn_without_a_reload(
    wilt50: Wilt50, browser_page: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The drawing is held: the page is shown at once with its figures still missing, and each appears when it
    is drawn (the page's script asks again while the server answers 202)."""
    release = threading.Event()
    real = browse.plots_into

    def held(store: Store, run: Any, directory: Path) -> list[Path]:
        release.wait(timeout=60)
        return real(store, run, directory)

    monkeypatch.setattr(browse, "plots_into", held)
    monkeypatch.setattr(browse, "PLOT_WAIT", 0.3)
    live = start_live_server(wilt50.store)
    page = browser_page
    try:
        page.goto(f"{live.url}/runs/{wilt50.run}")
        assert page.locator("#episodes").is_visible()  # the page is there, its figures are not
        figure = page.locator('img[alt="accuracy"]')
        figure.scroll_into_view_if_needed()
        page.wait_for_timeout(800)  # the figure's request was answered 202 meanwhile
        assert figure.evaluate("img => img.naturalWidth") == 0
        release.set()
        page.wait_for_function(
            "() => document.querySelector('img[alt=accuracy]').naturalWidth > 0", timeout=30_000
        )
    finally:
        release.set()
        live.stop()


def _overlaps(page: Any) -> list[str]:
    """Labels and form fields whose boxes intersect (a label may hold its own field)."""
    return list(
        page.evaluate(
            """() => {
          const els = Array.from(document.querySelectorAll('label, input, select, button, textarea'))
            .filter(e => e.offsetParent !== null && e.type !== 'hidden');
          const out = [];
          for (let i = 0; i < els.length; i++) for (let j = i + 1; j < els.length; j++) {
            const a = els[i], b = els[j];
            if (a.contains(b) || b.contains(a)) continue;
            const r = a.getBoundingClientRect(), s = b.getBoundingClientRect();
            if (r.left < s.right - 0.5 && s.left < r.right - 0.5 && r.top < s.bottom - 0.5 && s.top < r.bottom - 0.5)
              out.push([a, b].map(e => e.name || e.textContent.trim().slice(0, 20)).join(' / '));
          }
          return out;
        }"""
        )
    )


def test_run_and_episode_pages_are_readable_at_phone_width(
    wilt50: Wilt50, chromium: Any, tmp_path: Path
) -> None:
    live = start_live_server(wilt50.store)
    context = chromium.new_context(viewport={"width": 390, "height": 844})
    page = context.new_page()
    page.set_default_timeout(10_000)
    try:
        for url in (
            f"/runs/{wilt50.run}",
            f"/runs/{wilt50.run}?outcome=errored",
            f"/runs/{wilt50.run}/episodes/{WITH_WORD[0]}",
            f"/runs/{wilt50.run}/episodes/{ERRORED[0]}",
            "/runs",
            f"/search?q={WORD}",
        ):
            page.goto(live.url + url)
            shot = tmp_path / (re.sub(r"\W+", "_", url) + ".png")
            page.screenshot(path=str(shot), full_page=True)
            width = page.evaluate("document.documentElement.scrollWidth")
            assert width <= 390, (url, width, shot)
            assert _overlaps(page) == [], (url, shot)
            assert page.locator("h1").is_visible()
    finally:
        context.close()
        live.stop()
