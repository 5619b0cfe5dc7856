"""A family as an Inspect task: its run configuration from ``-T`` arguments, its items as the dataset, its
protocol played by the task's solver, its code verdict as the score.

A sample is an episode: its id is the item's key, its input the opening of the family's published protocol (the
system prompt, and the game's first message where the game opens with one), its target what was hidden, its
metadata what a client may read before the game ends (never the hidden rule). The hidden item stays in this
process, in the :class:`TaskPlay` the sample's metadata names by an opaque token.

Trials are epochs: a family whose configuration has ``trials`` puts each item in the dataset once, and epoch
``k`` of a sample plays the item's trial ``k``; the task's default epochs are the configuration's ``trials``
(Inspect's ``--epochs`` overrides them).
"""

from __future__ import annotations

import secrets
import threading
import types
import typing
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

from wason.core import registry
from wason.core.family import EpisodeContext, Family, Item, RunSettings, own_fields, refusal
from wason.core.public import public_item
from wason.engine.runs import run_items
from wason.report.inspect_log import target_and_answer

__all__ = [
    "TASK_KEY",
    "TaskArgumentError",
    "TaskPlay",
    "TaskSample",
    "TaskSpec",
    "one_line_error",
    "play_of",
    "task_config",
    "task_spec",
]

TASK_KEY = "wason_task"
"""The sample metadata key holding the opaque token of the sample's :class:`TaskPlay`."""

MODEL_PLACEHOLDER = "inspect:model"
"""The model a configuration names under Inspect: the eval's model plays (Inspect's ``--model``), and a
family's LLM judges ask the model of the ``judge`` role (by default the same model)."""

JUDGE_ROLE = "judge"
"""The Inspect model role a family's LLM judges, labellers and game masters ask (``--model-role judge=...``);
without it they ask the eval's model, as ``wason eval`` asks the player's model by default."""

RUN_FIELDS = ("limit", "system_as_user")
"""Fields every configuration shares that a task argument may set (the rest are Inspect's to say: the model,
its endpoint and generation settings, retries, concurrency, the cache)."""

REFUSED: dict[str, str] = {
    "judge_model": f"under Inspect a judge is a model role: --model-role {JUDGE_ROLE}=PROVIDER/MODEL",
    "judge_base_url": f"under Inspect a judge is a model role: --model-role {JUDGE_ROLE}=PROVIDER/MODEL",
    "player": "under Inspect the solver says who plays: --solver wason/solver (the reference solver)",
    "model": "under Inspect the model is --model PROVIDER/MODEL",
    "constrain": "under Inspect the embedded model constrains its replies: --model wason/local -M constrain=true",
}
"""Task arguments that Inspect's own options say, with the option to use instead."""


class TaskArgumentError(ValueError):
    """A task argument the family's configuration refuses: one line naming it."""


def _one_line(text: str) -> str:
    return " ".join(text.split())


def one_line_error(message: str) -> Exception:
    """The error Inspect prints as its message alone, with no traceback (its PrerequisiteError), as wason prints
    a bad flag: raised for a bad task or model argument."""
    try:
        from inspect_ai._util.error import PrerequisiteError
        from rich.markup import escape
    except ImportError:  # pragma: no cover - an Inspect without it: its own traceback then
        return ValueError(message)
    return PrerequisiteError(f"wason: {escape(_one_line(message))}")


def _reasons(exc: ValidationError) -> str:
    return refusal(exc)


def _unwrap(annotation: Any) -> Any:
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(annotation) if a is not type(None)]
        if len(args) == 1:
            return args[0]
    return annotation


def _argument(config_type: type[RunSettings], name: str, value: Any) -> Any:
    """A ``-T`` value as the field takes it: Inspect reads ``-T ids=1,2`` as the text ``1,2`` and ``-T ids=3``
    as the number 3, where the field is a list."""
    info = config_type.model_fields[name]
    kind = _unwrap(info.annotation)
    if typing.get_origin(kind) is list:
        if isinstance(value, str):
            return [part.strip() for part in value.split(",") if part.strip()]
        if not isinstance(value, list | tuple):
            return [value]
    return value


def task_args_allowed(family: Family[Any]) -> list[str]:
    """The task arguments a family's task takes: its own configuration fields and :data:`RUN_FIELDS`."""
    config_type = family.config_type
    return [n for n in own_fields(config_type) if n not in REFUSED] + [
        n for n in RUN_FIELDS if n in config_type.model_fields
    ]


