"""Playing in the browser: ``/play`` starts a game of every registered family, ``/play/{id}`` plays it.

Every registered family (and the server tests' own) is started from its page, moved once through its own form,
left, and played to the end by its solver (or its scripted game); every page on the way is scanned for the
hidden parts of the item, taken from the store, which must appear only once the game is over.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import html
import json
import re
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from wason.core import registry, session
from wason.core.family import Family
from wason.report.grid import grid_json
from wason.server.web import play
from wason.store import Store
from wason.tasks.picnic.web import categories_line

FOLLOW_UPS = ("predicate", "expression", "quiz")


def run(coroutine: Any) -> Any:
    """Run a coroutine to its end in a thread of its own (a browser test's Playwright keeps a loop running in
    this one)."""
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coroutine).result()


@pytest.fixture
def web(app: FastAPI) -> Iterator[TestClient]:
    with TestClient(app, base_url="http://127.0.0.1") as c:
        yield c


def names() -> list[str]:
    return registry.names()


def start(web: TestClient, family: str, **fields: str) -> int:
    r = web.post(
        "/play", data={"family": family, "player": "ada", "seed": "1", **fields}, follow_redirects=False
    )
    assert r.status_code == 303, r.text[-2000:]
    location = r.headers["location"]
    assert re.fullmatch(r"/play/\d+", location)
    return int(location.rsplit("/", 1)[1])


def secrets(family: Family[Any], item: Mapping[str, Any]) -> list[str]:
    """The hidden parts of an item as text: every string of at least 6 characters under a key that is not public,
    that no public value holds too."""
    public = family.public(item)
    shown = " ".join(str(item[k]) for k in public if k in item)
    found: list[str] = []

    def walk(value: Any) -> None:
        if isinstance(value, str):
            if len(value.strip()) >= 6 and value not in shown:
                found.append(value)
        elif isinstance(value, Mapping):
            for v in value.values():
                walk(v)
        elif isinstance(value, list | tuple):
            for v in value:
                walk(v)

    for key, value in item.items():
        if key not in public:
            walk(value)
    return found


def assert_hidden(text: str, hidden: list[str], where: str) -> None:
    # Static Picnic lists all 76 categories in every game (the terminal's `categories`): that names no rule
    plain = html.unescape(text).replace(categories_line(), "")
    for secret in hidden:
        assert secret not in plain, f"{where} shows {secret[:80]!r} before the end"


def alert(text: str) -> str:
    found = re.findall(r'role="alert"[^>]*>([^<]*)<', text)
    assert len(found) == 1, text[-3000:]
    return html.unescape(found[0])


def first_move_values(family: Family[Any], store: Store, sid: int) -> dict[str, str]:
    """The page's first move with every field filled from its placeholder (or its value)."""
    fam, cfg, episode, live = run(session.load(store, sid))
    form = fam.web_form(cfg, episode.item, live.observation, live.turn)
    move = form.moves[0]
    values = {"move": move.name, "turn": str(live.turn)}
    for f in move.fields:
        values[f"f_{f.name}"] = f.value or f.placeholder or "1"
    return values


@pytest.mark.parametrize("name", names())
def test_every_family_is_started_moved_and_left_from_its_pages(
    web: TestClient, store: Store, name: str
) -> None:
    family = registry.get(name)
    index = web.get(f"/play?family={name}")
    assert index.status_code == 200 and 'name="player"' in index.text and "autofocus" in index.text
    sid = start(web, name)
    episode = store.get_episode(sid)
    assert store.get_run(episode.run_id).player == "human:ada"
    hidden = secrets(family, episode.item)
    page = web.get(f"/play/{sid}")
    assert page.status_code == 200 and "autofocus" in page.text
    assert_hidden(page.text, hidden, "the first page")
    moved = web.post(f"/play/{sid}", data=first_move_values(family, store, sid), follow_redirects=True)
    assert moved.status_code == 200, moved.text[-2000:]
    assert len(store.list_turns(sid)) >= 1
    ended = "completed"
    if not run(session.view(store, sid))["done"]:
        assert_hidden(moved.text, hidden, "the page after a move")
        left = web.post(f"/play/{sid}/quit", follow_redirects=True)
        assert left.status_code == 200 and "Game over" in left.text and "you left the game" in left.text
        assert store.get_episode(sid).status == "errored"
        ended = "incomplete"  # as a run the engine played whose episode errored, and as at the terminal
    assert store.get_run(episode.run_id).status == ended
    # over: the whole item is shown, and no move is taken any more
    over = web.get(f"/play/{sid}")
    assert "Game over" in over.text
    again = web.post(f"/play/{sid}", data=first_move_values(family, store, sid))
    assert again.status_code == 409 and "over" in alert(again.text)


