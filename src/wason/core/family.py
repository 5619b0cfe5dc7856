"""The family contract: everything a task family provides, behind one small typed interface.

A family is one package under ``wason.tasks`` (or any installed package) that builds
one :class:`Family` object and makes it known to the registry (:mod:`wason.core.registry`). The engine, the CLI,
the reports and the sessions reach a family only through this interface, so they never name one.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import importlib
import json
import sys
import types
import typing
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Annotated, Any, ClassVar, Generic, Literal, Protocol, TypeVar

from pydantic import (
    BaseModel,
    ConfigDict,
    Discriminator,
    Field,
    SerializerFunctionWrapHandler,
    Tag,
    TypeAdapter,
    ValidationError,
    model_serializer,
    model_validator,
)
from pydantic.fields import FieldInfo

from wason.core.game import VOID, Game, Malformed, Player, TextProtocol
from wason.core.moves import Command, TerminalPlayer, form_moves
from wason.core.moves import FormField as FormField
from wason.core.moves import FormMove as FormMove
from wason.core.moves import WebForm as WebForm
from wason.core.records import (
    CallContext,
    EpisodeRow,
    Figure,
    Matrix,
    RunReport,
    RunRow,
    Score,
    run_header,
    series_names,
    to_json,
)
from wason.core.results import (
    Message,
    Results,
    ResultsReport,
    Transcript,
    episode_outcome,
    episode_summary,
    episode_title,
    player_message,
    run_notes,
    run_title,
    score_table,
)
from wason.models.base import ChatMessage, GenerationParams, Model, ModelResponse

Item = tuple[str, dict[str, Any]]
"""One episode's item: a stable key and a JSON document holding everything needed to rebuild its game."""

# -- bounds of the run configurations ------------------------------------------------------------------------
# Every size a user can set (flag, sweep, ``/api/sessions``, web form) is bounded where its field is declared, so
# every way in refuses the same values. The shared bounds are here; a family declares its own beside its fields.
# The upper bounds are generous for research and small enough that drawing a configuration's items and starting
# one game at the largest values stays quick and small (tests/core/test_config_bounds.py, bench/bench_bounds.py).

MAX_EPISODES = 50_000
"""The most episodes one configuration draws (rules x trials x ...): far more than a model run plays, and
drawing 50,000 items takes from 0.1 s to about a second and tens of MB for the built-in families; a family whose
items cost more to draw bounds them lower."""

MAX_SEED = 2**63 - 1
"""The largest seed (seeds are 0 to 2**63 - 1, as the guess-the-rule API's): stored and sent as 64-bit integers."""

MAX_IDS = 1_000
"""The most entries of a list of rule ids (a rule may be named more than once)."""

MAX_ID = 1_000_000
"""The largest rule id a list of ids may hold (an unknown id is refused by the family, naming it)."""

MAX_RUN_ID = 2**31 - 1
"""The largest run id a configuration may name (another run's evidence): the store's ids are 32-bit integers."""

MAX_NAME_CHARS = 200
"""The longest name a configuration holds: a player, a split, a judge (a model spec may name a file: it is a
path's length)."""

MAX_URL_CHARS = 2_048
"""The longest endpoint URL."""

MAX_PATH_CHARS = 4_096
"""The longest file path (Linux's PATH_MAX)."""

MAX_FORMAT_ERRORS = 100
"""The largest limit of consecutive unreadable replies that ends a game."""

MAX_TIMEOUT = 86_400.0
"""The longest model call attempt, in seconds (a day)."""

MAX_RETRIES = 100
"""The most retries of a failing model call."""

MAX_RETRY_DELAY = 60.0
"""The largest first backoff ceiling, in seconds: the ceiling never passes 60 s (``RetryPolicy.max_delay``)."""

MAX_CONCURRENCY = 1_024
"""The most episodes and calls in flight at once."""

RuleId = Annotated[int, Field(ge=1, le=MAX_ID)]
"""One rule id of a list of ids."""

Name = Annotated[str, Field(max_length=MAX_NAME_CHARS)]
"""One name of a list of names (judges, families, prompt types, ...)."""


def check_episodes(episodes: int, field: str, limit: int = MAX_EPISODES, what: str = "episodes") -> None:
    """Refuse a configuration of more than ``limit`` episodes (a product of its fields), naming the field to lower.

    Raises:
        ValueError: ``"FIELD: ..."`` with the count and the limit.
    """
    if episodes > limit:
        raise ValueError(
            f"{field}: this configuration has {episodes:,} {what}, more than the {limit:,} allowed; lower {field}"
        )


def refusal(exc: ValidationError) -> str:
    """Why a configuration was refused, in one line: each reason with the field it names (pydantic's
    "Value error, " prefix left out: the reader sees the validator's own message)."""
    return "; ".join(
        f"{'.'.join(map(str, e['loc']))}: {str(e['msg']).removeprefix('Value error, ')}"
        if e["loc"]
        else str(e["msg"]).removeprefix("Value error, ")
        for e in exc.errors()
    )


def field_range(info: FieldInfo) -> str | None:
    """A field's declared range for help texts: ``1 to 50,000``, ``at most 1,000`` (a list: entries), or None."""
    low = high = None
    for m in info.metadata:
        low = getattr(m, "ge", None) if getattr(m, "ge", None) is not None else low
        high = getattr(m, "le", None) if getattr(m, "le", None) is not None else high
        if (
            getattr(m, "max_length", None) is not None
            and typing.get_origin(_unwrapped(info.annotation)) is list
        ):
            return f"at most {m.max_length:,}"
    if high is None or isinstance(high, bool):
        return None
    if high >= MAX_SEED:  # a seed or a run id: any 64-bit number
        return None
    return f"{_number(low)} to {_number(high)}" if low is not None else f"at most {_number(high)}"


def _number(value: float) -> str:
    return f"{value:,}" if isinstance(value, int) else f"{value:g}"


def _unwrapped(annotation: Any) -> Any:
    """``X | None`` -> X."""
    args = [a for a in typing.get_args(annotation) if a is not type(None)]
    return (
        args[0]
        if typing.get_origin(annotation) in (typing.Union, types.UnionType) and len(args) == 1
        else annotation
    )


@dataclass(frozen=True)
class ModelRef:
    """Marks a configuration field that names a model (``PROVIDER:MODEL``): the player's, a judge's, a
    labeller's, a game master's. ``endpoint`` is the field holding its base URL, if it has one.

    Declared on the field's type (``Annotated[str | None, ModelRef("judge_base_url")]``), so code that takes a
    configuration from outside (the server) finds every model it names without knowing the family: a request
    may name only the models the operator allowed, and never chooses where their keys are sent.
    """

    endpoint: str | None = None


