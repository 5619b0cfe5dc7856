"""No family field is silently dropped from ``wason play`` and ``wason session start`` (issue 52): a field named
like one of their own options (``--seed`` there draws the game to play) is offered as ``--config-NAME``, or under
the flag its configuration gives it there (``play_flag_names``), or left out on purpose (``not_in_play``); a
``play_flag_names`` entry onto one of their options is refused when the configuration is declared."""

from __future__ import annotations

import builtins
import json
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any, ClassVar, Literal

import pytest

from tests.families.toy import FAMILY, ToyRunConfig
from wason.cli import build_parser, family_fields, main
from wason.cli.common import _dest, _given
from wason.core import registry
from wason.core.family import PLAY_OPTIONS, RunSettings, own_fields
from wason.store import Store


@pytest.fixture
def toy() -> Iterator[None]:
    registry.register(FAMILY)
    yield
    registry.unregister(FAMILY.name)


def test_the_toys_seed_works_in_session_start(
    toy: None, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = f"sqlite:///{tmp_path / 'seed.db'}"
    # --config-seed draws the thresholds (the toy's seed, --seed in wason eval); --seed draws the game among them
    assert main(["session", "start", "toy", "--config-seed", "5", "--n", "3", "--seed", "1", "--db", db]) == 0
    sid = json.loads(capsys.readouterr().out)["session"]
    store = Store(db)
    episode = store.get_episode(sid)
    assert store.get_run(episode.run_id).config["seed"] == 5
    assert episode.item_key in dict(FAMILY.items(ToyRunConfig(seed=5, n=3)))
    # the help says both, and where the field is --seed
    assert main(["session", "start", "toy", "--help"]) == 0
    shown = " ".join(capsys.readouterr().out.split())
    assert "--config-seed SEED seed the hidden thresholds are drawn with" in shown
    assert "(--seed in `wason eval`)" in shown and "--seed SEED draw the item with this seed" in shown


def test_the_toys_seed_works_in_play(
    toy: None, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    typed = iter(["GUESS 50"])
    monkeypatch.setattr(builtins, "input", lambda prompt="": next(typed))
    db = f"sqlite:///{tmp_path / 'play.db'}"
    assert main(["play", "toy", "--config-seed", "9", "--rule", "2", "--name", "ada", "--db", db]) == 0
    store = Store(db)
    (run,) = store.list_runs()
    assert run.config["seed"] == 9 and [e.item_key for e in store.list_episodes(run.id)] == ["toy-9-2"]
    threshold = dict(FAMILY.items(ToyRunConfig(seed=9)))["toy-9-2"]["threshold"]
    assert f"The threshold was {threshold}." in capsys.readouterr().out


@pytest.mark.parametrize("name", registry.names())
def test_every_field_of_every_family_reaches_play_or_is_left_out_on_purpose(name: str) -> None:
    config_type = registry.get(name).config_type
    offered = family_fields(config_type, play=True)
    assert set(own_fields(config_type)) == set(offered) | set(config_type.not_in_play)
    for field in offered:  # each field's flag there is its own, no option the commands take for themselves
        flag = config_type.play_flag(field)
        assert flag[2:].replace("-", "_") not in PLAY_OPTIONS, (name, field, flag)
    if "seed" in offered:  # a family's seed given in session start arrives as the configuration's seed
        args = build_parser(["session", "start", name]).parse_args(
            ["session", "start", name, config_type.play_flag("seed"), "11", "--seed", "3"]
        )
        assert _given(args, config_type, play=True)["seed"] == 11 and args.seed == 3


def _declare(fields: Mapping[str, Any], **classvars: Any) -> type[RunSettings]:
    namespace: dict[str, Any] = {"__annotations__": {"task": Literal["t"], **{k: int for k in fields}}}
    namespace.update({"task": "t", **fields})
    namespace["__annotations__"].update({k: ClassVar[Any] for k in classvars})
    namespace.update(classvars)
    return type("PluginConfig", (RunSettings,), namespace)


@pytest.mark.parametrize(
    ("fields", "classvars", "flag"),
    [
        ({"seed": 0}, {}, "--config-seed"),
        ({"rule": 0}, {}, "--config-rule"),
        ({"index": 0}, {}, "--config-index"),
        ({"db": 0}, {}, "--config-db"),
        ({"size": 0}, {"flag_names": {"size": "name"}}, "--config-name"),  # its flag, not only its name
        ({"family": 0}, {"flag_names": {"family": "families"}}, "--config-families"),  # a name the CLI keeps
        ({"seed": 0}, {"play_flag_names": {"seed": "draw-seed"}}, "--draw-seed"),  # a name of its own
    ],
    ids=["seed", "rule", "index", "db", "flag", "dest", "renamed"],
)
def test_a_field_named_like_a_play_option_is_offered_under_another_flag_never_dropped(
    fields: dict[str, Any], classvars: dict[str, Any], flag: str
) -> None:
    config = _declare(fields, **classvars)
    (field,) = fields
    assert config.play_flag(field) == flag and field in family_fields(config, play=True)


def test_a_play_flag_name_onto_an_option_or_no_field_is_refused_when_declared() -> None:
    with pytest.raises(TypeError) as raised:
        _declare({"seed": 0}, play_flag_names={"seed": "rule"})
    message = str(raised.value)
    assert message.startswith("PluginConfig.play_flag_names: --rule is an option of `wason play`")
    assert "\n" not in message
    left_out = _declare({"seed": 0}, not_in_play=frozenset({"seed"}))
    assert "seed" not in family_fields(left_out, play=True) and "seed" in family_fields(left_out)
    with pytest.raises(TypeError, match="play_flag_names names no field of its own: sede"):
        _declare({"seed": 0}, play_flag_names={"sede": "config-seed"})


def _subparser(parser: Any, *path: str) -> Any:
    import argparse

    for word in path:
        (choices,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
        parser = choices.choices[word]
    return parser


def test_the_play_options_are_the_commands_own(toy: None) -> None:
    # PLAY_OPTIONS, what a family's field may not be called there, holds every option and name these commands use
    for path in (["play", "toy"], ["session", "start", "toy"]):
        parser = build_parser(path)
        used = set()
        for depth in range(len(path) + 1):
            level = _subparser(parser, *path[:depth])
            for action in level._actions:
                used |= {s.lstrip("-").replace("-", "_") for s in action.option_strings} | {action.dest}
        fields = {n.replace("-", "_") for n in family_fields(ToyRunConfig, play=True)}
        fields |= {ToyRunConfig.play_flag(n)[2:].replace("-", "_") for n in fields}
        fields |= {_dest(ToyRunConfig, n, play=True) for n in family_fields(ToyRunConfig, play=True)}
        assert used - fields - {"h", "version"} <= PLAY_OPTIONS, sorted(used - fields - PLAY_OPTIONS)
