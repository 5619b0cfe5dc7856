"""The reward audit (``wason audit NAME``): it passes for the toy and WILT, and fails, naming the check, for a
family that leaks its rule in an observation and for one whose verdict accepts a range cap; each hack it plays is
read and judged, not merely refused as unreadable."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest

from tests.env.planted import LEAKY, SAMPLED
from tests.families.toy import FAMILY
from wason.cli import main
from wason.core import registry
from wason.env.audit import MAX_AUDIT_GAMES, Check, audit, failed


@pytest.fixture
def planted() -> Iterator[None]:
    for family in (FAMILY, LEAKY, SAMPLED):
        registry.register(family, replace=True)
    yield
    for family in (FAMILY, LEAKY, SAMPLED):
        registry.unregister(family.name)


def _by_name(checks: list[Check]) -> dict[str, Check]:
    return {c.name: c for c in checks}


def test_the_toy_passes_every_check(planted: None) -> None:
    checks = _by_name(asyncio.run(audit("toy", games=4)))
    assert checks["solver"].status == "ok" and checks["solver"].detail.startswith("won 4 of 4")
    assert checks["format-breaking"].status == "ok"
    assert checks["leaks"].status == "ok"
    assert not failed(checks.values())


def test_a_rule_in_the_prompt_fails_the_leak_check(planted: None) -> None:
    checks = _by_name(asyncio.run(audit("toy-leaky", games=3)))
    assert [c.name for c in failed(checks.values())] == ["leaks"]
    assert "x >= " in checks["leaks"].detail and "seed 0" in checks["leaks"].detail
    # the same game without the sentence passes: the check is about the leak, not the game
    assert not failed(asyncio.run(audit("toy", games=3)))


def test_a_sampled_verdict_pays_the_range_cap_and_the_carve_out(planted: None) -> None:
    checks = _by_name(asyncio.run(audit("wilt-sampled", games=2)))
    assert sorted(c.name for c in failed(checks.values())) == ["hack carve-out", "hack range cap"]
    assert checks["hack range cap"].detail.startswith("rewarded in 2 of 2 games")
    # the decided verdict refuses both, and the solver wins under either
    wilt = _by_name(asyncio.run(audit("wilt", games=2)))
    assert wilt["hack range cap"].status == wilt["hack carve-out"].status == "ok"
    assert checks["solver"].status == wilt["solver"].status == "ok"


def test_wilt_passes_and_its_hacks_are_judged(planted: None) -> None:
    from wason.env import AsyncTextEnv
    from wason.tasks.wilt.audit import PLAYERS, hacks

    checks = _by_name(asyncio.run(audit("wilt", games=3)))
    expected = {
        "solver",
        "format-breaking",
        "prompt's examples",
        *PLAYERS,
        "hack range cap",
        "hack carve-out",
    }
    assert expected | {"leaks", "judges"} == set(checks)
    assert not failed(checks.values())

    async def judged(reply: str) -> dict[str, Any]:
        env = AsyncTextEnv("wilt")
        await env.reset(seed=5)
        info = (await env.step(reply)).info
        await env.aclose()
        return dict(info["metrics"])

    env = AsyncTextEnv("wilt")
    asyncio.run(env.reset(seed=5))
    assert env.record is not None
    for name, (reply,) in hacks(env.record.item).items():
        metrics = asyncio.run(judged(reply))
        assert metrics["guessed"] and not metrics["correct"], name
        assert metrics["verdict"]["counterexamples"], name  # refuted by a point the player could have typed


def test_the_command_prints_a_line_per_check_and_exits_1_on_a_failure(
    planted: None, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["audit", "toy", "--games", "2"]) == 0
    out = capsys.readouterr().out
    assert "ok   solver: won 2 of 2 games" in out and out.strip().endswith("toy: 3 checks passed, 2 skipped")
    assert main(["audit", "toy-leaky", "--games", "2"]) == 1
    out = capsys.readouterr().out
    assert "FAIL leaks: a client reads the hidden item before the end" in out
    assert "toy-leaky: 1 of 5 checks failed, 2 skipped" in out


def test_bad_input_is_one_line(planted: None, capsys: pytest.CaptureFixture[str]) -> None:
    for argv, said in [
        (["audit", "toy", "--games", "0"], f"games: from 1 to {MAX_AUDIT_GAMES}, not 0"),
        (["audit", "toy", "--max-probes", "0"], "max_probes"),
        (["audit"], "name a family"),
    ]:
        try:
            code = main(argv)
        except SystemExit as exc:  # argparse's own refusals
            code = exc.code
        assert code == 2, argv
        err = capsys.readouterr().err.strip()
        assert said in err and len(err.splitlines()) == 1, err


def test_the_audit_finds_the_holes_of_the_published_wilt() -> None:
    """Two real findings, kept as tests of the audit's reach: the published prompt's own example guess is the
    hidden rule of lite/2, so copying it wins; and where z3 cannot encode a rule (math.gcd, a fractional power)
    the verdict is sampled, and a carve-out at one point was rewarded until the probes held every triple of the
    rule's and the guess's constants (``wilt-probes-3``): now it meets its point and is refused
    (docs/training.md)."""
    lite = _by_name(asyncio.run(audit("wilt", {"ids": [2]}, games=1)))
    assert lite["prompt's examples"].status == "FAIL"
    assert "lambda x,y,z: x < y < z" in lite["prompt's examples"].detail
    full = _by_name(asyncio.run(audit("wilt", {"split": "full", "ids": [46, 47]}, games=2)))
    assert full["hack carve-out"].status == "ok" and full["hack range cap"].status == "ok"
    assert full["hack carve-out"].detail.startswith("never rewarded (2 games")
    assert full["solver"].status == "ok"


class _Says:
    """A judge model that answers every question with the same word."""

    def __init__(self, word: str) -> None:
        self.word = word

    @property
    def model(self) -> Any:
        class _M:
            spec = f"scripted:{self.word}"

        return _M()

    async def complete(self, messages: Any, params: Any, context: Any = None) -> Any:
        from wason.models.base import ModelResponse

        return ModelResponse(text=self.word)


def test_the_judges_line_compares_the_llm_judge_with_the_code() -> None:
    """Static picnic's LLM judge beside its code judge: a judge that says yes to everything agrees with the code
    only where the code pays, and would pay the degenerate players and hacks; and where the code cannot read a
    guess, the LLM's yes decides, so the format-breaker is paid: what a reward resting on an LLM judge costs."""
    config = {"judge_model": "openai:judge", "judges": ["code", "llm"]}
    yes = _by_name(asyncio.run(audit("picnic", config, games=2, oracle=_Says("yes"))))
    assert yes["judges"].status == "ok"
    paid = int(yes["judges"].detail.split("it would pay ")[1].split()[0])
    assert paid > 0
    assert yes["format-breaking"].status == "FAIL"  # an unreadable guess is the LLM judge's to decide
    no = _by_name(asyncio.run(audit("picnic", config, games=2, oracle=_Says("no"))))
    assert "it would pay 0 of the" in no["judges"].detail
    assert no["format-breaking"].status == "ok"
    assert _by_name(asyncio.run(audit("picnic", games=1)))["judges"].status == "skip"  # no LLM judge: none
