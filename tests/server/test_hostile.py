"""Requests the HTTP fuzzer (``test_fuzz.py``) found to be 500s, each as it was sent: now a 4xx with the field
at fault, and nothing stored."""

from __future__ import annotations

import json

import httpx
import pytest

from wason.store import Store

JSON = {"content-type": "application/json"}


def body(value: object) -> bytes:
    """JSON as Python writes it: a lone surrogate as its ``\\u`` escape (valid JSON, not valid Unicode)."""
    return json.dumps(value).encode()


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
    assert "no items" in r.json()["error"]
    assert store.list_runs() == []