@dataclass(frozen=True)
class EndpointRef:
    """Marks a configuration field that holds the base URL of the model named by field ``model``."""

    model: str


def model_fields(config_type: type[BaseModel]) -> dict[str, str | None]:
    """The fields of a configuration that name models, each with the field of its base URL (or None)."""
    found: dict[str, str | None] = {}
    for name, info in config_type.model_fields.items():
        for mark in info.metadata:
            if isinstance(mark, ModelRef):
                found[name] = mark.endpoint
    return found


def endpoint_fields(config_type: type[BaseModel]) -> dict[str, str]:
    """The fields of a configuration that hold base URLs, each with the field of the model it serves."""
    found: dict[str, str] = {}
    for name, info in config_type.model_fields.items():
        for mark in info.metadata:
            if isinstance(mark, EndpointRef):
                found[name] = mark.model
    return found


PLAY_OPTIONS = frozenset(
    {"seed", "rule", "index", "name", "session", "db", "help", "family", "command", "session_command"}
)
"""What ``wason play NAME`` and ``wason session start NAME`` take for themselves: their own options (``--seed`` draws
the item to play, ``--rule``, ``--index``, ``--name``, ``--session``, ``--db``, ``--help``) and the names the
command line keeps its words under. A family's field whose name or flag is one of them is offered there as
``--config-NAME`` (``--config-seed``), or under the flag :attr:`RunSettings.play_flag_names` gives it, or not at all
where :attr:`RunSettings.not_in_play` leaves it out: never silently dropped."""


def _taken(flag: str) -> bool:
    return flag[2:].replace("-", "_") in PLAY_OPTIONS


def _check_play_flags(config_type: type[RunSettings]) -> None:
    """Refuse, when a configuration is declared, a ``play_flag_names`` entry that names no field of its own or
    gives a field one of ``wason play``'s own options (:data:`PLAY_OPTIONS`)."""
    fields = own_fields(config_type)
    unknown = sorted(set(config_type.play_flag_names) - set(fields))
    if unknown:
        raise TypeError(
            f"{config_type.__name__}.play_flag_names names no field of its own: {', '.join(unknown)}"
        )
    for name in config_type.play_flag_names:
        if name not in config_type.not_in_play and _taken(flag := config_type.play_flag(name)):
            raise TypeError(
                f"{config_type.__name__}.play_flag_names: {flag} is an option of `wason play` and `wason session "
                f"start` of their own; give {name!r} another flag there"
            )


def own_fields(config_type: type[RunSettings]) -> list[str]:
    """The fields of a family's configuration beyond :class:`RunSettings`' and its internal ones: those the
    family declares, in its order, then those of the settings it takes from core (:class:`JudgedSettings`' judge),
    so that its flags, forms and sweeps list its own first."""
    shared = set(RunSettings.model_fields) | set(config_type.internal_fields)
    from_core = {
        name
        for klass in config_type.__mro__
        if klass.__module__ == __name__
        for name in getattr(klass, "__annotations__", {})
    }
    return sorted((n for n in config_type.model_fields if n not in shared), key=lambda n: n in from_core)


