"""Hostile numbers in a configuration (issue 49): each is refused as a ValueError naming its field, which the
server turns into a 422 naming ``config.<field>``; ``{"judges": 5}`` was the only 500 of 3,520 requests."""

from __future__ import annotations

import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from pydantic import ValidationError

from wason.core.family import RunSettings, own_fields
from wason.server import create_app
from wason.store import Store
from wason.tasks.dynamic_picnic.family import DynamicPicnicRunConfig
from wason.tasks.picnic.family import PicnicRunConfig

HOSTILE: list[Any] = [
    5,
    True,
    1.5,
    math.nan,
    math.inf,
    -1,
    2**63,
    -(2**63),
    "x",
    "code,llm",
    None,
    [],
    [5],
    {},
]


def named(exc: ValueError, field: str, fields: list[str]) -> bool:
    """Whether a refusal names the field: pydantic's location, or a check across fields naming first the field
    or the one it is checked against (``min_positives must be at least init_examples``)."""
    errors = exc.errors() if isinstance(exc, ValidationError) else [{"loc": (), "msg": str(exc)}]
    for e in errors:
        if e["loc"] and e["loc"][0] == field:
            return True
        said = str(e["msg"]).removeprefix("Value error, ")
        if said.startswith(field) or (
            not e["loc"] and field in said and said.split()[0].strip(":") in fields
        ):
            return True
    return False


def cases(config_type: type[RunSettings]) -> Iterator[tuple[str, Any]]:
    for field in own_fields(config_type):
        for value in HOSTILE:
            yield field, value


@pytest.mark.parametrize("config_type", [PicnicRunConfig, DynamicPicnicRunConfig])
def test_hostile_values_are_refused_naming_the_field(config_type: type[RunSettings]) -> None:
    refused = 0
    for field, value in cases(config_type):
        try:
            config_type.model_validate({"player": "session", field: value})
        except ValueError as exc:  # a ValidationError is one
            refused += 1
            assert named(exc, field, own_fields(config_type)), (field, value, str(exc)[:300])
        # anything else (TypeError, OverflowError...) is a bug: a 500 on the server
    assert refused > len(own_fields(config_type)) * len(HOSTILE) // 2


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    s = Store(str(tmp_path / "hostile.db"))
    yield s
    s.close()


@pytest.mark.parametrize("value", [5, True, 1.5, "NaN", 2**63, "code"])
async def test_the_server_answers_a_hostile_judges_with_a_422_naming_it(store: Store, value: Any) -> None:
    transport = httpx.ASGITransport(app=create_app(store), raise_app_exceptions=False)
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as client:
        # NaN as JSON has no spelling; the string stands for it (a float NaN is the config-model test's)
        r = await client.post("/api/sessions", json={"family": "picnic", "config": {"judges": value}})
    assert r.status_code == 422, r.text
    assert r.json()["field"].startswith("config.judges"), r.json()
    assert store.list_runs() == []
