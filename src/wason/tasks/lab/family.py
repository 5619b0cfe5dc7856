"""Lab domains as a task family: run configuration, items (one generated domain each), game, protocol, the
solver and random-experiment baselines, the report judge, the human player and the reports."""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar, Literal

from pydantic import Field, model_validator

from wason.core.family import (
    MAX_SEED,
    ActionCodec,
    EpisodeContext,
    Family,
    Item,
    JudgedSettings,
    OracleSpec,
    PlayIO,
    WebForm,
    check_episodes,
)
from wason.core.game import Game, Player, TextProtocol
from wason.failures import unavailable
from wason.judges import VotingJudge
from wason.tasks.lab.game import (
    MAX_BUDGET,
    MAX_PER_TURN,
    MAX_TEST_SIZE,
    MAX_TURNS,
    Answer,
    Finish,
    LabConfig,
    LabGame,
    Request,
)
from wason.tasks.lab.laws import Value
from wason.tasks.lab.world import BUDGETS, GENERATOR, GENERATOR_VERSION, PRESETS, Domain, DomainParams

MAX_N = 1_000
"""The most domains of a run: each is drawn and checked to be identifiable, up to 0.5 s a hard one."""

MAX_TRIALS = 1_000
"""The most times a domain is played."""

MAX_LAB_EPISODES = 10_000
"""The most episodes of a run (domains x trials): an item holds its whole domain, a few kB of JSON."""


