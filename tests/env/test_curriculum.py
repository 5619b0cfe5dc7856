"""Curricula: the controller moves one axis a step harder above the target band and easier below it, and a
curriculum environment plays and records every episode at the controller's position."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest

from tests.families.toy import FAMILY
from wason.core import registry
from wason.env.curriculum import MAX_WINDOW, Curriculum, CurriculumEnv


@pytest.fixture
def toy() -> Iterator[None]:
    registry.register(FAMILY, replace=True)
    yield
    registry.unregister(FAMILY.name)


def test_the_controller_moves_the_least_advanced_axis_harder_and_the_most_advanced_easier() -> None:
    c = Curriculum({"a": (1, 2, 3), "b": ("x", "y")}, target=0.5, window=4, margin=0.1)
    assert c.settings() == {"a": 1, "b": "x"}
    for _ in range(3):
        c.record(True)
    assert c.step == 0  # no decision before a full window
    c.record(True)
    assert c.settings() == {"a": 2, "b": "x"}  # a tie: the first declared axis
    for _ in range(4):
        c.record(True)
    assert c.settings() == {"a": 2, "b": "y"}  # b was the least far along (0 of 1 against 1 of 2)
    for _ in range(4):
        c.record(False)
    assert c.settings() == {"a": 2, "b": "x"}  # b was the furthest along (1 of 1)
    for s in (True, False, True, False):  # on target: no move
        c.record(s)
    assert c.settings() == {"a": 2, "b": "x"} and c.step == 3
    assert c.moves == [(4, "a", 1), (8, "b", 1), (12, "b", -1)]
    for _ in range(8):
        c.record(None)  # cut off counts as lost (the second window finds nothing easier)
    assert c.settings() == {"a": 1, "b": "x"}
    for _ in range(4):
        c.record(False)  # at the easiest: nowhere to go
    assert c.settings() == {"a": 1, "b": "x"} and c.step == 4


@pytest.mark.parametrize(
    ("kwargs", "said"),
    [
        ({"axes": {}}, "at least one difficulty axis"),
        ({"axes": {"a": ()}}, "a needs 1 to 100 values"),
        ({"axes": {"a": (1,)}, "target": 1.5}, "target"),
        ({"axes": {"a": (1,)}, "window": 0}, f"from 1 to {MAX_WINDOW}"),
        ({"axes": {"a": (1,)}, "margin": 0.7}, "margin"),
    ],
)
def test_bounds_are_one_line(kwargs: dict[str, Any], said: str) -> None:
    axes = kwargs.pop("axes")
    with pytest.raises(ValueError, match=re.escape(said)):
        Curriculum(axes, **kwargs)


def _bisect(env: CurriculumEnv, seed: int) -> dict[str, Any]:
    """A bisection player over 1..100 in the toy's text (7 probes find any threshold)."""
    _, info = env.reset(seed=seed)
    low, high = 1, 100
    while True:
        remaining = info["observation"]["remaining"]
        reply = f"GUESS {low}" if low >= high or remaining <= 0 else f"PROBE {(low + high) // 2}"
        _, _, terminated, truncated, info = env.step(reply)
        if terminated or truncated:
            return info
        o = info["observation"]
        if o["kind"] == "answer":
            if o["result"]:
                high = min(high, o["x"])
            else:
                low = max(low, o["x"] + 1)


def test_the_environment_plays_at_the_position_and_records_it(toy: None) -> None:
    env = CurriculumEnv("toy", {"n": 20}, axes={"max_probes": (10, 3)}, target=0.5, window=3, margin=0.1)
    seen = []
    for seed in range(9):
        info = _bisect(env, seed)
        seen.append((info["curriculum"]["max_probes"], info["curriculum"]["step"], info["success"]))
    env.close()
    # ten probes: bisection wins, three in a row move the budget to 3; with 3 it loses, and moves back
    assert seen[:3] == [(10, 0, True)] * 3
    assert [s[:2] for s in seen[3:6]] == [(3, 1)] * 3 and not any(s[2] for s in seen[3:6])
    assert seen[6][:2] == (10, 2)
    assert env.curriculum.moves == [(3, "max_probes", 1), (6, "max_probes", -1), (9, "max_probes", 1)]


def test_declared_axes_and_refusals(toy: None) -> None:
    env = CurriculumEnv("wilt", window=2)
    _, info = env.reset(seed=0)
    assert info["curriculum"] == {"max_tests": 30, "step": 0}
    assert "30" in env.messages[0]["content"]  # the prompt states the budget it plays
    env.close()
    with pytest.raises(ValueError, match="toy declares no difficulty axes"):
        CurriculumEnv("toy")
    with pytest.raises(ValueError, match="nope is not a field of toy's configuration"):
        CurriculumEnv("toy", axes={"nope": (1, 2)})


EASIEST = {
    "wilt": {"max_tests": 30},
    "lists": {"max_rounds": 19},
    "picnic": {"level": ["L1"]},
    "code-functions": {"level": "L1"},
    "math": {"level": "L1"},
    "dynamic-picnic": {"level": "L1"},
    "lab": {"difficulty": "easy"},
}


@pytest.mark.parametrize("family", sorted(EASIEST))
def test_every_family_with_difficulty_axes_starts_at_their_easiest(family: str) -> None:
    env = CurriculumEnv(family, window=1)
    _, info = env.reset(seed=0)
    assert info["curriculum"] == {**EASIEST[family], "step": 0}
    config = env._envs[next(iter(env._envs))].env.config
    assert all(getattr(config, k) == v for k, v in EASIEST[family].items())
    env.close()


def test_a_family_without_axes_says_so() -> None:
    with pytest.raises(ValueError, match="aiw declares no difficulty axes"):
        CurriculumEnv("aiw")