class RunSettings(BaseModel):
    """Who plays and how a model is called: the part every family's run configuration shares.

    A family's configuration subclasses it, adds its own fields (the single home of their defaults) and a
    ``task`` literal naming the family. Stored with the run (never the API key), so ``--resume`` rebuilds it.
    A field naming a model is marked :class:`ModelRef`, one holding its base URL :class:`EndpointRef`.
    """

    model_config = ConfigDict(frozen=True)

    player: str = Field(default="llm", max_length=MAX_NAME_CHARS)
    model: Annotated[str | None, ModelRef(endpoint="base_url")] = Field(
        default=None, max_length=MAX_PATH_CHARS
    )
    base_url: Annotated[str | None, EndpointRef(model="model")] = Field(
        default=None, max_length=MAX_URL_CHARS
    )
    params: GenerationParams = Field(default_factory=GenerationParams)
    # seconds per model call attempt
    timeout: float = Field(default=120.0, gt=0.0, le=MAX_TIMEOUT, allow_inf_nan=False)
    retries: int = Field(default=6, ge=0, le=MAX_RETRIES)
    # the first backoff ceiling in seconds; each retry doubles it, up to 60 s
    retry_delay: float = Field(default=1.0, ge=0.0, le=MAX_RETRY_DELAY, allow_inf_nan=False)
    concurrency: int | None = Field(default=None, ge=1, le=MAX_CONCURRENCY)
    use_cache: bool = True
    system_as_user: bool = False
    # hold every reply to the protocol's reply format (its grammar, or JSON schema), ``--constrain``
    constrain: bool = False
    # set by the engine on a solver run made as another run's baseline (``Family.baseline``), read by the
    # engine, the reports and the web: declared here so that no family can drop it
    baseline_for: int | None = Field(
        default=None, ge=1, le=MAX_RUN_ID, description="the model run this solver run is the baseline of"
    )
    # play only the first N items of the configuration, each with all its trials (as Inspect's --limit, which
    # takes the first N samples and then runs each for every epoch); applied by the engine when it makes the run
    # (wason.engine.limit_items), so every family has it. Stored with the run only when set, so the stored
    # configuration of a run without it is what it was before it existed
    limit: int | None = Field(
        default=None,
        ge=1,
        le=MAX_EPISODES,
        description="play only the first N items (each with all its trials), as Inspect's --limit",
    )

    @model_serializer(mode="wrap")
    def _without_unset_limit(self, handler: SerializerFunctionWrapHandler) -> Any:
        data = handler(self)
        if isinstance(data, dict) and data.get("limit", 0) is None:
            del data["limit"]
        return data

    # fields of the family's own that are not command-line flags (set by the engine or derived)
    internal_fields: ClassVar[frozenset[str]] = frozenset({"task", "baseline_for"})
    # the family's own fields that may be shown while a game of the run is not over (limits, protocols,
    # judges): an allow-list, so that seeds, splits, ids and counts that draw the items - and any field added
    # later - stay hidden until every game of the run is over (wason.core.public)
    public_fields: ClassVar[frozenset[str]] = frozenset()
    # the family's own fields that choose which items a run plays (a split, the ids, a file of rules, a count, the
    # seed that draws them): their values would tell a player which hidden item a game is, so none is in
    # public_fields. Declared by every family that shows fields (wason.testing.check_family asks for it where
    # public_fields is not empty): None is undeclared; a family whose item set no field chooses declares frozenset()
    item_fields: ClassVar[frozenset[str] | None] = None
    # the fields that name what a run plays, shown in its label after the family's name (``game:L3``; a list
    # joined with ``,``, several fields with ``:``; wason.core.labels.run_label)
    label_fields: ClassVar[tuple[str, ...]] = ("split",)
    # flag names that differ from the field's name (``rules_file`` -> ``--rules``)
    flag_names: ClassVar[Mapping[str, str]] = {}
    # metavars shown in ``--help``
    flag_metavars: ClassVar[Mapping[str, str]] = {}
    # fields that ``wason play NAME`` and ``wason session start NAME`` do not offer
    not_in_play: ClassVar[frozenset[str]] = frozenset()
    # flag names in ``wason play NAME`` and ``wason session start NAME`` that differ from the field's flag; a
    # field named like one of their own options (PLAY_OPTIONS: ``--seed`` there draws the item) needs none: it is
    # offered as ``--config-NAME`` (``--config-seed``) unless named here or in not_in_play
    play_flag_names: ClassVar[Mapping[str, str]] = {}
    # fields that matter only to a model or a solver (a reply format's limits, a prompt variant, a solver's
    # stopping rule, a game master's sampling): the Play page never offers them to a person (the command line
    # keeps them: ``wason session start`` may drive a game with a model's text replies)
    model_only: ClassVar[frozenset[str]] = frozenset()
    # defaults that differ in ``wason play NAME`` (e.g. a person plays a larger split than a model's default)
    play_defaults: ClassVar[Mapping[str, Any]] = {}
    # tighter upper bounds of integer fields for a game or run that arrives over HTTP (``wason serve``): a bound
    # the command line may exceed because it only costs the user's own time (e.g. drawing thousands of generated
    # rules), while a request must start within seconds whatever it asks
    served_bounds: ClassVar[Mapping[str, int]] = {}
    # what the text environments' shaped rewards count (wason.env.rewards): a component ("invalid", "repeat") to
    # the episode metric that counts it (``{"repeat": "repeats"}``); none by default
    reward_counts: ClassVar[Mapping[str, str]] = {}
    # the episode metric holding the share of the family's hypothesis space the tests so far ruled out, one value
    # after each test (the "information" component of a shaped reward); None: the family has none
    reward_information: ClassVar[str | None] = None
    # the module of the reward audit's declarations (wason.env.audit), or None: its PLAYERS (degenerate players:
    # a name to the replies it sends in turn, the last repeated until the game ends), hacks(item) (a name to the
    # replies of a hack built from the hidden item, wrong by construction) and public_names() (names any player
    # may read); none of them may ever be rewarded
    audit_module: ClassVar[str | None] = None
    # the curricula's difficulty axes (wason.env.curriculum): a field to its values, easiest first; none by default
    difficulty_axes: ClassVar[Mapping[str, tuple[Any, ...]]] = {}

    @classmethod
    def __pydantic_init_subclass__(cls, **kwargs: Any) -> None:
        super().__pydantic_init_subclass__(**kwargs)
        _check_play_flags(cls)

    @classmethod
    def play_flag(cls, name: str) -> str:
        """The flag of the family's field ``name`` in ``wason play NAME`` and ``wason session start NAME``: its
        :attr:`play_flag_names` entry, else its flag, prefixed ``config-`` where that is one of those commands' own
        options (:data:`PLAY_OPTIONS`: ``--seed`` there draws the game, so a field ``seed`` is ``--config-seed``)."""
        if name in cls.play_flag_names:
            return "--" + cls.play_flag_names[name].replace("_", "-")
        flag = "--" + cls.flag_names.get(name, name).replace("_", "-")
        return f"--config-{flag[2:]}" if _taken(flag) or name in PLAY_OPTIONS else flag

    @classmethod
    def with_play_defaults(cls, given: Mapping[str, Any]) -> dict[str, Any]:
        """The fields of a game a person plays: ``given``, over the play defaults."""
        return {**cls.play_defaults, **given}

    # the run's items, where the settings draw them (the default of the family's methods of the same names)
    def items(self) -> list[Item]:
        raise NotImplementedError(f"{type(self).__name__} draws no items: its family's items() does")

    def item_count(self) -> int | None:
        return None

    def item_at(self, index: int) -> Item:
        return self.items()[index]


C = TypeVar("C", bound=RunSettings)


class RunReader(Protocol):
    """What reports read from the store (implemented by :class:`wason.store.Store`)."""

    url: str

    def get_run(self, run_id: int) -> RunRow: ...

    def list_runs(self) -> list[RunRow]: ...

    def list_episodes(self, run_id: int) -> list[EpisodeRow]: ...

    def list_turns(self, episode_id: int) -> list[dict[str, Any]]: ...

    def call_totals(self, run_id: int) -> dict[str, int]: ...

    def finish_reasons(self, run_id: int) -> dict[str, int]: ...

    def unreadable_counts(self, run_id: int) -> dict[str, int]: ...


class Oracle(Protocol):
    """A model a game's judges or labellers may ask (a :class:`wason.models.client.ModelClient`)."""

    @property
    def model(self) -> Model: ...

    async def complete(
        self, messages: list[ChatMessage], params: GenerationParams, context: CallContext | None = None
    ) -> ModelResponse: ...


@dataclass(frozen=True)
class OracleSpec:
    """The model a run's oracles need: its spec and endpoint, and whether it is the player's own."""

    model: str
    base_url: str | None
    same_as_player: bool


