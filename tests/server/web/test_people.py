"""The Play and Watch pages speak to a person (issue 38, part 3): a move the game cannot read is refused naming
its field with nothing stored, a wrong guess says so, no option that only a model or a solver reads is offered,
no model instructions are shown, and the Watch page words moves as the Play page does and offers Stop only for
the runs this server plays."""

from __future__ import annotations

import html
import re
from collections.abc import Iterator, Mapping

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from wason.core import registry
from wason.store import Store


@pytest.fixture
def web(app: FastAPI) -> Iterator[TestClient]:
    with TestClient(app, base_url="http://127.0.0.1") as c:
        yield c


def start(web: TestClient, family: str, **fields: str) -> int:
    data = {"family": family, "player": "ada", **({"seed": "1"} if "rule" not in fields else {}), **fields}
    r = web.post("/play", data=data, follow_redirects=False)
    assert r.status_code == 303, r.text[-2000:]
    return int(r.headers["location"].rsplit("/", 1)[1])


def move(web: TestClient, sid: int, name: str, turn: int, **values: str) -> tuple[int, str]:
    data = {"move": name, "turn": str(turn), **{f"f_{k}": v for k, v in values.items()}}
    r = web.post(f"/play/{sid}", data=data, follow_redirects=True)
    return r.status_code, html.unescape(r.text)


def alert(page: str) -> str:
    found = re.search(r'role="alert"[^>]*>([^<]*)<', page)
    return found.group(1) if found else ""


def history(page: str) -> str:
    found = re.search(r'<section class="play-history">(.*?)</section>', page, re.S)
    return re.sub(r"<[^>]+>", " ", found.group(1)) if found else ""


# -- bad input is refused before anything is stored ----------------------------------------------------------
@pytest.mark.parametrize(
    ("family", "name", "values", "field"),
    [
        ("wilt", "test", {"x": "1", "y": "abc", "z": "3"}, "y: "),
        ("wilt", "test", {"x": "1", "y": "2", "z": "1000"}, "z: "),
        ("aiw", "answer", {"answer": "three"}, "answer: "),
        ("picnic", "more", {"n": "lots"}, "n: "),
        ("picnic", "more", {"n": "0"}, "n: "),
        ("lists", "tests", {"list1": "1, 2, x"}, "list 1: "),
        ("math", "more", {"n": "x"}, "n: "),
    ],
)
def test_a_value_the_game_cannot_use_is_refused_naming_its_field_and_stores_nothing(
    web: TestClient, store: Store, family: str, name: str, values: Mapping[str, str], field: str
) -> None:
    sid = start(web, family)
    before = len(store.list_turns(sid))
    status, page = move(web, sid, name, before, **values)
    assert status == 422
    assert alert(page).startswith(field), alert(page)
    assert len(store.list_turns(sid)) == before  # nothing stored, nothing charged
    assert store.get_episode(sid).status == "running"
    # the values typed are shown again, to be corrected
    assert all(f'value="{v}"' in page for v in values.values())


def test_a_wilt_game_refuses_abc_then_counts_only_real_tests_at_the_end(
    web: TestClient, store: Store
) -> None:
    sid = start(web, "wilt", rule="2")  # x < y < z
    status, _ = move(web, sid, "test", 0, x="abc", y="2", z="3")
    assert status == 422 and store.list_turns(sid) == []
    for turn, triple in enumerate((("1", "2", "3"), ("3", "2", "1"), ("1", "1", "1"))):
        status, _ = move(web, sid, "test", turn, x=triple[0], y=triple[1], z=triple[2])
        assert status == 200
    status, page = move(web, sid, "guess", 3, expression="x < y < z")
    ending = re.search(r'<pre id="play-ending">(.*?)</pre>', page, re.S)
    assert ending is not None
    text = ending.group(1)
    # the end agrees with itself: three tests in the verdict and in the hypothesis space's line
    assert "Correct, after 3 tests." in text and "Your 3 tests ruled out" in text
    assert store.get_episode(sid).metrics["invalid_tests"] == 0


# -- a wrong guess says so ------------------------------------------------------------------------------------
def test_a_wrong_static_picnic_guess_says_wrong_and_shows_no_model_text(
    web: TestClient, store: Store
) -> None:
    sid = start(web, "picnic")
    first = web.get(f"/play/{sid}").text
    assert "type 'more N'" not in html.unescape(first) and "Items from the category/categories" not in first
    status, page = move(web, sid, "guess", 0, text="weapon and fruit and turtle")
    assert status == 200
    said = history(page)
    assert "Wrong: that is not the rule." in said
    assert "Requested number of examples exceeds" not in page
    assert 'placeholder="give up"' not in page


@pytest.mark.parametrize(
    ("family", "guess", "follow_up"),
    [
        ("code-functions", "words with a z", ("predicate", {"source": "lambda w: 'z' in w and len(w) > 40"})),
        ("math", "add one", ("expression", {"source": "lambda v, i: v + 100001"})),
    ],
)
def test_a_wrong_guess_checked_by_code_says_wrong(
    web: TestClient, store: Store, family: str, guess: str, follow_up: tuple[str, dict[str, str]]
) -> None:
    sid = start(web, family)
    status, page = move(web, sid, "guess", 0, text=guess)
    assert status == 200
    status, page = move(web, sid, follow_up[0], 1, **follow_up[1])
    assert status == 200
    assert "Wrong: that is not the rule." in history(page)
    assert "Reply with" not in history(page) and "My Guess is" not in page


