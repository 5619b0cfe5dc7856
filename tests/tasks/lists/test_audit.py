"""The list rules' reward audit: the solver wins, and no degenerate rule or hack of the hidden rule is rewarded;
each is read and refuted by the predicate judge where it is wrong (the lists past the cap, the carved-out list)."""

from __future__ import annotations

import asyncio
from typing import Any

from wason.env import AsyncTextEnv
from wason.env.audit import audit
from wason.tasks.lists.audit import LENGTH_CAP, PLAYERS, hacks

# a generated rule carries its source in the guess language, so every hack is built (rule 1: an odd number of
# zeros, cheap to judge)
GENERATED = {"split": "generated", "seed": 0, "n": 1}
HACKS = ("memorised examples", "length cap", "magnitude cap", "carve-out")


def test_the_audit_passes_with_every_player_and_hack() -> None:
    checks = {c.name: c for c in asyncio.run(audit("lists", GENERATED, games=1))}
    expected = {"solver", "format-breaking", *PLAYERS, *(f"hack {h}" for h in HACKS), "leaks", "judges"}
    assert set(checks) == expected | {"prompt's examples"}
    skipped = {"prompt's examples": "skip", "judges": "skip"}
    assert {n: c.status for n, c in checks.items() if c.status != "ok"} == skipped
    assert checks["solver"].detail.startswith("won 1 of 1")


async def _played(replies: tuple[str, ...]) -> dict[str, Any]:
    env = AsyncTextEnv("lists", GENERATED)
    await env.reset(seed=0)
    turn = 0
    while not env.done:
        info = (await env.step(replies[min(turn, len(replies) - 1)])).info
        turn += 1
    await env.aclose()
    assert info["format_errors"] == 0 or replies == PLAYERS["repeat-one-test"]
    return {"success": info["success"], **info["metrics"]}


def test_each_hack_and_player_is_read_and_refuted_where_it_is_wrong() -> None:
    env = AsyncTextEnv("lists", GENERATED)
    asyncio.run(env.reset(seed=0))
    assert env.record is not None
    item = env.record.item
    made = hacks(item)
    assert tuple(made) == HACKS
    played = {name: asyncio.run(_played(replies)) for name, replies in {**made, **PLAYERS}.items()}
    for name, metrics in played.items():
        assert not metrics["success"] and metrics["end_reason"] == "finished", name
    stated = {n: m["predicate_verdict"] for n, m in played.items() if n != "repeat-one-test"}
    for name, verdict in stated.items():  # each predicate compiled and was judged on the probes
        assert verdict["rejection"] is None and not verdict["equivalent"] and verdict["probes"], name

    def wrong(name: str) -> list[list[int]]:
        return [c["list"] for c in stated[name]["counterexamples"]]

    assert all(len(xs) > LENGTH_CAP for xs in wrong("length cap"))
    assert all(any(abs(x) > 10**30 for x in xs) for xs in wrong("magnitude cap"))
    first = item["examples"][0]
    assert wrong("carve-out") == [[first[0] + 1, *first[1:]]]  # the one list flipped, and only it
    assert stated["carve-out"]["false_positives"] + stated["carve-out"]["false_negatives"] == 1
    # the memoriser agrees with every label shown and refuses lists the rule accepts
    memorised = stated["memorised examples"]
    assert memorised["observation_mismatches"] == 0 and memorised["false_positives"] == 0
    assert memorised["false_negatives"] > 0
    assert stated["always-True"]["false_negatives"] == 0 and stated["always-True"]["false_positives"] > 0
    assert stated["always-False"]["decided_by_observation"]  # the examples fit the rule
    # one list a round to the last round, then its leading hypothesis is taken as final, with no predicate
    repeated = played["repeat-one-test"]
    assert repeated["rounds"] == 19 and repeated["final_forced"] and repeated["predicate"] is None


def test_the_published_rules_pass_with_the_memoriser_alone() -> None:
    # a published rule has no source in the guess language: only the memoriser is built from its item
    checks = {c.name: c for c in asyncio.run(audit("lists", games=1))}
    assert set(checks) == {
        "solver",
        "format-breaking",
        "prompt's examples",
        *PLAYERS,
        "hack memorised examples",
        "leaks",
        "judges",
    }
    skipped = {"prompt's examples": "skip", "judges": "skip"}
    assert {n: c.status for n, c in checks.items() if c.status != "ok"} == skipped