class JudgedSettings(RunSettings):
    """The settings of a family whose games may ask an LLM judge (or labeller): its model and endpoint, by
    default the player's. The family's :meth:`Family.oracle` is then ``config.judge_oracle(used, what)``."""

    judge_model: Annotated[str | None, ModelRef("judge_base_url")] = Field(
        default=None, max_length=MAX_PATH_CHARS, description="model of the LLM judge (default: --model)"
    )
    judge_base_url: Annotated[str | None, EndpointRef("judge_model")] = Field(
        default=None, max_length=MAX_URL_CHARS, description="endpoint of --judge-model"
    )

    # the names in the family's ``judges`` field of the judges that ask a model (``{"llm"}``): they run only where
    # there is a model to ask, the judge's (--judge-model) or a model player's own
    model_judges: ClassVar[frozenset[str]] = frozenset()

    @model_validator(mode="before")
    @classmethod
    def _no_model_no_model_judges(cls, data: Any) -> Any:
        # Without a judge model, the judges that ask one are left out where no model plays: from the judges
        # named or the default when a person or a solver plays (its configuration is often a model run's,
        # replayed), from the default only when a model player has no model (named, they are refused below,
        # naming the field). Runs before validation, so anything may arrive: only a list is adjusted, anything
        # else is left for the field's own check, which names it (a string is no list).
        if not cls.model_judges or not isinstance(data, dict) or data.get("judge_model"):
            return data
        if data.get("player", "llm") == "llm" and (data.get("model") or "judges" in data):
            return data
        judges = data.get("judges", cls.model_fields["judges"].get_default(call_default_factory=True))
        if isinstance(judges, list | tuple):
            data = {**data, "judges": [j for j in judges if j not in cls.model_judges]}
        return data

    @model_validator(mode="after")
    def _model_judges_need_a_model(self) -> JudgedSettings:
        asked = self.model_judges_asked()
        if asked and self.oracle_model is None:
            raise ValueError(
                f"judges: the {asked[0]} judge needs a model (--model or --judge-model), or leave it out"
            )
        return self

    def model_judges_asked(self) -> list[str]:
        """The judges of the run that ask a model, in its order."""
        return [j for j in getattr(self, "judges", ()) if j in self.model_judges]

    def without_model_judges(self) -> dict[str, Any]:
        """The update that leaves out the judges that ask a model when no judge model is named: for the
        configuration of a player without a model (a solver's baseline); nothing to update otherwise."""
        if not self.model_judges or self.judge_model is not None:
            return {}
        return {"judges": [j for j in getattr(self, "judges", ()) if j not in self.model_judges]}

    @property
    def oracle_model(self) -> str | None:
        """The judge's model: ``judge_model``, else the player's."""
        return self.judge_model or self.model

    def judge_oracle(self, used: bool, what: str = "the LLM judge") -> OracleSpec | None:
        """The oracle of a run whose games ask ``what`` (when ``used``): the judge's model, at its own endpoint
        when one is given, else the player's; a run that asks it without any model is refused, naming the flag."""
        if not used:
            return None
        if self.oracle_model is None:
            raise ValueError(f"{what} needs a model (--judge-model)")
        same = self.judge_model is None
        return OracleSpec(
            model=self.oracle_model,
            base_url=self.base_url if same else self.judge_base_url,
            same_as_player=same,
        )


JUDGE_FIELDS = frozenset({"judges", "judge_model", "judge_base_url"})
"""The fields of :class:`LlmJudgedSettings` that choose the judges and the LLM judge's model: public while a game
is on, and never offered to a person (a person is judged by code, :attr:`RunSettings.not_in_play`)."""


class LlmJudgedSettings(JudgedSettings):
    """The settings of a family whose ``judges`` field may name ``llm``: a published LLM judge, run beside the
    judges of code where a model can be asked."""

    model_judges: ClassVar[frozenset[str]] = frozenset({"llm"})

    @property
    def llm_judge(self) -> bool:
        """Whether the LLM judge runs."""
        return "llm" in getattr(self, "judges", ())


@dataclass(frozen=True)
class EpisodeContext:
    """Who an episode's game belongs to: for its oracles' call records and cache keys."""

    run_id: int | None = None
    episode_id: int | None = None
    oracle: Oracle | None = None

    def calls(self, sample: str) -> CallContext:
        """The call context of the episode's oracle calls, ``sample`` keeping their cached replies apart."""
        return CallContext(run_id=self.run_id, episode_id=self.episode_id, sample=sample)


@dataclass
class PlayIO:
    """How a person at a terminal is read from and written to."""

    read: Callable[[str], str]
    write: Callable[[str], None]
    turn: Callable[[], int] | None = None
    """The game's turn now (the moves a game makes by itself count), where the caller knows it."""


class ActionCodec:
    """Actions to and from their stored JSON: ``{"type": ClassName, **fields}``, one class per action kind.

    The decoder is a discriminated union on ``type``: an unknown type is a ``ValueError`` naming it, and each
    kind is validated by pydantic (lists become the tuples the dataclass declares). ``Malformed`` is always
    one of the kinds. ``hooks`` decode a kind by hand where pydantic's coercion would change a value.
    """

    def __init__(
        self, *kinds: type[Any], hooks: Mapping[str, Callable[[dict[str, Any]], Any]] | None = None
    ) -> None:
        from typing import Annotated, Union

        self.kinds = {k.__name__: k for k in (*kinds, Malformed)}
        self.hooks = dict(hooks or {})
        tagged = tuple(Annotated[k, Tag(k.__name__)] for k in self.kinds.values())
        union: Any = Annotated[Union[tagged], Discriminator(_action_tag)]  # noqa: UP007 - built at run time
        self._adapter: Any = TypeAdapter(union)

    def encode(self, action: Any) -> dict[str, Any]:
        if not dataclasses.is_dataclass(action) or isinstance(action, type):
            raise TypeError(f"an action is a dataclass instance, not {type(action).__name__}")
        return {"type": type(action).__name__, **dataclasses.asdict(action)}

    def decode(self, data: Mapping[str, Any]) -> Any:
        kind = data.get("type")
        if not isinstance(kind, str) or kind not in self.kinds:
            raise ValueError(f"unknown action type {kind!r}; expected one of: {', '.join(self.kinds)}")
        if kind in self.hooks:
            return self.hooks[str(kind)](dict(data))
        fields = {k: v for k, v in data.items() if k != "type"}
        return self._adapter.validate_python({"type": kind, **fields})


def _action_tag(value: Any) -> str | None:
    if isinstance(value, Mapping):
        tag = value.get("type")
        return str(tag) if tag is not None else None
    return type(value).__name__