class LabRunConfig(JudgedSettings):
    """Everything that defines a lab run: the difficulty, the domains, the lab's limits and the test.

    Game ``k`` (1..n) plays the domain drawn with seed ``"{seed}|{k}"`` at the run's difficulty, ``trials`` times.
    """

    # the text environments' shaped rewards: requests the lab refused, and the share of the learner's wrong
    # hypotheses the experiments ruled out, after each experiment (wason.tasks.lab.learner.reduction_curve)
    reward_counts: ClassVar[Mapping[str, str]] = {"invalid": "invalid_requests"}
    reward_information: ClassVar[str | None] = "reduction"
    audit_module: ClassVar[str | None] = "wason.tasks.lab.audit"
    # the curricula's difficulty axes (wason.env.curriculum): the domain's difficulty, easiest first
    difficulty_axes: ClassVar[Mapping[str, tuple[Any, ...]]] = {"difficulty": ("easy", "medium", "hard")}
    # (the difficulty is public: it holds many labs, and is the run's label)
    item_fields: ClassVar[frozenset[str] | None] = frozenset({"n", "seed"})
    public_fields: ClassVar[frozenset[str]] = frozenset(
        {
            "difficulty",
            "trials",
            "noise",
            "budget",
            "per_turn",
            "max_turns",
            "allow_create",
            "test_size",
            "tolerance",
            "pass_mark",
            "design",
            "curve",
            "report_judge",
            "judge_model",
            "judge_base_url",
        }
    )

    not_in_play: ClassVar[frozenset[str]] = frozenset(
        {"n", "trials", "design", "report_judge", "judge_model", "judge_base_url", "curve"}
    )
    flag_names: ClassVar[Mapping[str, str]] = {"allow_create": "create"}

    label_fields: ClassVar[tuple[str, ...]] = ("difficulty",)
    task: Literal["lab"] = "lab"
    difficulty: Literal["easy", "medium", "hard"] = Field(
        default="easy",
        description="easy: 1 type, 2 operations, 2 laws; medium: 2 types, 3 operations (one on two objects), 4 "
        "laws with conditions, thresholds and interactions; hard: 3 types, 5 operations (two on two objects), 7 laws",
    )
    n: int = Field(default=10, ge=1, le=MAX_N, description="games, each on its own domain")
    seed: int = Field(
        default=0, ge=0, le=MAX_SEED, description="seed of the domains (and of each game's test)"
    )
    trials: int = Field(
        default=1, ge=1, le=MAX_TRIALS, description="times each domain is played (independent samples)"
    )
    noise: float | None = Field(
        default=None,
        ge=0.0,
        le=100.0,
        allow_inf_nan=False,
        description="standard deviation of the measurement noise on numbers (default 0)",
    )
    budget: int | None = Field(
        default=None,
        ge=1,
        le=MAX_BUDGET,
        description="experiments per game (default easy 20, medium 60, hard 160)",
    )
    per_turn: int = Field(
        default=5, ge=1, le=MAX_PER_TURN, description="steps (experiments, resets, creations) per turn"
    )
    max_turns: int | None = Field(
        default=None, ge=1, le=MAX_TURNS, description="turns per game (default: the budget plus 10)"
    )
    allow_create: bool = Field(default=False, description="the player may create fresh objects of a type")
    test_size: int = Field(
        default=20, ge=1, le=MAX_TEST_SIZE, description="test experiments on fresh objects"
    )
    tolerance: float = Field(
        default=0.05,
        ge=0.0,
        lt=1.0,
        allow_inf_nan=False,
        description="relative error within which a predicted number is right",
    )
    pass_mark: float = Field(
        default=0.9,
        gt=0.0,
        le=1.0,
        allow_inf_nan=False,
        description="share of test experiments predicted right that counts as a success",
    )
    design: Literal["information", "random"] = Field(
        default="information",
        description="the solver's experiments: information (most informative first) or random (a random-experiment "
        "player with the same budget)",
    )
    curve: bool = Field(
        default=True,
        description="score what an ideal learner predicts from the player's experiments and from random ones "
        "of the same budget (--no-curve: skip both)",
    )
    report_judge: bool = Field(
        default=False, description="an LLM judge reads the player's free-text report (reported apart)"
    )

    @model_validator(mode="after")
    def _check(self) -> LabRunConfig:
        self.game_config("0")  # validates the lab's limits
        check_episodes(self.n * self.trials, "trials", MAX_LAB_EPISODES)
        if self.report_judge and self.oracle_model is None and self.player == "llm":
            raise ValueError("report_judge: the report judge needs a model (--judge-model)")
        return self

    @property
    def experiments(self) -> int:
        return self.budget if self.budget is not None else BUDGETS[self.difficulty]

    def domain_params(self) -> DomainParams:
        preset = PRESETS[self.difficulty]
        return preset if self.noise is None else preset.model_copy(update={"noise": self.noise})

    def game_config(self, seed: str) -> LabConfig:
        try:
            return LabConfig(
                budget=self.experiments,
                per_turn=self.per_turn,
                max_turns=self.max_turns if self.max_turns is not None else self.experiments + 10,
                allow_create=self.allow_create,
                test_size=self.test_size,
                tolerance=self.tolerance,
                pass_mark=self.pass_mark,
                curve=self.curve,
                seed=seed,
            )
        except ValueError as exc:
            raise ValueError(str(exc)) from None

    def items(self) -> list[Item]:
        out = []
        for k in range(1, self.n + 1):
            parts = self._parts(k)  # one domain's trials share its parts (they are only read)
            out += [self._item(k, trial, *parts) for trial in range(1, self.trials + 1)]
        return out

    def item_at(self, index: int) -> Item:
        """``items()[index]`` alone: it draws one domain, not ``n``."""
        k, trial = divmod(index, self.trials)
        return self._item(k + 1, trial + 1, *self._parts(k + 1))

    def _parts(self, k: int) -> tuple[dict[str, Any], dict[str, Any]]:
        """Domain ``k``'s lab and hidden part."""
        from wason.tasks.lab.drawing import generate  # draws with the learner

        domain = generate(self.domain_params(), f"{self.seed}|{k}")
        return public_lab(domain), hidden_part(domain)

    def _item(self, k: int, trial: int, lab: dict[str, Any], hidden: dict[str, Any]) -> Item:
        item = {
            "difficulty": self.difficulty,
            "seed": self.seed,
            "index": k,
            "trial": trial,
            "lab": lab,
            "domain": hidden,
        }
        key = f"{self.difficulty}|{self.seed}|{k}" + (f"|{trial}" if self.trials > 1 else "")
        return key, item


HIDDEN = ("seed", "law_text")
"""The parts of a domain a player must not see before the game ends: the laws, and the seed that draws them."""


def public_lab(domain: Domain) -> dict[str, Any]:
    """What a player may see of a domain from the start (an item's ``lab``): the generator and its parameters,
    the types with their properties, the operations with their arity and the lab's objects as they start."""
    data = domain.to_json()
    return {key: value for key, value in data.items() if key not in (*HIDDEN, "laws")}


def hidden_part(domain: Domain) -> dict[str, Any]:
    """An item's ``domain``: the seed and the laws as text (nothing a page shows anyway, so a page that showed
    any of it would be giving the game away)."""
    data = domain.to_json()
    return {key: data[key] for key in HIDDEN}