def task_config(family: Family[Any], args: Mapping[str, Any]) -> RunSettings:
    """The family's run configuration from a task's arguments, with the bounds and the one-line errors of
    ``wason eval``: a name may be written with ``-`` or ``_`` (``-T rules-file=...``) or as its flag's name.

    Raises:
        TaskArgumentError: an argument the family does not take, or a value its configuration refuses.
    """
    config_type = family.config_type
    allowed = task_args_allowed(family)
    by_flag = {config_type.flag_names.get(n, n): n for n in allowed}
    fields: dict[str, Any] = {}
    for given, value in args.items():
        name = given.replace("-", "_")
        name = by_flag.get(name, name)
        if name in REFUSED:
            raise TaskArgumentError(f"-T {given}: {REFUSED[name]}")
        if name not in allowed:
            raise TaskArgumentError(
                f"-T {given}: not an argument of wason/{family.name} (its arguments: {', '.join(allowed)})"
            )
        fields[name] = _argument(config_type, name, value)
    try:
        config: RunSettings = config_type(**fields, player="llm", model=MODEL_PLACEHOLDER)
    except ValidationError as exc:
        raise TaskArgumentError(_one_line(f"wason/{family.name}: {_reasons(exc)}")) from None
    except ValueError as exc:
        raise TaskArgumentError(_one_line(f"wason/{family.name}: {exc}")) from None
    return config


def _trials(config: RunSettings) -> int | None:
    value = getattr(config, "trials", None)
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _groups(items: list[Item]) -> list[list[Item]]:
    """Items grouped as a family lists trials: one group per item, its trials together (trial 1 first)."""
    groups: list[list[Item]] = []
    for key, item in items:
        trial = item.get("trial")
        follows = isinstance(trial, int) and not isinstance(trial, bool) and trial > 1 and bool(groups)
        if follows:
            groups[-1].append((key, item))
        else:
            groups.append([(key, item)])
    return groups


@dataclass
class TaskPlay:
    """What a task's samples play, kept in this process (the hidden items never go into a sample)."""

    family: Family[Any]
    config: RunSettings
    keys: list[str]
    items: dict[str, dict[str, Any]]
    _epochs: dict[int, dict[str, Item]] = field(default_factory=dict)
    _by_player: dict[str, RunSettings] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def played_by(self, player: str, judge_named: bool) -> RunSettings:
        """The configuration a sample plays when ``player`` plays it: the task's where the eval's model plays
        (``llm``) or a judge role is named; else as ``wason eval --player PLAYER`` has it, where a family's LLM
        judges run only on a judge model named for them.

        Raises:
            TaskArgumentError: a configuration the player cannot play without a judge model (one line).
        """
        if player == "llm" or judge_named:
            return self.config
        with self._lock:
            found = self._by_player.get(player)
            if found is None:
                fields = {**self.config.model_dump(exclude_unset=True), "player": player, "model": None}
                try:
                    found = self._by_player[player] = type(self.config)(**fields)
                except ValidationError as exc:
                    raise TaskArgumentError(_one_line(f"wason/{self.family.name}: {_reasons(exc)}")) from None
                except ValueError as exc:
                    raise TaskArgumentError(_one_line(f"wason/{self.family.name}: {exc}")) from None
        return found

    def item(self, sample_id: object, epoch: int = 1) -> tuple[str, dict[str, Any]]:
        """The key and item sample ``sample_id`` plays in epoch ``epoch``: its trial ``epoch`` where the family
        has trials (with that trial's key, as ``wason eval`` keys it), else the sample's own.

        Raises:
            KeyError: a sample this task does not have.
        """
        key = str(sample_id)
        first = self.items[key]
        if epoch <= 1 or _trials(self.config) is None:
            return key, first
        with self._lock:
            drawn = self._epochs.get(epoch)
            if drawn is None:
                drawn = self._epochs[epoch] = self._trial_items(epoch)
        return drawn.get(key, (key, first))

    def _trial_items(self, epoch: int) -> dict[str, Item]:
        """Each sample's item in trial ``epoch``: the configuration drawn with ``epoch`` trials, its groups in
        the order of the dataset's."""
        config = self.config.model_copy(update={"trials": epoch, "limit": None})
        groups = _groups(run_items(config))
        out: dict[str, Item] = {}
        for key, group in zip(self.keys, groups, strict=False):
            chosen = next((found for found in group if found[1].get("trial") == epoch), None)
            if chosen is not None:
                out[key] = chosen
        return out