class GameApi(ABC):
    """How a family is played through the guess-the-rule game API (the reference's Python and HTTP shape).

    A family that offers it returns one from :meth:`Family.game_api`. The generic code on top of sessions
    (``wason.games`` in Python, ``/guess-the-rule/...`` in ``wason serve``) creates games, asks for more
    examples and validates guesses only through these methods, so it never names a family.

    Attributes:
        game_name: the published game name clients send (``game_name`` in ``POST /guess-the-rule/game``).
        levels: the difficulties it accepts (``L1``, ``L2``, ``L3``); clients may send them in any case (the
            reference upper-cases them), :meth:`create` receives one of these.
        class_name: the reference's class of the game (``game_class_name`` in the summary); ``wason.games``
            offers a class by this name with the reference's constructor. None: no such class.
        domain: the reference's ``domain`` (``natural_language``, ``lexical``, ``math``), or None.
        game_gen_type: the reference's ``game_gen_type`` (``static`` or ``dynamic``), or None.
    """

    game_name: ClassVar[str]
    levels: ClassVar[tuple[str, ...]] = ("L1", "L2", "L3")
    class_name: ClassVar[str | None] = None
    domain: ClassVar[str | None] = None
    game_gen_type: ClassVar[str | None] = None

    @abstractmethod
    def create(self, difficulty: str, num_init_examples: int, seed: int | None) -> tuple[RunSettings, Item]:
        """The configuration and item of a new game. ``seed`` draws the rule (None: a fresh random seed).

        Raises:
            ValueError: a bad difficulty or number of examples, naming the field (``difficulty``,
                ``num_init_examples``).
        """

    @abstractmethod
    def more(self, n: int) -> Any:
        """The action asking for ``n`` more examples (raises ``ValueError`` naming ``n_examples`` when bad)."""

    @abstractmethod
    def guess(self, text: str) -> Any:
        """The action of a free-text guess (``give up`` included, as the reference reads it)."""

    @abstractmethod
    def view(self, observation: Any, done: bool) -> dict[str, Any]:
        """The reference's fields for the player after an action: ``system_message`` always; where the game has
        them ``positive_examples``, ``negative_examples``, ``total_examples_available``, ``guess_result``
        (``True``/``False`` for a judged guess, else None). Never the hidden rule."""

    def check_create(self, difficulty: str, num_init_examples: int, most: int) -> None:
        """Refuse what :meth:`create` cannot make, naming the field: a difficulty not of :attr:`levels`, or a number
        of first examples that is not a whole number from 1 to ``most``."""
        if difficulty not in self.levels:
            raise ValueError(
                f"difficulty must be one of {', '.join(self.levels)}, not {str(difficulty)[:20]!r}"
            )
        if isinstance(num_init_examples, bool) or not isinstance(num_init_examples, int):
            raise ValueError("num_init_examples must be a whole number")
        if not 1 <= num_init_examples <= most:
            raise ValueError(f"num_init_examples must be between 1 and {most}")

    @staticmethod
    def check_more(n: int, most: int) -> int:
        """The ``n`` of :meth:`more`, refused naming ``n_examples`` unless a whole number from 1 to ``most``."""
        if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= most:
            raise ValueError(f"n_examples must be a whole number between 1 and {most}")
        return n

    def rule_text(self, item: Mapping[str, Any]) -> str:
        """The hidden rule in words: by default the item's ``rule.text``."""
        return str(item["rule"]["text"])

    def rule_object(self, item: Mapping[str, Any]) -> Any:
        """The hidden rule as the summary's ``rule`` shows it once the game is over, JSON-ready: the reference's
        object where it has one; by default :meth:`rule_text`."""
        return self.rule_text(item)

    def resume_message(self, history: Sequence[tuple[Any, Any]], status: str, rule: Any) -> str | None:
        """The summary's ``system_message``: what a player who comes back to the game reads (the reference's
        "Welcome back..." text, with everything shown so far, or its game-over text).

        Args:
            history: the game's (action, observation) pairs in order; the first action (the start) is None.
            status: ``ongoing``, ``won`` or ``lost``.
            rule: :meth:`rule_object` once the game is over, else None (the text must not name the rule then).

        Returns:
            The text, or None for the ``system_message`` of the last view.
        """
        return None


REPLY_MOVE = FormMove(
    name="reply",
    label="Send",
    fields=(FormField("text", "Your reply", kind="textarea"),),
    hint="read like a model's reply, by the game's text protocol",
)


def reply_command(protocol: TextProtocol[Any, Any]) -> Command:
    """The terminal's move for a family that declares none (:meth:`Family.moves`): the typed line is read by the
    family's text protocol as a model's reply would be (the web form's :data:`REPLY_MOVE`); a line the protocol
    cannot read plays nothing and its reason is shown."""

    def make(values: Mapping[str, str]) -> Any:
        action = protocol.parse(values.get("text", ""))
        if isinstance(action, Malformed):
            raise ValueError(action.reason)
        return action

    return Command(
        name="reply",
        label="Send",
        make=make,
        fields=(FormField("text", "Your reply"),),
        words=("",),
        syntax="TEXT",
        hint="a reply as a model would write it (the text above says how)",
    )


REPORT_HOOKS: Mapping[str, tuple[str, ...]] = {
    "results": ("store", "run_ids"),
    "report_json": ("store", "run_ids"),
    "run_json": ("store", "run_id"),
    "scores": ("store", "run_id"),
    "messages": ("data", "run", "system"),
    "figures": ("store", "run_ids"),
    "matrices": ("store", "run_ids"),
}
"""The presentation methods a family's :attr:`Family.reports` modules may give as plain functions, with the
arguments each is called with (those of the method it replaces; ``system`` is the system prompt a model read,
or None)."""


