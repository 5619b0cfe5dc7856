"""``wason.testing``: ``check_family`` lists every check a faulty family fails (and runs the rest), leaves the
registry as it was, is cheap to import, and its pytest plugin offers the fixture and ``--wason-family``. That
the built-in families and the toy pass it is tested where they are (tests/core/test_family_contract.py,
tests/families/toy/)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, ClassVar, Literal

import pytest

from tests.env import planted
from tests.families.toy import FAMILY, ToyFamily, ToyRunConfig
from wason.core import registry
from wason.core.family import RunReader
from wason.core.results import Cell, Column, Results, Table
from wason.testing import FamilyCheckFailed, check_family

SEED = 7305193
"""A seed no page shows by chance."""


class LeakyConfig(ToyRunConfig):
    task: Literal["leaky-toy"] = "leaky-toy"  # type: ignore[assignment]


class LeakyToy(ToyFamily):
    """The toy with two faults: its play page's history names how its hidden threshold was drawn, and its results
    have a number too wide for an 80-column terminal."""

    name = "leaky-toy"
    config_type = LeakyConfig

    def web_history(
        self, config: Any, item: Mapping[str, Any], turns: Sequence[Mapping[str, Any]]
    ) -> list[str]:
        drawn = item["provenance"]
        return [
            *super().web_history(config, item, turns),
            f"drawn by {drawn['generator']}, seed {drawn['seed']}",
        ]

    def results(self, store: RunReader, run_ids: Sequence[int]) -> Results:
        wide = Column(key="n", name="Probes", kind="count")
        rows: list[dict[str, Cell]] = [{"n": 10**90}]
        return Results(
            title="thresholds found", tables=[Table(name="t", title="t", columns=[wide], rows=rows)]
        )


LEAKY = LeakyToy()  # another process imports it from here (tests.testing.test_testing:LEAKY)


class NoPlayerConfig(ToyRunConfig):
    task: Literal["no-player-toy"] = "no-player-toy"  # type: ignore[assignment]


class NoPlayerToy(ToyFamily):
    """The toy without a solver or sample actions: the contract cannot play it."""

    name = "no-player-toy"
    config_type = NoPlayerConfig

    def solver(self, config: Any, item: Mapping[str, Any]) -> None:  # type: ignore[override]
        return None


NO_PLAYER = NoPlayerToy()


class MiswiredConfig(ToyRunConfig):
    task: Literal["miswired-toy"] = "miswired-toy"  # type: ignore[assignment]


class MiswiredToy(ToyFamily):
    """The toy presenting its transcripts by a reports module (this one) whose ``messages`` takes too little."""

    name = "miswired-toy"
    config_type = MiswiredConfig
    reports = ("tests.testing.test_testing",)


def messages(data: Mapping[str, Any]) -> None:
    """MiswiredToy's transcript, wrongly declared: a reports module's ``messages`` takes (data, run, system)."""


MISWIRED = MiswiredToy()


def test_every_failed_check_is_listed_and_the_others_run() -> None:
    with pytest.raises(FamilyCheckFailed) as raised:
        check_family(LEAKY, config={"seed": SEED, "n": 3}, command_line=False)
    failed = raised.value
    assert [name.split(":")[0] for name, _ in failed.failures] == ["leaks", "report"]
    leaks = dict(failed.failures)["leaks: nothing read before the end names the hidden item"]
    assert "a hidden value of the item ('toy.threshold')" in leaks and f"({str(SEED)!r})" in leaks
    assert "crops a cell at 80 columns" in str(failed)
    report = failed.report
    assert report.player == "solver" and report.items == [f"toy-{SEED}-1", f"toy-{SEED}-2"]
    assert "sessions: finished in another process equal the run" in report.passed and not report.skipped
    assert "leaky-toy" not in registry.names()  # registered only while checked


class UndeclaredConfig(ToyRunConfig):
    """The toy's configuration showing a field without saying which fields choose its items."""

    task: Literal["undeclared-toy"] = "undeclared-toy"  # type: ignore[assignment]
    item_fields: ClassVar[frozenset[str] | None] = None
    public_fields: ClassVar[frozenset[str]] = frozenset({"max_probes"})


class UndeclaredToy(ToyFamily):
    name = "undeclared-toy"
    config_type = UndeclaredConfig


class ShownSeedConfig(ToyRunConfig):
    """The toy's configuration showing the seed that draws its thresholds while a game is on."""

    task: Literal["shown-seed-toy"] = "shown-seed-toy"  # type: ignore[assignment]
    public_fields: ClassVar[frozenset[str]] = frozenset({"max_probes", "seed"})


class ShownSeedToy(ToyFamily):
    name = "shown-seed-toy"
    config_type = ShownSeedConfig


UNDECLARED, SHOWN_SEED = UndeclaredToy(), ShownSeedToy()
PUBLIC = "config: public fields and model references"


@pytest.mark.parametrize(
    ("family", "told"),
    [
        (
            UNDECLARED,
            "UndeclaredConfig shows fields (public_fields) but does not say which fields choose its items",
        ),
        (SHOWN_SEED, "public_fields shows what chooses the items (its item_fields): ['seed']"),
    ],
    ids=["undeclared", "public"],
)
def test_which_fields_choose_the_items_is_declared_and_hidden(family: Any, told: str) -> None:
    with pytest.raises(FamilyCheckFailed) as raised:
        check_family(family, config={"n": 2}, command_line=False)
    failures = dict(raised.value.failures)
    assert list(failures) == [PUBLIC] and told in failures[PUBLIC], failures