def domain_of(item: Mapping[str, Any]) -> Domain:
    return Domain.from_json({**item["lab"], **item["domain"]})


def _decode_answer(data: dict[str, Any]) -> Answer:
    preds = data.get("predictions")
    if not isinstance(preds, list | tuple) or len(preds) > 1000:
        raise ValueError("predictions: a list of at most 1000 entries")
    out: list[dict[str, dict[str, Value]] | None] = []
    for p in preds:
        if p is None:
            out.append(None)
            continue
        if not isinstance(p, dict):
            raise ValueError("predictions: each entry {object: {property: value}} or null")
        entry: dict[str, dict[str, Value]] = {}
        for name, values in p.items():
            if not isinstance(values, dict):
                raise ValueError("predictions: each entry {object: {property: value}} or null")
            entry[str(name)] = {}
            for prop, v in values.items():
                if not isinstance(v, bool | int | float):
                    raise ValueError("predictions: values are numbers, true or false")
                entry[str(name)][str(prop)] = v if isinstance(v, bool) else float(v)
        out.append(entry)
    theory, report = data.get("theory", ""), data.get("report", "")
    if not isinstance(theory, str) or not isinstance(report, str):
        raise ValueError("theory, report: text")
    return Answer(tuple(out), theory, report)


def _sample(item: Mapping[str, Any]) -> str:
    return f"lab|{item['difficulty']}|{item['seed']}|{item['index']}|{item.get('trial', 1)}"