class Family(ABC, Generic[C]):
    """One task family. Subclasses set the class attributes and implement the abstract methods; the optional
    methods default to "this family has none".

    Attributes:
        name: the registry key and the ``task`` of its runs.
        title: how reports name it.
        config_type: its run configuration (a :class:`RunSettings` subclass).
        summary: one line for ``wason eval --help``.
        players: the ``--player`` values ``wason eval NAME`` accepts (``llm``, and ``solver`` with a solver).
        playable: whether a person can play it at the terminal (``wason play NAME``; see :meth:`human`).
        commands: help of the family's own ``wason NAME ...`` commands, or empty (see :meth:`add_commands`).
        own_rules: how to write a rule of one's own for :meth:`own_rule` (shown by the web page's field), or
            empty when the family takes none.
        reports: the modules that present its results (see :data:`REPORT_HOOKS`).
    """

    name: ClassVar[str]
    title: ClassVar[str]
    config_type: type[C]
    summary: ClassVar[str] = ""
    playable: ClassVar[bool] = False
    commands: ClassVar[str] = ""
    own_rules: ClassVar[str] = ""
    reports: ClassVar[tuple[str, ...]] = ()
    """Dotted names of the modules that present the family's results, imported when first needed (listing the
    families imports none of them). A function one of them defines under a name of :data:`REPORT_HOOKS` replaces
    the default method of that name, with the method's arguments (``messages`` takes ``(data, run, system)``,
    ``system`` being the system prompt a model read, or None); the first module that defines it wins."""

    wording: ClassVar[str | None] = None
    """Dotted name of the module that words the game for a person on the web page, where the protocol's texts
    are written for a model: its ``intro(observation)`` is the page's text at the start and its
    ``answer(observation)`` what the game answered a move (the observation as JSON, in both). None: the protocol's
    texts (:meth:`web_form`)."""

    def report_hook(self, name: str) -> Callable[..., Any] | None:
        """The function named ``name`` of the first :attr:`reports` module that defines one, or None."""
        for module in self.reports:
            hook = getattr(importlib.import_module(module), name, None)
            if hook is not None:
                return typing.cast(Callable[..., Any], hook)
        return None

    def presents(self, name: str) -> bool:
        """Whether the family gives its own ``name`` (one of :data:`REPORT_HOOKS`), by a method or a function of
        its :attr:`reports` modules, rather than the default."""
        return getattr(type(self), name) is not getattr(Family, name) or self.report_hook(name) is not None

    # -- definition: what the family plays (its runs' items, games, protocol, actions, solver) -------------------
    @property
    def players(self) -> tuple[str, ...]:
        """The ``--player`` values ``wason eval NAME`` accepts: ``llm``, and ``solver`` where the family has a
        :meth:`solver`."""
        return ("llm", "solver") if type(self).solver is not Family.solver else ("llm",)

    def items(self, config: C) -> list[Item]:
        """The run's episodes, deterministic from the configuration (and its seeds), with provenance; by default
        the configuration's own (:meth:`RunSettings.items`)."""
        return config.items()

    def item_count(self, config: C) -> int | None:
        """How many items :meth:`items` gives, when the family can say so without drawing them all; then a session
        (one game) draws only its own, with :meth:`item_at`. None (the default, unless the configuration counts
        them): a session draws them all and picks one, which is right where items are cheap to draw."""
        return config.item_count()

    def item_at(self, config: C, index: int) -> Item:
        """``items(config)[index]``, drawn alone where :meth:`item_count` says how many there are (a family that
        overrides one overrides both); by default the configuration's, where it draws the items."""
        own = type(config).items is not RunSettings.items  # the settings draw the items themselves
        return config.item_at(index) if own or type(self).items is Family.items else self.items(config)[index]

    @abstractmethod
    def game(self, config: C, item: Mapping[str, Any], context: EpisodeContext) -> Game[Any, Any]:
        """A new game for one item; ``context.oracle`` is the model its LLM judges or labellers ask."""

    @abstractmethod
    def protocol(self, config: C, item: Mapping[str, Any]) -> TextProtocol[Any, Any]:
        """The text protocol a model plays the item through (also renders the transcript's feedback)."""

    def sample_key(self, config: C, item: Mapping[str, Any]) -> str:
        """What keeps the cached replies of different episodes apart (the item, the trial): by default a digest
        of the item's JSON, so two items share cached replies only when they are the same item."""
        text = json.dumps(item, sort_keys=True, separators=(",", ":"), default=str)
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    action_types: ClassVar[tuple[type[Any], ...]] = ()
    """The family's actions, one dataclass per kind of move, for the default :attr:`actions`."""

    action_codec: ClassVar[ActionCodec | None] = None
    """The codec of the family's actions where they need hand-made decoding (``hooks``); None: the one of its
    :attr:`action_types`."""

    action_writer: ClassVar[str | None] = None
    """The module (a dotted name, imported when first needed) whose ``write_action(action)`` writes an action as
    the message that makes it under the published protocol, for the default :meth:`action_message`."""

    @property
    def actions(self) -> ActionCodec:
        """The codec of the family's actions: its :attr:`action_codec`, else the one of its :attr:`action_types`."""
        return self.action_codec if self.action_codec is not None else _codec_of(self.action_types)

    def generation_params(self, config: C, item: Mapping[str, Any]) -> GenerationParams:
        """The sampling parameters of one episode's model player: by default the run's (``config.params``); a
        family with trials may move a given seed on per trial, so each trial samples with its own seed."""
        return config.params

    def solver(self, config: C, item: Mapping[str, Any]) -> Player[Any, Any] | None:
        """The reference solver for one item, or None when the family has none."""
        return None

    def sample_actions(self, config: C, item: Mapping[str, Any]) -> list[Any] | None:
        """A short scripted game (actions that end it), for contract tests and docs; None when the family has
        a solver to play it."""
        return None

    def public(self, item: Mapping[str, Any]) -> list[str]:
        """Keys of an item a player may see before the game ends; the rest (the hidden rule, and whatever
        names or derives it: ids, provenance, answers) is shown only once the game is over. An allow-list, so
        a key a family adds later stays hidden until it is named here."""
        return []

    # -- presentation: what it measures, declared as data for the shared renderers -------------------------------
    def describe(self, config: C, n_episodes: int, n_todo: int, who: str) -> str:
        """What a run of ``config`` plays and who plays it, for the line printed when it starts. By default its
        title, the episodes and the player; a family adds what sets its runs apart (levels, limits, judges)."""
        return f"{self.title}: {n_episodes} episodes ({n_todo} to play) with {who}"

    def results(self, store: RunReader, run_ids: Sequence[int]) -> Results:
        """The run's results as data (:mod:`wason.core.results`): its paper's tables, the first run with its
        baselines beside it, which the shared renderers draw for ``wason show``, the web viewer and papers. By
        default one table: a row per run, a column per :meth:`scores`."""
        hook = self.report_hook("results")
        if hook is not None:
            return typing.cast(Results, hook(store, run_ids))
        runs = [store.get_run(r) for r in run_ids]
        rows = [
            (name, run.id, self.scores(store, run.id))
            for name, run in zip(series_names(runs), runs, strict=True)
        ]
        table = score_table("scores", self.title, "Player", rows)
        return Results(
            title=run_title(runs[0], self.config_type.label_fields),
            tables=[table],
            notes=run_notes(store, run_ids[0]),
        )

    def report_json(self, store: RunReader, run_ids: Sequence[int]) -> RunReport:
        """The typed report of ``wason show RUN --json`` (and the web pages): the first run's header, its
        results, its episodes, then its baselines' reports. By default built from :meth:`results`; a family
        whose JSON report has a shape of its own gives it by :meth:`run_json`."""
        hook = self.report_hook("report_json")
        if hook is not None:
            return typing.cast(RunReport, hook(store, run_ids))
        own = self.run_json(store, run_ids[0])
        if own is not None:
            return own.model_copy(update={"baselines": [self.run_json(store, r) for r in run_ids[1:]]})
        results = self.results(store, run_ids)
        reports = [
            ResultsReport.model_validate(
                {
                    **run_header(store.get_run(r)),
                    "episodes": [episode_summary(e) for e in store.list_episodes(r)],
                }
            )
            for r in run_ids
        ]
        first = reports[0].model_copy(update={"results": results, "baselines": reports[1:]})
        return first

    def run_json(self, store: RunReader, run_id: int) -> RunReport | None:
        """One run's typed JSON report, for a family whose report has a shape of its own (a subclass of
        :class:`~wason.core.records.RunReport` with a ``baselines`` field, which :meth:`report_json` fills with
        the baselines' reports); None (the default): the report is built from :meth:`results`."""
        hook = self.report_hook("run_json")
        return typing.cast(RunReport, hook(store, run_id)) if hook is not None else None

    def messages(self, data: Mapping[str, Any], run: RunRow) -> Transcript:
        """One episode as a conversation (:class:`wason.core.results.Transcript`) from its JSON record
        (``wason show RUN --episode N --json``): by default the system prompt the model read, each move as the
        player wrote it (or :meth:`describe_action` of a move that wrote no text) with the game's answer, and how
        it ended. A family adds its own annotations (verdicts, a judge's reasoning) by overriding it."""
        system = self.system_prompt(run, data) if run.player == "llm" else None
        hook = self.report_hook("messages")
        if hook is not None:
            return typing.cast(Transcript, hook(data, run, system))
        messages: list[Message] = []
        if system:
            messages.append(Message(role="system", name="system", text=system))
        for t in data.get("turns") or []:
            action = t.get("action") or {}
            text = t.get("reply")
            if text is None:
                text = self.describe_action(action) or json.dumps(action)
            messages.append(player_message(run, t["index"], str(text)))
            if t.get("feedback"):
                messages.append(Message(role="game", name="game", text=str(t["feedback"]), turn=t["index"]))
        messages.append(episode_outcome(data))
        return Transcript(title=episode_title(data), messages=messages, success=data.get("success"))

    def system_prompt(self, run: RunRow, data: Mapping[str, Any]) -> str | None:
        """The system prompt a model read in an episode (None when the run's configuration or item cannot be
        read: an older run)."""
        try:
            config = self.config_type.model_validate(run.config)
            return self.protocol(config, data.get("item") or {}).system_prompt()
        except (KeyError, TypeError, ValueError):
            return None

    def scores(self, store: RunReader, run_id: int) -> list[Score]:
        """The run's numbers as columns of a comparison table (``wason show RUN RUN...``, ``--format``), in the
        paper's column order: rates with their counts and Wilson intervals, means with their intervals, counts.
        The comparison adds the columns every family shares after them (format errors and truncated replies,
        errored episodes, tokens). By default: the share of finished games that succeeded."""
        hook = self.report_hook("scores")
        if hook is not None:
            return typing.cast(list[Score], hook(store, run_id))
        games = wins = 0
        for e in store.list_episodes(run_id):
            if e.status == "completed" and not (e.metrics or {}).get(VOID):
                games += 1
                wins += bool(e.success)
        return [Score.rate("Success", "Success", wins, games, "share of finished games won")]

    def figures(self, store: RunReader, run_ids: Sequence[int]) -> list[Figure]:
        """The family's own figures of these runs (one series per run, named for its model or player), as data
        that :mod:`wason.report.plots` draws; every family also gets the comparison's accuracy figure. By
        default none."""
        hook = self.report_hook("figures")
        return typing.cast(list[Figure], hook(store, run_ids)) if hook is not None else []

    def matrices(self, store: RunReader, run_ids: Sequence[int]) -> list[Matrix]:
        """Tables of one score over two factors that these runs fill together (guessing models x the runs
        whose evidence they read), printed under the comparison in every format and drawn by the plots. By
        default none."""
        hook = self.report_hook("matrices")
        return typing.cast(list[Matrix], hook(store, run_ids)) if hook is not None else []

    def column(self, config: C, item: Mapping[str, Any]) -> str:
        """The column an episode of ``item`` fills in a table across families (``wason grid``: one row per
        player, one column per game and level, as the guess-the-rule paper's Table 2); by default the title."""
        return self.title

    def describe_action(self, action: Mapping[str, Any]) -> str | None:
        """A stored action (its JSON) in the player's words, for the web page's history; None: the page writes
        its kind and values."""
        return None

    def action_message(self, action: Mapping[str, Any]) -> str | None:
        """A stored action (its JSON) as the message that makes it under the family's published protocol, for
        players that write no text (the solver): ``wason show --novelty`` measures these messages beside the
        replies models wrote. None: its :meth:`describe_action`, else its JSON. By default, the action decoded
        and written by the :attr:`action_writer`'s ``write_action``; None without one, or for what is not an
        action of this game (no message makes it)."""
        if self.action_writer is None:
            return None
        try:
            decoded = self.actions.decode(action)
        except ValueError:
            return None
        write: Callable[[Any], str | None] = importlib.import_module(self.action_writer).write_action
        return write(decoded)

    # -- play: a person at the terminal or in a browser ----------------------------------------------------------
    def human(self, config: C, item: Mapping[str, Any], io: PlayIO) -> Player[Any, Any] | None:
        """A person playing one item at the terminal, or None when the family cannot be played so. By default,
        for a :attr:`playable` family, the generic player of its declared moves (:meth:`moves`): it shows
        :meth:`terminal_text` and reads the moves as typed commands; a family that declares none is played by
        typing a reply as a model would write it (:func:`reply_command`)."""
        if not self.playable:
            return None
        if self.moves(config, item, None):
            moves: Callable[[Any, int], Sequence[Command]] = lambda observation, turn: self.moves(  # noqa: E731
                config, item, observation
            )
        else:  # no moves declared: the person types what a model would write, read by the protocol
            reply = (reply_command(self.protocol(config, item)),)
            moves = lambda observation, turn: reply  # noqa: E731
        return TerminalPlayer(
            moves,
            lambda observation, turn: self.terminal_text(config, item, observation, turn),
            io,
            turn=io.turn,
        )

    def moves(self, config: C, item: Mapping[str, Any], observation: Any) -> Sequence[Command]:
        """The moves a person can make at ``observation`` (None: every move of the game, for help), declared once
        for the terminal (:meth:`human`), the web form (:meth:`web_form`, :meth:`web_move`) and ``wason session
        moves``. By default "more examples" and "guess" where the family has a game API, else none."""
        game_api = self.game_api()
        if game_api is None:
            return ()
        return (
            Command(
                name="more",
                label="More examples",
                make=lambda v: _game_api_more(game_api, v),
                fields=(FormField("n", "How many", kind="number", value="1"),),
                syntax="more N",
                hint="N more examples",
                action=type(game_api.more(1)).__name__,
            ),
            Command(
                name="guess",
                label="Guess",
                make=lambda v: game_api.guess(form_value(v, "text")),
                fields=(FormField("text", "The rule", placeholder="your rule in words"),),
                words=("guess", "g"),
                syntax="guess TEXT",
                hint="your guess of the rule",
                action=type(game_api.guess("x")).__name__,
            ),
        )

    def terminal_text(self, config: C, item: Mapping[str, Any], observation: Any, turn: int) -> str:
        """What a person at the terminal reads at ``observation`` (after ``turn`` moves); by default what the web
        page shows (:meth:`web_form`'s prompt)."""
        return self.web_form(config, item, observation, turn).prompt

    def item_id(self, item: Mapping[str, Any]) -> int | None:
        """The id ``wason play NAME --rule ID`` selects an item by, or None."""
        return None

    def intro(self, config: C, item: Mapping[str, Any], origin: str) -> str:
        """The line ``wason play`` prints before a game."""
        return f"{self.title}: {origin}."

    def ending(self, item: Mapping[str, Any], metrics: Mapping[str, Any] | None) -> list[str]:
        """What ``wason play`` prints after a game (the hidden rule, how the player did); ``metrics`` is None
        when the game did not finish."""
        return []

    def web_form(self, config: C, item: Mapping[str, Any], observation: Any, turn: int) -> WebForm:
        """The form of the web page at ``observation`` (after ``turn`` moves): what the player reads and the
        moves open. By default the protocol's text (its system prompt at the start) and the moves open now
        (:meth:`moves`); where the family declares no moves of its own, after the game API's a free-text reply
        read by the protocol."""
        if self.wording is not None:  # a person reads plain words, not the published model texts
            words = importlib.import_module(self.wording)
            seen = to_json(observation)
            prompt = words.intro(seen) if turn == 0 else words.answer(seen)
            return WebForm(prompt=str(prompt), moves=form_moves(self.moves(config, item, observation)))
        protocol = self.protocol(config, item)
        if turn == 0:
            parts = [protocol.system_prompt()]
            first = getattr(protocol, "first_message", None)
            if callable(first):
                parts.append(str(first(observation) or ""))
            prompt = "\n\n".join(p for p in parts if p)
        else:
            prompt = protocol.feedback(observation)
        moves = form_moves(self.moves(config, item, observation))
        if type(self).moves is Family.moves:  # no moves of its own: a reply read by its protocol too
            moves = (*moves, REPLY_MOVE)
        return WebForm(prompt=prompt, moves=moves)

    def web_history(
        self, config: C, item: Mapping[str, Any], turns: Sequence[Mapping[str, Any]]
    ) -> list[str]:
        """What the player read after each stored turn (``action``, ``observation`` as JSON, ``feedback``), one
        text per turn for the web page; by default the feedback the protocol wrote for it, or the answer of the
        :attr:`wording` module."""
        if self.wording is not None:
            answer = importlib.import_module(self.wording).answer
            return [str(answer(t.get("observation") or {})) for t in turns]
        return [str(t.get("feedback") or "") for t in turns]

    def web_move(
        self, config: C, item: Mapping[str, Any], observation: Any, move: str, values: Mapping[str, str]
    ) -> Mapping[str, Any] | str:
        """The action (as JSON) of a move sent from the web form, or a text reply for the protocol to read.

        Raises:
            ValueError: a move that is not offered or a value that cannot be read, in one line for the player.
        """
        if move == "reply":
            return form_value(values, "text")
        for command in self.moves(config, item, observation):
            if command.name == move:
                return self.actions.encode(command.make(values))
        raise ValueError(f"{move!r} is not a move of this game")

    def own_rule(self, config: C, text: str) -> Item:
        """The item of a game on a rule the player wrote (the web page's "a rule of your own"), for a family
        with :attr:`own_rules`.

        Raises:
            ValueError: a rule the family cannot play (one line), or a family that takes none.
        """
        raise ValueError(f"{self.title} takes no rules of your own")

    # -- integration: other runs, models, the game API and the family's own commands -----------------------------
    def prepare(self, config: C, reader: RunReader) -> C:
        """The configuration completed from the store before its items are drawn, for a run built on another
        run's results (a family never reads the store itself); stored with the run, so resuming needs nothing
        more. By default unchanged.

        Raises:
            ValueError: the other run cannot be used, in one line naming it.
        """
        return config

    def oracle(self, config: C) -> OracleSpec | None:
        """The model the run's games need for LLM judges or labellers, or None when code decides. By default,
        for :class:`JudgedSettings`, the judge's model when one of its :attr:`~JudgedSettings.model_judges`
        runs."""
        if not isinstance(config, JudgedSettings):
            return None
        asked = config.model_judges_asked()
        return config.judge_oracle(bool(asked), f"the {asked[0]} judge" if asked else "")

    def baseline(self, config: C, run_id: int) -> C | None:
        """The configuration of the solver baseline that accompanies model run ``run_id``, or None.

        The default: with a solver (``"solver"`` in :attr:`players`), the run's configuration played by the
        solver, no model, marked ``baseline_for=run_id``; without one, None. A family overrides it only where
        its baseline must drop more than the judges that ask a model (:meth:`JudgedSettings.without_model_judges`)
        or has none for some runs.
        """
        if "solver" not in self.players:
            return None
        update: dict[str, Any] = {"player": "solver", "model": None, "baseline_for": run_id}
        if isinstance(config, JudgedSettings):
            update.update(config.without_model_judges())
        return config.model_copy(update=update)

    def game_api(self) -> GameApi | None:
        """How the family is played through the guess-the-rule game API, or None when it is not."""
        return None

    def add_commands(self, parser: Any) -> None:
        """Add the family's own commands to ``parser``, the argparse parser of ``wason NAME``."""

    def run_command(self, args: Any, write: Callable[[str], None]) -> int:
        """Run one of the family's own commands."""
        raise ValueError(f"{self.name} has no commands")