LEAKS = "leaks: nothing read before the end names the hidden item"


@pytest.mark.parametrize(
    ("family", "where"),
    [
        (planted.TOLD, "in a session view"),  # "the rule is x >= t" in its first observation
        (
            planted.TOLD_LATER,
            "in the play page",
        ),  # only in the feedback to a probe (the play page's history shows it)
        (planted.LEAKY, "in the instructions a model reads"),  # only in the protocol's system prompt
    ],
    ids=["first-observation", "feedback", "prompt"],
)
def test_a_rule_the_game_itself_shows_fails_the_leak_check(family: Any, where: str) -> None:
    # what the game shows its player is read like everything else: it excuses no secret
    with pytest.raises(FamilyCheckFailed) as raised:
        check_family(family, config={"n": 2}, command_line=False)
    failures = dict(raised.value.failures)
    thresholds = [item["threshold"] for _, item in family.items(family.config_type(n=2))]
    for key, t in zip(raised.value.report.items, thresholds, strict=True):
        assert f"{key}: a hidden value of the item ('x >= {t}'), {where}" in failures[LEAKS], failures[LEAKS]
    # the leak alone fails: the other checks the planted family passes still pass (the audit finds it too)
    assert set(failures) == {LEAKS, "rewards: the reward audit passes (wason audit)"}


def test_a_reports_function_that_cannot_take_its_arguments_is_named() -> None:
    with pytest.raises(FamilyCheckFailed) as raised:
        check_family(MISWIRED, command_line=False)
    failed = dict(raised.value.failures)
    assert failed["report: the run report and transcripts render"] == (
        "messages(data: 'Mapping[str, Any]') -> 'None' in tests.testing.test_testing cannot take (data, run, system)"
    )
    assert MISWIRED.presents("messages") and not MISWIRED.presents("matrices")


def test_a_family_nobody_can_play_is_told_what_to_implement() -> None:
    with pytest.raises(FamilyCheckFailed) as raised:
        check_family(NO_PLAYER, command_line=False)
    report = raised.value.report
    ((name, message),) = report.failed
    assert name.startswith("config: builds") and "implement Family.solver or Family.sample_actions" in message
    assert "config: public fields and model references" in report.passed
    assert {n for n, _ in report.skipped} >= {
        "run: played in one go, completes",
        "leaks: nothing read before the end names the hidden item",
    }


def test_importing_wason_testing_loads_nothing_beyond_the_package() -> None:
    # the package's API (wason.api, which `import wason` now loads on first use) re-exports the engine and the
    # store; the contract adds nothing to it but the standard library: not the server, the command line nor the
    # families (imported when a check runs)
    code = (
        "import sys, json, wason.api; before = set(sys.modules); import wason.testing;"
        "print(json.dumps(sorted(set(sys.modules) - before)))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=_env()
    )
    added = json.loads(done.stdout)
    assert "wason.testing.contract" in added
    others = [m for m in added if m.split(".")[0] not in sys.stdlib_module_names]
    # beyond wason.testing, only the core's leak detector (shared with the reward audit)
    assert [m for m in others if not m.startswith("wason.testing")] == ["wason.core.leaks"]


def test_the_pytest_plugin_offers_the_fixture_and_an_option(tmp_path: Path) -> None:
    (tmp_path / "test_mine.py").write_text(
        "import pytest\n"
        "from wason.testing import FamilyCheckFailed\n"
        "from tests.testing.test_testing import NO_PLAYER\n\n"
        "def test_fixture(check_family):\n"
        "    with pytest.raises(FamilyCheckFailed, match='implement Family.solver'):\n"
        "        check_family(NO_PLAYER, command_line=False)\n",
        encoding="utf-8",
    )
    # the plugin named as the entry point names it (installed metadata may predate it), nothing else autoloaded
    env = {**_env(), "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}
    args = ["-p", "wason.testing.pytest_plugin", "-p", "no:cacheprovider", "-q", "test_mine.py"]
    args += ["--wason-family", "tests.testing.test_testing:NO_PLAYER", "--rootdir", str(tmp_path)]
    done = subprocess.run(
        [sys.executable, "-m", "pytest", *args],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 1, done.stdout + done.stderr
    assert "1 failed, 1 passed" in done.stdout, done.stdout
    assert "wason family tests.testing.test_testing:NO_PLAYER" in done.stdout
    assert "implement Family.solver or Family.sample_actions" in done.stdout


def _env() -> dict[str, str]:
    """This process's import path for a child (the worktree's sources and the tests' families)."""
    return {**os.environ, "PYTHONPATH": os.pathsep.join(p or os.getcwd() for p in sys.path)}


def test_a_card_that_does_not_say_what_the_family_says_fails_the_command_line_check(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # a plugin's card (its wason.cards entry point) is what help shows without importing the family
    stale = registry.Card("Toy threshold", "an old summary", "", True)
    monkeypatch.setattr(registry, "declared_card", lambda name: stale if name == "toy" else None)
    with pytest.raises(FamilyCheckFailed) as raised:
        check_family(FAMILY, config={"n": 1}, items=1)
    failures = dict(raised.value.failures)
    assert list(failures) == ["command line: flags derived from the config"]
    assert "an old summary" in failures["command line: flags derived from the config"]
    monkeypatch.setattr(
        registry,
        "declared_card",
        lambda name: registry.Card(FAMILY.title, FAMILY.summary, FAMILY.commands, FAMILY.playable),
    )
    assert (
        "command line: flags derived from the config" in check_family(FAMILY, config={"n": 1}, items=1).passed
    )
