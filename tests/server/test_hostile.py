"""Requests the HTTP fuzzer (``test_fuzz.py``) found to be 500s, each as it was sent: now a 4xx with the field
at fault, and nothing stored."""

from __future__ import annotations

import json

import httpx
import pytest

from tests.server import hidden_family
from wason.store import Store

JSON = {"content-type": "application/json"}


def body(value: object) -> bytes:
    """JSON as Python writes it: a lone surrogate as its ``\\u`` escape (valid JSON, not valid Unicode)."""
    return json.dumps(value).encode()


@pytest.mark.parametrize(
    ("sent", "field"),
    [
        ({"family": "wilt", "config": {"\ud800": 1}}, "config"),  # was a 500: the error message named the key
        ({"family": "wilt", "config": {"split": "lite", "ids": ["\udfff"]}}, "config"),
        ({"family": hidden_family.NAME, "config": {"nested": [{"\ud83d": "x"}]}}, "config"),
    ],
)
async def test_text_that_is_not_unicode_is_refused(
    client: httpx.AsyncClient, store: Store, sent: dict[str, object], field: str
) -> None:
    r = await client.post("/api/sessions", content=body(sent), headers=JSON)
    assert r.status_code == 422, r.text
    assert r.json()["field"] == field and "lone surrogate" in r.json()["error"]
    assert store.list_runs() == []


async def test_an_action_that_is_not_unicode_is_refused(client: httpx.AsyncClient, store: Store) -> None:
    """Was a 500: the step was stored first, and the store could not write the text."""
    started = await client.post("/api/sessions", json={"family": "wilt", "index": 0})
    sid = started.json()["session"]
    action = {"type": "ProposeTest", "values": ["\ud800", "1", "2"]}
    r = await client.post(f"/api/sessions/{sid}/step", content=body({"action": action}), headers=JSON)
    assert r.status_code == 422 and r.json()["field"] == "action", r.text
    assert store.list_turns(sid) == []
    assert (await client.get(f"/api/sessions/{sid}")).status_code == 200


@pytest.mark.parametrize("kind", [{"a": 1}, ["ProposeTest"], 3, None, True])
async def test_an_action_type_that_is_not_a_name_is_refused(
    client: httpx.AsyncClient, store: Store, kind: object
) -> None:
    """A dict or a list as the type was a 500 (unhashable); every other non-name is refused the same way."""
    started = await client.post("/api/sessions", json={"family": "wilt", "index": 0})
    sid = started.json()["session"]
    r = await client.post(
        f"/api/sessions/{sid}/step", json={"action": {"type": kind, "values": ["1", "2", "3"]}}
    )
    assert r.status_code == 422 and r.json()["field"] == "action", r.text
    assert "unknown action type" in r.json()["error"]
    assert store.list_turns(sid) == []


@pytest.mark.parametrize("family", ["wilt", "lists", "dynamic-picnic"])
@pytest.mark.parametrize("which", [{"seed": 3}, {}, {"index": 0}])
async def test_a_configuration_with_no_items_is_refused(
    client: httpx.AsyncClient, store: Store, family: str, which: dict[str, int]
) -> None:
    """``ids: []`` leaves no item: drawing one with a seed was a 500 (a choice from nothing)."""
    r = await client.post("/api/sessions", json={"family": family, "config": {"ids": []}, **which})
    assert r.status_code == 422, r.text
    assert "has no games" in r.json()["error"]
    assert store.list_runs() == []


@pytest.mark.parametrize(
    ("value", "says"),
    [
        ("18446744073709551616", "judges"),  # was a 500: a list of Literal words was read with Literal(...)
        ("code,bogus", "judges"),
    ],
)
async def test_a_watch_form_list_of_words_is_read_by_the_configuration(
    client: httpx.AsyncClient, store: Store, value: str, says: str
) -> None:
    form = {"family": "picnic", "player": "solver", "seed": "50", "cfg.judges": value}
    r = await client.post("/watch", data=form, headers={"accept": "text/html"})
    assert r.status_code == 422, r.text[-500:]
    assert says in r.text and "Traceback" not in r.text
    assert store.list_runs() == []


async def test_a_watch_form_list_of_numbers_still_says_which(client: httpx.AsyncClient) -> None:
    form = {"family": "picnic", "player": "solver", "cfg.max_turns": "3,x"}
    r = await client.post("/watch", data=form, headers={"accept": "text/html"})
    assert r.status_code == 422 and "max_turns: expected a comma-separated list" in r.text