@functools.cache
def _codec_of(kinds: tuple[type[Any], ...]) -> ActionCodec:
    """One codec per set of action types (building one builds a pydantic adapter)."""
    return ActionCodec(*kinds)


def _game_api_more(game_api: GameApi, values: Mapping[str, str]) -> Any:
    """The game API's "more N" of a form, an error naming the form's field (the API names its own)."""
    n = form_number(values, "n")
    try:
        return game_api.more(n)
    except ValueError as exc:
        raise ValueError(f"n: {' '.join(str(exc).split())[:200]}") from None


def command_text(path: str, limit: int) -> str:
    """What a family's own command reads: the first ``limit`` characters of file ``path`` (``-``: standard input).

    Raises:
        ValueError: ``cannot read PATH: ErrorName``, for a file that cannot be opened or is not UTF-8 text.
    """
    if path == "-":
        return sys.stdin.read(limit)
    try:
        with open(path, encoding="utf-8") as f:
            return f.read(limit)
    except (OSError, UnicodeDecodeError) as exc:
        raise ValueError(f"cannot read {path}: {exc.__class__.__name__}") from None


def form_value(values: Mapping[str, str], name: str) -> str:
    """A web form field's value, stripped; ``ValueError`` naming the field when it is empty."""
    text = str(values.get(name, "")).strip()
    if not text:
        raise ValueError(f"{name}: write something first")
    return text


def form_number(values: Mapping[str, str], name: str) -> int:
    """A web form field's value as a whole number; ``ValueError`` naming the field otherwise."""
    text = form_value(values, name)
    try:
        return int(text)
    except ValueError:
        raise ValueError(f"{name}: a whole number, not {text[:40]!r}") from None


PlayerKind = Literal["llm", "solver", "human", "scripted"]
