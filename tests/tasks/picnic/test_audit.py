"""Static Picnic's reward audit (``wason audit picnic``, tasks/picnic/audit.py): the solver wins, no declared
player or hack is paid, each hack is read and judged wrong by the code for the reason it was built, and the
solver's moves are written as the protocol's text (expert trajectories)."""

from __future__ import annotations

import asyncio
import re
from typing import Any

from wason.env import AsyncTextEnv
from wason.env.audit import audit
from wason.env.trajectories import replay, solver_trajectories
from wason.tasks.picnic.audit import PLAYERS, hacks
from wason.tasks.picnic.catalog import LEVELS, POOLS, catalog, pool
from wason.tasks.picnic.family import FAMILY
from wason.tasks.picnic.guess import judge_guess, read_guess

HACKS = ("widened", "carve-out", "dropped category", "same size", "hedged")


def test_the_audit_passes_every_check() -> None:
    checks = {c.name: c for c in asyncio.run(audit("picnic", {}, games=6))}
    expected = {"solver", "format-breaking", "prompt's examples", *PLAYERS, *(f"hack {h}" for h in HACKS)}
    assert set(checks) == expected | {"leaks", "judges"}
    assert {c.name: c.status for c in checks.values() if c.status != "ok"} == {"judges": "skip"}
    assert checks["solver"].detail == "won 6 of 6 games (reward 1)"


def test_what_the_leak_check_flags_is_an_item_named_after_its_category() -> None:
    """Some items carry their category in their name (``christmas tree``, ``wall clock``, ``organ (musical
    instrument)``), and a game shows them as items that can be brought: the leak check, looking for the hidden
    category names in the text, flags such a game unless a game of another rule shows the name too (seeds 0-4
    flag ``tree``). Whatever it flags here is such a name, never the rule's text."""
    checks = {c.name: c for c in asyncio.run(audit("picnic", {}, games=5))}
    flagged = re.findall(r"seed (\d+): '([^']*)'", checks["leaks"].detail)
    assert checks["leaks"].status == "ok" or flagged
    env = AsyncTextEnv("picnic")
    for seed, text in flagged:
        asyncio.run(env.reset(seed=int(seed)))
        assert env.record is not None
        rule = env.record.item["rule"]
        assert text in rule["categories"], (seed, text)
        members = catalog().members(rule["categories"])
        assert any(text in name and name != text for name in catalog().names(members)), (seed, text)
    asyncio.run(env.aclose())


def _judged(seed: int, reply: str) -> dict[str, Any]:
    """The code's verdict on ``reply`` as the first move of game ``seed`` (the game ended by giving up)."""

    async def play() -> dict[str, Any]:
        env = AsyncTextEnv("picnic")
        await env.reset(seed=seed)
        step = await env.step(reply)
        if not env.done:
            step = await env.step("give up")
        await env.aclose()
        assert step.reward == 0.0
        return dict(step.info["metrics"])

    return asyncio.run(play())


def test_each_hack_is_read_and_judged_wrong_by_the_code() -> None:
    seen: set[str] = set()
    for seed in range(6):
        env = AsyncTextEnv("picnic")
        asyncio.run(env.reset(seed=seed))
        assert env.record is not None
        item = env.record.item
        asyncio.run(env.aclose())
        made = hacks(item)
        for name, (reply,) in made.items():
            metrics = _judged(seed, reply)
            first = metrics["history"][0]
            verdict = first["code"]
            assert first["action"]["type"] == "Guess" and first["decided_by"] == "code", name
            assert first["right"] is False and verdict["equivalent"] is False, name
            if name in ("widened", "dropped category", "hedged"):
                assert verdict["extra"] and not verdict["missing"], name  # it takes items the rule rejects
            if name == "carve-out":
                assert verdict["missing"] and not verdict["extra"], name  # it leaves out items of the rule
            if name == "same size":
                assert verdict["guess_positives"] == metrics["rule_positives"], name
            if name == "hedged":  # the last answer is the one read: the widened guess
                assert verdict["categories"] == list(read_guess(made["widened"][0]).categories)
            seen.add(name)
    assert seen == set(HACKS)
    for name, (reply,) in [(n, s) for n, s in PLAYERS.items() if "guess" in n]:
        first = _judged(0, reply)["history"][0]
        assert first["decided_by"] == "code" and first["code"]["equivalent"] is False, name
    assert _judged(0, PLAYERS["give-up-at-once"][0])["end_reason"] == "gave_up"


def test_every_hack_and_guessing_player_is_wrong_for_every_rule() -> None:
    players = [s[0] for n, s in PLAYERS.items() if "guess" in n]
    for level in LEVELS:
        for name in POOLS:
            for rule in pool(level, name):
                members = rule.members()
                made = hacks({"rule": rule.as_json()})
                assert {"widened", "hedged"} <= set(made), rule.key
                for reply in [*players, *(r for (r,) in made.values())]:
                    verdict = judge_guess(reply, members)
                    assert verdict.equivalent is False, (rule.key, reply)


def test_solver_trajectories_read_back_and_replay_their_reward() -> None:
    trajectories = asyncio.run(solver_trajectories("picnic", {}, n=3))
    assert [t["success"] for t in trajectories] == [True, True, True]
    for t in trajectories:
        said = [m["content"] for m in t["messages"] if m["role"] == "assistant"]
        assert said[-1].startswith("Items from the categor") and all(s.startswith("more ") for s in said[:-1])
        reward, info = asyncio.run(replay(t))
        assert reward == t["reward"] == 1.0 and info["success"] is True


def test_an_action_with_no_exact_message_has_none() -> None:
    assert FAMILY.action_message({"type": "More", "n": 4}) == "more 4"
    assert FAMILY.action_message({"type": "GiveUp"}) == "give up"
    text = "Items from the categories 'plant' and 'tree'"
    assert FAMILY.action_message({"type": "Guess", "text": text}) == text
    # read otherwise: the default count for 0, the cap above 511, a request, a guess with spaces around it
    for action in [
        {"type": "More", "n": 0},
        {"type": "More", "n": 512},
        {"type": "Guess", "text": "more"},
        {"type": "Guess", "text": " tree "},
        {"type": "Malformed", "reason": "x"},
        {"type": "Nothing"},
    ]:
        assert FAMILY.action_message(action) is None, action
