"""``POST /api/sessions`` refuses a size above its bound with a 422 naming ``config.FIELD`` and the limit (issue 35).

Each case first checks the family's configuration refuses the value, so on code without the bound the test fails
at once instead of drawing 10**13 items.
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from pydantic import ValidationError

from tests.server.test_routes import assert_error
from wason.core import registry
from wason.store import Store

BIG = 10**13


@pytest.mark.parametrize(
    ("family", "config", "field", "limit"),
    [
        ("wilt", {"trials": BIG}, "trials", 50_000),
        ("wilt", {"trials": 200_000}, "trials", 50_000),  # blocked every request for 4.4 s
        ("wilt", {"trials": 10_000}, "trials", 50_000),  # the lite split's 10 rules x 10,000 trials
        ("wilt", {"max_tests": 10**23}, "max_tests", 1_000),
        ("lists", {"tests_per_round": BIG}, "tests_per_round", 100),
        ("lists", {"quiz_size": BIG}, "quiz_size", 100),
        ("code-functions", {"init_examples": BIG}, "init_examples", 100),
        ("code-functions", {"trials": 2_501}, "trials", 50_000),  # 20 rules x 2,501 trials
        ("picnic", {"n": 10_001}, "n", 10_000),  # docs/server.md's bound
        ("picnic", {"n": BIG}, "n", 10_000),
        ("picnic", {"n": 10_000, "max_turns": [1, 3]}, "n", 50_000),  # 3 levels x 10,000 x 2 limits
        ("math", {"n": 10_001}, "n", 10_000),
        ("lab", {"n": 1_001}, "n", 1_000),
        ("aiw", {"trials": BIG}, "trials", 50_000),
        ("dynamic-picnic", {"trials": BIG}, "trials", 50_000),
    ],
)
async def test_a_size_above_its_bound_is_a_422_naming_the_field_and_the_limit(
    client: httpx.AsyncClient, store: Store, family: str, config: dict[str, Any], field: str, limit: int
) -> None:
    with pytest.raises(ValidationError):
        registry.get(family).config_type.model_validate({**config, "player": "session"})
    response = await client.post("/api/sessions", json={"family": family, "config": config})
    body = assert_error(response, 422, f"config.{field}")
    assert str(limit) in body["error"].replace(",", ""), body
    assert "Value error" not in body["error"]
    assert store.list_runs() == []


async def test_the_largest_allowed_size_starts_a_game(client: httpx.AsyncClient) -> None:
    response = await client.post("/api/sessions", json={"family": "picnic", "config": {"n": 10_000}})
    assert response.status_code == 201, response.text


@pytest.mark.parametrize(
    ("family", "config", "limit"),
    [
        ("wilt", {"split": "generated", "seed": 1, "n": 201}, 200),
        ("lists", {"split": "generated", "seed": 1, "n": 16}, 15),
    ],
)
async def test_a_generated_split_above_the_servers_bound_is_a_422_though_the_command_line_takes_it(
    client: httpx.AsyncClient, store: Store, family: str, config: dict[str, Any], limit: int
) -> None:
    # the configuration's own bound is what the generator draws from (issue 39): `wason eval` takes this n
    registry.get(family).config_type.model_validate({**config, "player": "session"})
    response = await client.post("/api/sessions", json={"family": family, "config": config})
    body = assert_error(response, 422, "config.n")
    assert f"at most {limit} here" in body["error"], body
    assert store.list_runs() == []


@pytest.mark.parametrize("prefix", ["config.", "cfg.", ""])
def test_the_servers_check_of_a_requested_configuration_keeps_the_served_bounds(prefix: str) -> None:
    # the API, the Watch page (cfg.) and the Play page ("") all check a requested configuration with this
    from wason.server.allowed import AllowedModels, OverServedBound, Refused

    config_type = registry.get("wilt").config_type
    fields = {"split": "generated", "seed": 1, "n": 201}
    with pytest.raises(OverServedBound, match=f"{prefix}n: at most 200 here") as refused:
        AllowedModels().check(config_type, fields, prefix=prefix)
    assert isinstance(refused.value, Refused) and refused.value.field == f"{prefix}n"
    assert AllowedModels().check(config_type, {**fields, "n": 200}, prefix=prefix)["n"] == 200