def test_the_lab_test_is_a_table_with_labels_for_its_inputs_and_no_model_reply(
    web: TestClient, store: Store
) -> None:
    sid = start(web, "lab")
    first = web.get(f"/play/{sid}").text
    assert "Your reply" not in first and 'name="move" value="reply"' not in first
    status, page = move(web, sid, "done", 0)
    assert status == 200
    assert "JSON" not in page.split('class="play-intro"', 1)[1]
    table = re.search(r'<table class="play-table">(.*?)</table>', page, re.S)
    assert table is not None
    rows = re.findall(r"<tr>(.*?)</tr>", table.group(1).split("<tbody>", 1)[1], re.S)
    n = store.get_episode(sid).item.get("test_size") or len(rows)
    assert len(rows) == n
    for row in rows:  # each row: its label for its input, the objects before, the input
        target = re.search(r'<label for="([^"]+)"', row)
        assert target is not None and f'id="{target.group(1)}"' in row
        assert len(re.findall(r"<td>", row)) == 3


# -- what is offered ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", registry.names())
def test_no_model_only_option_is_offered_to_a_person(web: TestClient, name: str) -> None:
    page = web.get(f"/play?family={name}").text
    config_type = registry.get(name).config_type
    offered = set(re.findall(r'name="opt_([a-z_]+)"', page))
    assert offered, "the form offers the family's options"
    assert not offered & config_type.model_only, offered & config_type.model_only
    assert "%%" not in page
    # every field of the form has its label attached (<label for>)
    form = page.split('class="play-start"', 1)[1]
    ids = re.findall(r'<(?:input|select)(?![^>]*type="hidden")[^>]*\bid="([^"]+)"', form)
    fields = re.findall(r'<(?:input|select)(?![^>]*type="hidden")[^>]*>', form)
    assert len(ids) == len(fields) and all(f'<label for="{i}">' in form for i in ids)


def test_wilt_offers_no_solver_stop_nor_format_error_limit(web: TestClient) -> None:
    page = web.get("/play?family=wilt").text
    for field in ("solver_stop", "format_error_limit", "lenient_guess"):
        assert f'name="opt_{field}"' not in page
    assert 'name="opt_max_tests"' in page


# -- watch --------------------------------------------------------------------------------------------------
def test_the_watch_page_words_moves_as_the_play_page(web: TestClient, store: Store) -> None:
    sid = start(web, "wilt", rule="2")
    assert move(web, sid, "test", 0, x="1", y="1", z="1")[0] == 200
    run_id = store.get_episode(sid).run_id
    play_page = html.unescape(web.get(f"/play/{sid}").text)
    assert "Propose test: 1, 1, 1" in play_page
    page = html.unescape(web.get(f"/watch/{run_id}", headers={"accept": "text/html"}).text)
    assert "Propose test: 1, 1, 1" in page
    assert '{"type":"ProposeTest"' not in page.replace(" ", "").split('title="', 1)[0]
    assert not re.search(r'<code class="action">', page)
    # the events carry the same words
    with web.stream("GET", f"/watch/{run_id}/events") as events:
        body = ""
        for chunk in events.iter_text():
            body += chunk
            if "event: end" in body or "event: turn" in body:
                break
    assert '"move":"Propose test: 1, 1, 1"' in body


def test_an_errored_game_is_named_errored_once(web: TestClient, store: Store) -> None:
    sid = start(web, "wilt")
    assert web.post(f"/play/{sid}/quit", follow_redirects=True).status_code == 200
    run_id = store.get_episode(sid).run_id
    page = web.get(f"/watch/{run_id}", headers={"accept": "text/html"}).text
    heading = re.search(r"<h2>Game 1(.*?)</h2>", page, re.S)
    assert heading is not None
    assert re.sub(r"<[^>]+>", " ", heading.group(1)).split().count("errored") == 1


def test_stop_is_offered_only_for_runs_this_server_plays(web: TestClient, store: Store) -> None:
    sid = start(web, "wilt")
    run_id = store.get_episode(sid).run_id
    store.acquire_lease(run_id, "another-process:1234")  # played elsewhere (as `wason eval` holds its run)
    page = web.get(f"/watch/{run_id}", headers={"accept": "text/html"}).text
    assert re.search(r'id="stop-form"[^>]*hidden', page)
    assert not re.search(r'id="run-elsewhere"[^>]*hidden', page) and "Played by another process" in page
    # a stop sent anyway (an old page's form) is a readable page, not JSON
    r = web.post(
        f"/watch/{run_id}/stop", data={}, headers={"content-type": "application/x-www-form-urlencoded"}
    )
    assert r.status_code == 409 and r.headers["content-type"].startswith("text/html")
    assert "not being played by this server" in alert(r.text) and f"/watch/{run_id}" in r.text
    # a script still reads JSON
    scripted = web.post(f"/watch/{run_id}/stop")
    assert scripted.status_code == 409 and "not being played" in scripted.json()["error"]