async def _script(family: Family[Any], store: Store, sid: int) -> Any:
    """A player that ends the game: the family's scripted game, or its solver."""
    fam, cfg, episode, _ = await session.load(store, sid)
    actions = fam.sample_actions(cfg, episode.item)
    if actions is not None:
        return iter(actions)
    solver = fam.solver(cfg, episode.item)
    assert solver is not None, f"{fam.name} has neither a solver nor a scripted game"
    return solver


@pytest.mark.parametrize("name", names())
def test_every_family_is_played_to_the_end_and_reveals_the_rule_only_then(
    web: TestClient, store: Store, name: str
) -> None:
    family = registry.get(name)
    sid = start(web, name)
    hidden = secrets(family, store.get_episode(sid).item)
    player = run(_script(family, store, sid))
    answered: set[str] = set()
    for _ in range(400):
        page = web.get(f"/play/{sid}")
        assert page.status_code == 200
        _, cfg, episode, live = run(session.load(store, sid))
        if live.done:
            break
        # what the player wrote itself (a solver's guess can be the rule's very words) is not a leak
        said = json.dumps([t["action"] for t in store.list_turns(sid)])
        assert_hidden(page.text, [h for h in hidden if json.dumps(h)[1:-1] not in said], f"turn {live.turn}")
        moves = family.web_form(cfg, episode.item, live.observation, live.turn).moves
        follow_up = next((m for m in moves if m.name in FOLLOW_UPS), None)
        if follow_up is not None:  # the follow-up questions are answered through the page's own form
            values = {"move": follow_up.name, "turn": str(live.turn)}
            values |= {
                f"f_{f.name}": "yes" if f.placeholder == "yes / no" else f.placeholder
                for f in follow_up.fields
            }
            r = web.post(f"/play/{sid}", data=values)
            assert r.status_code == 200, alert(r.text)
            answered.add(follow_up.name)
            continue
        action = next(player) if isinstance(player, Iterator) else run(player.act(live.observation)).action
        run(session.step(store, sid, action))
        run(play._automatic(store, sid))
    else:
        pytest.fail("the scripted game did not end")
    assert "Game over" in page.text
    ending = family.ending(episode.item, live.outcome().metrics if live.outcome() else None)
    print(f"{name}: follow-ups answered through the page: {sorted(answered) or 'none'}")
    shown = html.unescape(page.text)
    for line in ending:
        assert line.strip() in shown
    if hidden:
        assert any(s in shown for s in hidden)


def test_a_wilt_like_game_through_its_form_alone(web: TestClient, store: Store) -> None:
    """A game whose form has a test and a guess: a test, a refused empty field (nothing stored), a guess."""
    name = next(n for n in names() if any(m.name == "guess" for m in _moves(store, web, n)))
    sid = start(web, name)
    turns = len(store.list_turns(sid))
    values = first_move_values(registry.get(name), store, sid)
    blank = {k: ("" if k.startswith("f_") else v) for k, v in values.items()}
    refused = web.post(f"/play/{sid}", data=blank)
    assert refused.status_code == 422 and "write something first" in alert(refused.text)
    assert len(store.list_turns(sid)) == turns
    stale = web.post(f"/play/{sid}", data={**values, "turn": "99"})
    assert stale.status_code == 409 and "moved on" in alert(stale.text)
    no_turn = web.post(f"/play/{sid}", data={k: v for k, v in values.items() if k != "turn"})
    assert no_turn.status_code == 422 and "turn" in alert(no_turn.text)
    unknown = web.post(f"/play/{sid}", data={**values, "move": "teleport"})
    assert unknown.status_code == 422 and "teleport" in alert(unknown.text)
    assert len(store.list_turns(sid)) == turns


def _moves(store: Store, web: TestClient, name: str) -> list[Any]:
    sid = start(web, name)
    fam, cfg, episode, live = run(session.load(store, sid))
    return list(fam.web_form(cfg, episode.item, live.observation, live.turn).moves)