class _NoRuns:
    """The store a configuration is prepared with under Inspect: it holds no runs (a configuration that reads
    another run's episodes is played under ``wason eval``)."""

    url = "inspect"

    def get_run(self, run_id: int) -> Any:
        raise ValueError(
            f"run {run_id}: under Inspect there is no wason store to read runs from; use wason eval"
        )

    def list_runs(self) -> list[Any]:
        return []

    def list_episodes(self, run_id: int) -> list[Any]:
        return []

    def list_turns(self, episode_id: int) -> list[dict[str, Any]]:
        return []

    def call_totals(self, run_id: int) -> dict[str, int]:
        return {}

    def finish_reasons(self, run_id: int) -> dict[str, int]:
        return {}

    def unreadable_counts(self, run_id: int) -> dict[str, int]:
        return {}


_PLAYS: dict[str, TaskPlay] = {}
_PLAYS_LOCK = threading.Lock()


def play_of(metadata: Mapping[str, Any] | None) -> TaskPlay:
    """The :class:`TaskPlay` a sample's metadata names.

    Raises:
        ValueError: a sample of no wason task made in this process.
    """
    token = (metadata or {}).get(TASK_KEY)
    found = _PLAYS.get(token) if isinstance(token, str) else None
    if found is None:
        raise ValueError(
            "this sample is not of a wason task made in this process: the wason solvers play the samples of "
            "`inspect eval wason/NAME` tasks"
        )
    return found


def opening(family: Family[Any], config: RunSettings, item: Mapping[str, Any]) -> list[tuple[str, str]]:
    """The messages a model reads before its first reply, as ``wason eval`` sends them: the protocol's
    instructions (as a user message where the protocol or ``system_as_user`` says so) and the game's first
    message where the protocol opens with one that the game's first observation gives."""
    protocol = family.protocol(config, item)
    out: list[tuple[str, str]] = []
    as_user = config.system_as_user or getattr(protocol, "prompt_role", "system") == "user"
    prompt = protocol.system_prompt()
    if prompt:
        out.append(("user" if as_user else "system", prompt))
    first = getattr(protocol, "first_message", None)
    if callable(first):
        try:
            observation = family.game(config, item, EpisodeContext()).start()
            text = first(observation)
        except Exception:  # a game that needs its oracle to open: its first message comes with the play
            text = None
        if text is not None:
            out.append(("user", str(text)))
    return out


@dataclass(frozen=True)
class TaskSample:
    """One sample of a family's Inspect task, as data: its id, its opening messages (``(role, text)``), its
    target and its metadata (the token of its :class:`TaskPlay`, its family, its index, its public item)."""

    id: str
    opening: list[tuple[str, str]]
    target: str
    metadata: dict[str, Any]


@dataclass(frozen=True)
class TaskSpec:
    """A family's Inspect task, as data (:func:`task_spec`); :mod:`wason.inspect._registry` makes the Inspect
    ``Task`` of it."""

    family: Family[Any]
    config: RunSettings
    samples: list[TaskSample]
    trials: int | None


def task_spec(name: str, args: Mapping[str, Any]) -> TaskSpec:
    """The Inspect task of family ``name`` with task arguments ``args``, as data: its items drawn and their
    :class:`TaskPlay` kept under a fresh token, so the solver and the scorer find them.

    Raises:
        TaskArgumentError: an argument the family refuses (Inspect prints the line).
    """
    family = registry.get(name)
    args = {k: v for k, v in args.items() if k != "model"}  # Inspect passes its model to every task
    config = task_config(family, args)
    try:
        config = family.prepare(config, _NoRuns())
    except ValueError as exc:
        raise TaskArgumentError(_one_line(f"wason/{family.name}: {exc}")) from None
    trials = _trials(config)
    try:
        drawn = run_items(
            config.model_copy(update={"trials": 1}) if trials is not None and trials > 1 else config
        )
    except ValueError as exc:  # ids a split does not have, a rules file that cannot be read, ...
        raise TaskArgumentError(_one_line(f"wason/{family.name}: {exc}")) from None
    items: dict[str, dict[str, Any]] = {}
    keys: list[str] = []
    for key, item in drawn:
        if key in items:  # two items under one key would be one sample: keep them apart
            key = f"{key}#{len(keys)}"
        items[key] = item
        keys.append(key)
    token = secrets.token_hex(8)
    play = TaskPlay(family, config, keys, items)
    with _PLAYS_LOCK:
        _PLAYS[token] = play
    samples = []
    for index, key in enumerate(keys):
        item = items[key]
        target, _ = target_and_answer(family.name, item, None)
        metadata = {TASK_KEY: token, "family": family.name, "index": index, "item": public_item(family, item)}
        samples.append(TaskSample(key, opening(family, config, item), target, metadata))
    return TaskSpec(family, config, samples, trials)
