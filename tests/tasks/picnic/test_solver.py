"""The reference solver: version-space elimination wins nearly every game, at every level, on both pools."""

from __future__ import annotations

import asyncio

import pytest

from wason.tasks.picnic.catalog import LEVELS, PicnicRule, derive_seed, draw_rule, get_rule, pool
from wason.tasks.picnic.game import Guess, More, PicnicConfig, PicnicGame
from wason.tasks.picnic.solver import PicnicSolverPlayer, VersionSpace


async def _play(rule: PicnicRule, seed: int, config: PicnicConfig) -> dict[str, object]:
    game = PicnicGame(rule, seed, config)
    player = PicnicSolverPlayer()
    obs = game.start()
    while not game.done:
        obs = game.step((await player.act(obs)).action)
    return game.outcome().metrics


@pytest.mark.parametrize("pool_name", ["distinct", "published"])
@pytest.mark.parametrize("level", LEVELS)
def test_the_solver_wins_at_least_95_percent(level: str, pool_name: str) -> None:
    async def run() -> list[dict[str, object]]:
        return [
            await _play(draw_rule(level, pool_name, derive_seed("solver", level, i)), i, PicnicConfig())  # type: ignore[arg-type]
            for i in range(60)
        ]

    results = asyncio.run(run())
    wins = sum(m["status"] == "won" for m in results)
    assert wins >= 57, (level, pool_name, wins)


def test_the_solver_is_sure_only_when_every_survivor_has_the_same_items() -> None:
    space = VersionSpace()
    space.observe(("dog", "cat"), ())
    assert not space.sure  # animal, mammal, carnivore all fit
    space.observe((), ("eagle",))  # an animal that is not a mammal rules out 'animal'
    assert ("animal",) not in (space.survivors or [])


def test_the_solver_guesses_in_the_published_format_and_asks_for_more_until_sure() -> None:
    rule = get_rule(
        "distinct", "L1", next(r.id for r in pool("L1", "distinct") if r.categories == ("animal",))
    )

    async def run() -> list[object]:
        game = PicnicGame(rule, 11, PicnicConfig(max_turns=None))
        player = PicnicSolverPlayer()
        obs = game.start()
        actions = []
        while not game.done:
            action = (await player.act(obs)).action
            actions.append(action)
            obs = game.step(action)
        assert game.outcome().success
        return actions

    actions = asyncio.run(run())
    assert all(isinstance(a, More) for a in actions[:-1])
    assert actions[-1] == Guess("Items from the category 'animal'")