def test_bad_starts_say_one_thing_and_store_nothing(web: TestClient, store: Store) -> None:
    name = names()[0]
    before = len(store.list_runs())
    cases = [
        ({"family": name, "player": ""}, 422, "player"),
        ({"family": name, "player": "<script>"}, 422, "player"),
        ({"family": "no-such-game", "player": "ada"}, 404, "no-such-game"),
        ({"family": name, "player": "ada", "seed": "x1"}, 422, "seed"),
        ({"family": name, "player": "ada", "rule": "1", "seed": "2"}, 422, "not several"),
        ({"family": name, "player": "ada", "rule": "999999"}, 422, "rule"),
    ]
    for data, status, word in cases:
        r = web.post("/play", data=data)
        assert r.status_code == status, (data, r.text[-1500:])
        assert word in alert(r.text)
    assert len(store.list_runs()) == before
    assert web.get("/play/abc").status_code == 404
    assert web.get("/play/987654").status_code == 404
    assert web.post("/play/987654", data={"move": "x"}).status_code == 404


def test_a_file_option_is_not_offered(web: TestClient) -> None:
    for name in names():
        for field in play.option_fields(registry.get(name)):
            assert not re.search(r"(file|path|dir)$", field["name"]), (name, field)


def test_a_session_of_another_player_is_not_played_here(web: TestClient, store: Store) -> None:
    name = names()[0]
    sid = session.start(store, name, {}, index=0)
    r = web.get(f"/play/{sid}")
    assert r.status_code == 404 and "not played by a person" in alert(r.text)


def test_people_are_rows_of_their_own_beside_the_models(web: TestClient, store: Store) -> None:
    name = names()[0]
    runs = []
    for who in ("ada", "grace"):
        r = web.post("/play", data={"family": name, "player": who, "seed": "3"}, follow_redirects=False)
        sid = int(r.headers["location"].rsplit("/", 1)[1])
        web.post(f"/play/{sid}/quit")
        runs.append(store.get_episode(sid).run_id)
    players = {row["player"] for row in grid_json(store, runs)["rows"]}
    assert players == {"human:ada", "human:grace"}


# -- in a browser, with the keyboard alone ----------------------------------------------------------------
def _type(page: Any, text: str) -> None:
    page.keyboard.type(text)


def _enter(page: Any) -> None:
    """Press Enter and wait for the page the form's POST is redirected to."""
    with page.expect_navigation():
        page.keyboard.press("Enter")


def test_wilt_in_a_browser_with_the_keyboard(live_server: Any, browser_page: Any, tmp_path: Path) -> None:
    name = "wilt"
    page = browser_page
    page.goto(f"{live_server.url}/play?family={name}")
    _type(page, "ada")  # the name field has the focus
    page.keyboard.press("Enter")
    page.wait_for_url(re.compile(r".*/play/\d+$"))
    for triple in ("1", "2", "3"), ("3", "2", "1"):
        for i, value in enumerate(triple):
            _type(page, value)
            if i < 2:
                page.keyboard.press("Tab")
            else:
                _enter(page)
    assert page.locator(".play-history li").count() == 2
    # to the guess: three tabs past x, y, z and the Test button
    for _ in range(4):
        page.keyboard.press("Tab")
    _type(page, "x < y < z")
    _enter(page)
    page.wait_for_selector("#play-ending")
    assert "The rule was" in page.inner_text("#play-ending")


def test_static_picnic_in_a_browser_with_the_keyboard(live_server: Any, browser_page: Any) -> None:
    name = "picnic"
    page = browser_page
    page.goto(f"{live_server.url}/play?family={name}")
    _type(page, "grace")
    page.keyboard.press("Enter")
    page.wait_for_url(re.compile(r".*/play/\d+$"))
    # the focused field asks for more examples (it holds 1): replace it with 2, Enter
    page.keyboard.press("Control+A")
    _type(page, "2")
    _enter(page)
    assert page.locator(".play-history li").count() == 1
    # the guess: past the count field and its button
    page.keyboard.press("Tab")
    page.keyboard.press("Tab")
    _type(page, "Items from the category 'things'")
    _enter(page)
    # a wrong guess may leave turns: give up with the keyboard (Tab to the Give up button)
    for _ in range(20):
        if page.locator("#play-ending").count():
            break
        for _ in range(4):  # past the count, More, the guess and Guess, to Give up
            page.keyboard.press("Tab")
        _enter(page)
    assert "rule" in page.inner_text("#play-ending").lower()