class LabFamily(Family[LabRunConfig]):
    """Random quasi-physical domains: experiments through a lab assistant, scored by prediction."""

    name = "lab"
    title = "Lab domains"
    summary = "random quasi-physical domains: run experiments, then predict new ones (scored by code)"
    config_type = LabRunConfig
    reports = ("wason.tasks.lab.report",)
    playable = True
    commands = "lab domain tools"

    action_writer = "wason.tasks.lab.protocol"
    action_codec = ActionCodec(Request, Finish, Answer, hooks={"Answer": _decode_answer})

    def item_count(self, config: LabRunConfig) -> int:
        return config.n * config.trials

    def game(self, config: LabRunConfig, item: Mapping[str, Any], context: EpisodeContext) -> Game[Any, Any]:
        domain = domain_of(item)
        judge = _judge(config, context, item, domain) if config.report_judge else None
        return LabGame(domain, config.game_config(f"{item['seed']}|{item['index']}"), judge=judge)

    def protocol(self, config: LabRunConfig, item: Mapping[str, Any]) -> TextProtocol[Any, Any]:
        from wason.tasks.lab.protocol import LabProtocol

        return LabProtocol(config.game_config("0"))

    def sample_key(self, config: LabRunConfig, item: Mapping[str, Any]) -> str:
        return _sample(item)

    def oracle(self, config: LabRunConfig) -> OracleSpec | None:
        return config.judge_oracle(config.report_judge, "the report judge")

    def solver(self, config: LabRunConfig, item: Mapping[str, Any]) -> Player[Any, Any]:
        from wason.tasks.lab.solver import LabSolverPlayer

        game_config = config.game_config(f"{item['seed']}|{item['index']}")
        return LabSolverPlayer(
            domain_of(item), game_config, design=config.design, seed=f"{_sample(item)}|{config.design}"
        )

    def baseline(self, config: LabRunConfig, run_id: int) -> LabRunConfig:
        update: dict[str, Any] = {
            "player": "solver",
            "model": None,
            "design": "information",
            "baseline_for": run_id,
        }
        if config.judge_model is None:
            update["report_judge"] = False
        return config.model_copy(update=update)

    def human(self, config: LabRunConfig, item: Mapping[str, Any], io: PlayIO) -> Player[Any, Any]:
        from wason.tasks.lab.human import LabHumanPlayer
        from wason.tasks.lab.theory import Signature

        # the properties and operations only (what the start shows), to check each law as it is typed
        signature = Signature.of(domain_of(item))
        return LabHumanPlayer(
            read=io.read, write=io.write, config=config.game_config("0"), signature=signature
        )

    def public(self, item: Mapping[str, Any]) -> list[str]:
        # the domain holds the hidden laws, and its seed draws them: both stay hidden until the game ends
        return ["difficulty", "trial", "lab"]

    def describe(self, config: LabRunConfig, n_episodes: int, n_todo: int, who: str) -> str:
        g = config.game_config("0")
        noise = f", noise sd {config.noise:g}" if config.noise else ""
        judge = f"; report judge {config.oracle_model}" if config.report_judge else ""
        design = f" ({config.design} design)" if config.player == "solver" else ""
        return (
            f"lab {config.difficulty}, {n_episodes} games ({n_todo} to play) with {who}{design}; seed {config.seed}; "
            f"{g.budget} experiments, {g.per_turn} steps a turn, {g.max_turns} turns{noise}; "
            f"test of {g.test_size} experiments, numbers within {g.tolerance:.0%}{judge}"
        )

    def column(self, config: LabRunConfig, item: Mapping[str, Any]) -> str:
        return f"Lab {config.difficulty}"

    # -- playing in a terminal ---------------------------------------------------------------------------
    def item_id(self, item: Mapping[str, Any]) -> int | None:
        return int(item["index"])

    def intro(self, config: LabRunConfig, item: Mapping[str, Any], origin: str) -> str:
        return f"Lab domains, {item['difficulty']}: a new domain to investigate ({origin})."

    def ending(self, item: Mapping[str, Any], metrics: Mapping[str, Any] | None) -> list[str]:
        from wason.tasks.lab.report import lab_ending

        return lab_ending(item, metrics)

    # -- playing in a browser ----------------------------------------------------------------------------
    def web_form(self, config: LabRunConfig, item: Mapping[str, Any], observation: Any, turn: int) -> WebForm:
        from wason.tasks.lab.human import web_form

        return web_form(config.game_config("0"), observation, turn)

    def web_move(
        self,
        config: LabRunConfig,
        item: Mapping[str, Any],
        observation: Any,
        move: str,
        values: Mapping[str, str],
    ) -> Mapping[str, Any] | str:
        from wason.tasks.lab.human import web_action
        from wason.tasks.lab.theory import Signature

        # the properties and operations only (the page showed them at the start), to check each law of a theory
        signature = Signature.of(domain_of(item)) if move == "answer" else None
        return self.actions.encode(web_action(observation, move, values, signature))

    def web_history(
        self, config: LabRunConfig, item: Mapping[str, Any], turns: Sequence[Mapping[str, Any]]
    ) -> list[str]:
        # what the page showed after each move (the protocol's feedback asks a model for JSON)
        from wason.tasks.lab.game import LabObservation
        from wason.tasks.lab.human import web_form

        game = config.game_config("0")
        out = []
        for k, t in enumerate(turns, start=1):
            seen = {key: v for key, v in (t.get("observation") or {}).items() if key != "type"}
            try:
                out.append(web_form(game, LabObservation.model_validate(seen), k).prompt)
            except ValueError:  # an observation of an older shape: what the protocol said then
                out.append(str(t.get("feedback") or ""))
        return out

    def describe_action(self, action: Mapping[str, Any]) -> str | None:
        try:
            decoded = self.actions.decode(action)
        except ValueError:
            return None
        if isinstance(decoded, Request):
            return "Run: " + "; ".join(s.text() for s in decoded.steps)
        if isinstance(decoded, Finish):
            return "Done experimenting"
        if isinstance(decoded, Answer):
            laws = sum(1 for line in decoded.theory.splitlines() if line.strip())
            theory = f", a theory of {laws} line{'s' if laws != 1 else ''}" if laws else ""
            return f"Answer: {len(decoded.predictions)} predictions{theory}"
        return None

    # -- the family's own commands -----------------------------------------------------------------------
    def add_commands(self, parser: Any) -> None:
        from wason.tasks.lab.commands import add_commands

        add_commands(parser)

    def run_command(self, args: Any, write: Callable[[str], None]) -> int:
        from wason.tasks.lab.commands import run_command

        return run_command(args, write)


def _judge(config: LabRunConfig, context: EpisodeContext, item: Mapping[str, Any], domain: Domain) -> Any:
    oracle = context.oracle
    if oracle is None:
        return unavailable("an LLM judge about its report")
    from wason.tasks.lab.judge import judge_messages

    call = context.calls(_sample(item))
    return VotingJudge(
        oracle, functools.partial(judge_messages, domain), config.params, call, sample="report"
    )


FAMILY = LabFamily()
__all__ = ["FAMILY", "GENERATOR", "GENERATOR_VERSION", "LabFamily", "LabRunConfig", "domain_of"]