def test_a_rule_of_ones_own_is_hidden_until_the_end(web: TestClient, store: Store) -> None:
    name = next(n for n in names() if registry.get(n).own_rules)
    rule = "lambda x, y, z: x + y > z + 7"
    bad = web.post(
        "/play", data={"family": name, "player": "ada", "own_rule": "lambda x, y, z: __import__('os')"}
    )
    assert bad.status_code == 422 and "own_rule" in alert(bad.text)
    both = web.post("/play", data={"family": name, "player": "ada", "own_rule": rule, "seed": "1"})
    assert both.status_code == 422 and "not several" in alert(both.text)
    r = web.post("/play", data={"family": name, "player": "ada", "own_rule": rule}, follow_redirects=False)
    sid = int(r.headers["location"].rsplit("/", 1)[1])
    page = web.get(f"/play/{sid}")
    assert rule not in html.unescape(page.text) and "z + 7" not in html.unescape(page.text)
    fam, cfg, episode, live = run(session.load(store, sid))
    guess = next(
        m for m in fam.web_form(cfg, episode.item, live.observation, live.turn).moves if m.name == "guess"
    )
    values = {"move": "guess", "turn": str(live.turn), f"f_{guess.fields[0].name}": "x + y - z > 7"}
    end = web.post(f"/play/{sid}", data=values, follow_redirects=True)
    assert "you solved it" in end.text and rule in html.unescape(end.text)


ENDING_MOVES = ("give_up", "guess", "final", "predicate", "quiz", "answer")


@pytest.mark.parametrize("name", names())
def test_every_family_ends_through_its_own_forms(web: TestClient, store: Store, name: str) -> None:
    """Moves that end a game (give up, a guess, a final rule and its follow-ups), sent only through the page."""
    sid = start(web, name)
    for _ in range(30):
        fam, cfg, episode, live = run(session.load(store, sid))
        if live.done:
            break
        moves = fam.web_form(cfg, episode.item, live.observation, live.turn).moves
        move = next((m for n in ENDING_MOVES for m in moves if m.name == n), moves[0])
        values = {"move": move.name, "turn": str(live.turn)}
        for f in move.fields:
            said = (
                "give up" if move.name == "guess" else "yes" if f.placeholder == "yes / no" else f.placeholder
            )
            values[f"f_{f.name}"] = f.value or said or "1"
        r = web.post(f"/play/{sid}", data=values)
        assert r.status_code == 200, (move.name, alert(r.text))
    else:
        pytest.fail(f"{name}: no end after 30 moves through the forms")
    page = web.get(f"/play/{sid}")
    assert "Game over" in page.text and "you left" not in page.text
    assert store.get_episode(sid).status == "completed"


def test_a_lab_family_is_played_with_the_default_forms(
    web: TestClient, store: Store, hidden_mod: Any
) -> None:
    """A family that wrote nothing for the web (the server tests' own, registered like a lab's plugin): it is
    listed, and played with the default forms - more N, a guess, and a reply read by its protocol."""
    assert hidden_mod.name in web.get("/play").text
    sid = start(web, hidden_mod.name)
    page = web.get(f"/play/{sid}")
    for move in ("more", "guess", "reply"):
        assert f'id="move-{move}"' in page.text
    more = web.post(f"/play/{sid}", data={"move": "more", "turn": "0", "f_n": "2"})
    assert more.status_code == 200 and len(store.list_turns(sid)) == 1
    bad = web.post(f"/play/{sid}", data={"move": "more", "turn": "1", "f_n": "two"})
    assert bad.status_code == 422 and "whole number" in alert(bad.text)
    unread = web.post(f"/play/{sid}", data={"move": "reply", "turn": "1", "f_text": "hello there"})
    assert unread.status_code == 422 and "cannot be read" in alert(unread.text)
    assert len(store.list_turns(sid)) == 1
    reply = web.post(f"/play/{sid}", data={"move": "reply", "turn": "1", "f_text": "more 1"})
    assert reply.status_code == 200 and len(store.list_turns(sid)) == 2
    end = web.post(f"/play/{sid}", data={"move": "guess", "turn": "2", "f_text": "give up"})
    assert end.status_code == 200 and "Game over" in end.text


@pytest.mark.parametrize("name", names())
def test_the_forms_hints_are_in_the_pages_words_not_the_terminals(
    name: str, web: TestClient, store: Store
) -> None:
    # issue 49, item 18: the web forms said "e.g. guess x < y < z" and "e.g. final the items increase"
    sid = start(web, name)
    fam, cfg, episode, live = run(session.load(store, sid))
    form = fam.web_form(cfg, episode.item, live.observation, live.turn)
    for move in form.moves:
        for typed in ("e.g. guess ", "e.g. final ", "(typed"):
            assert typed not in move.hint, (name, move.name, move.hint)
    page = web.get(f"/play/{sid}").text
    assert "e.g. guess " not in page and "e.g. final " not in page
