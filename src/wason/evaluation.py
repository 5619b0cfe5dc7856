"""Runs: create a run in the store, play its episodes concurrently, resume an interrupted one.

This is the one place that joins task families, players, models and the store.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from wason.core.game import Player
from wason.core.runner import EpisodeJob, EpisodeResult, run_jobs
from wason.models.base import GenerationParams
from wason.models.client import CallContext, ModelClient, RetryPolicy
from wason.players.llm import LLMPlayer
from wason.store import Store
from wason.tasks.wilt import WiltConfig, WiltGame, WiltProtocol, get_rule, load_split, render_feedback
from wason.tasks.wilt.rules import SPLITS, WiltRule, load_rules_file, rule_from_item, rule_item

PlayerFactory = Callable[[dict[str, Any], int, int], Player[Any, Any]]


class RunSettings(BaseModel):
    """Who plays and how a model is called: the part every task's run configuration shares.

    Stored with the run (never the API key), so ``--resume`` can rebuild the same client.
    """

    model_config = ConfigDict(frozen=True)

    player: str = "llm"
    model: str | None = None
    base_url: str | None = None
    params: GenerationParams = Field(default_factory=GenerationParams)
    timeout: float = 120.0
    retries: int = 6
    concurrency: int | None = None
    use_cache: bool = True
    system_as_user: bool = False


class WiltRunConfig(RunSettings):
    """Everything that defines a WILT run; stored with the run so ``--resume`` can rebuild it."""

    model_config = ConfigDict(frozen=True)

    task: Literal["wilt"] = "wilt"
    split: str = "lite"
    ids: list[int] | None = Field(default=None, description="published rule ids; None = the whole split")
    rules_file: str | None = Field(default=None, description="a file of rules, one per line (split 'file')")
    seed: int | None = Field(default=None, description="seed of the generated split")
    n: int | None = Field(default=None, description="size of the generated split")
    max_tests: int = 30
    format_error_limit: int = 2
    probe_seed: int = 0
    baseline_for: int | None = Field(
        default=None, description="the model run this solver run is the baseline of"
    )

    @field_validator("split")
    @classmethod
    def _check_split(cls, v: str) -> str:
        if v not in (*SPLITS, "generated", "file"):
            raise ValueError(f"unknown WILT split {v!r}; choose one of: {', '.join(SPLITS)}, generated, file")
        return v

    @model_validator(mode="after")
    def _check_sources(self) -> WiltRunConfig:
        if self.split == "generated" and (self.seed is None or not self.n or self.n < 1):
            raise ValueError("the generated split needs --seed S and --n N (N >= 1)")
        if self.split == "file" and not self.rules_file:
            raise ValueError("split 'file' needs a rules file (--rules FILE)")
        if self.ids is not None and self.split not in SPLITS:
            raise ValueError("rule ids select from a published split (lite or full)")
        return self

    def game_config(self) -> WiltConfig:
        return WiltConfig(
            max_tests=self.max_tests, format_error_limit=self.format_error_limit, probe_seed=self.probe_seed
        )

    def rules(self) -> list[WiltRule]:
        """The run's hidden rules, in order: a published split (or some of its ids), a generated split, or a
        user's rules file."""
        if self.split == "generated":
            from wason.tasks.wilt.generate import generate_split

            return generate_split(seed=int(self.seed or 0), n=int(self.n or 0))
        if self.split == "file":
            return load_rules_file(str(self.rules_file))
        if self.ids is None:
            return load_split(self.split)
        return [get_rule(self.split, i) for i in self.ids]

    def items(self) -> list[tuple[str, dict[str, Any]]]:
        """The run's episodes as ``(key, item)``, one per rule; items carry the rule text, so resuming never
        needs the source again."""
        return [rule_item(r) for r in self.rules()]


class AiwRunConfig(RunSettings):
    """Everything that defines an AIW run: which items, how many trials each, and how the model is asked.

    Items are (variation, prompt type) pairs, each played ``trials`` times. ``published`` variations are the
    distinct (family, slots) instances of the published records of the chosen families (default: the paper's
    AIW variations 1-6); ``generated`` draws ``n`` fresh variations per family with ``seed``.
    """

    model_config = ConfigDict(frozen=True)

    task: Literal["aiw"] = "aiw"
    families: list[str] | None = Field(default=None, description="family or group names; None = AIW 1-6")
    prompt_types: list[str] = Field(default_factory=lambda: ["STANDARD"])
    variations: Literal["published", "generated"] = "published"
    seed: int | None = None
    n: int | None = None
    trials: int = 30
    self_verify: Literal["review", "double-check"] | None = Field(
        default=None, description="multi-turn self-verification follow-ups (records 110-112)"
    )

    @model_validator(mode="after")
    def _check(self) -> AiwRunConfig:
        from wason.tasks.aiw import FAMILIES, PROMPT_TYPES

        if self.trials < 1:
            raise ValueError("--trials must be at least 1")
        unknown = [p for p in self.prompt_types if p not in PROMPT_TYPES]
        if unknown or not self.prompt_types:
            raise ValueError(f"unknown prompt type(s) {unknown}; choose from: {', '.join(PROMPT_TYPES)}")
        groups = {f.group for f in FAMILIES.values()}
        bad = [f for f in self.families or [] if f not in FAMILIES and f not in groups]
        if bad:
            raise ValueError(f"unknown AIW family {bad[0]!r}; see docs/aiw.md for the families")
        if self.variations == "generated" and (self.seed is None or not self.n or self.n < 1):
            raise ValueError("generated variations need --seed S and --n K (K >= 1)")
        return self

    def _family_names(self) -> list[str]:
        from wason.tasks.aiw import FAMILIES

        chosen = self.families or ["aiw.bs", "aiw.sb"]
        return [name for name, f in FAMILIES.items() if name in chosen or f.group in chosen]

    def variations_list(self) -> list[tuple[str, str, dict[str, Any]]]:
        """``(variation name, family, slots)`` in a stable order."""
        from wason.tasks.aiw import ORIGINAL_VARIATIONS, generate_variations, published_items

        if self.variations == "generated":
            return [
                (v.name, v.family, dict(v.slots))
                for family in self._family_names()
                for v in generate_variations(family, seed=int(self.seed or 0), n=int(self.n or 0))
            ]
        if self.families is None:
            return [
                (f"AIW variation {k}", fam, dict(slots)) for k, (fam, slots) in ORIGINAL_VARIATIONS.items()
            ]
        names = set(self._family_names())
        seen: dict[tuple[str, str], tuple[str, str, dict[str, Any]]] = {}
        for item in published_items():
            if item.family not in names:
                continue
            key = (item.family, repr(sorted(item.slots.items())))
            label = item.variation or f"{item.family} " + ", ".join(f"{k}={v}" for k, v in item.slots.items())
            seen.setdefault(key, (label, item.family, dict(item.slots)))
        return list(seen.values())

    def items(self) -> list[tuple[str, dict[str, Any]]]:
        """One episode per (variation, prompt type, trial); items carry the prompt and the right answer."""
        from wason.tasks.aiw import expected_answer, render
        from wason.tasks.aiw.followups import FOLLOWUPS, first_message

        followups = list(FOLLOWUPS[self.self_verify]) if self.self_verify else []
        out = []
        for name, family, slots in self.variations_list():
            for prompt_type in self.prompt_types:
                prompt = render(family, slots, prompt_type)
                if followups:  # the published conversations open without the instruction's final period
                    prompt = first_message(prompt, as_published=True)
                expected = expected_answer(family, slots, prompt_type)
                for trial in range(1, self.trials + 1):
                    item = {
                        "variation": name,
                        "family": family,
                        "slots": slots,
                        "prompt_type": prompt_type,
                        "trial": trial,
                        "prompt": prompt,
                        "expected": expected,
                        "followups": followups,
                    }
                    out.append((f"{name}|{prompt_type}|{trial}", item))
        return out


RunConfig = WiltRunConfig | AiwRunConfig


def create_run(store: Store, config: RunConfig, items: list[tuple[str, dict[str, Any]]] | None = None) -> int:
    """Register a run and all its episodes (pending) in the store; returns the run id.

    ``items`` defaults to the configuration's rules; a baseline passes the items of the run it accompanies.
    """
    items = config.items() if items is None else items
    run_id = store.create_run(
        task=config.task, player=config.player, model=config.model, config=config.model_dump(mode="json")
    )
    store.add_episodes(run_id, items)
    return run_id


def load_config(store: Store, run_id: int) -> RunConfig:
    """The stored configuration of a run, as the task's config class."""
    run = store.get_run(run_id)
    if run.task == "aiw":
        return AiwRunConfig.model_validate(run.config)
    return WiltRunConfig.model_validate(run.config)


def llm_player_factory(
    client: ModelClient, config: RunConfig, run_id: int
) -> Callable[[dict[str, Any], int, int], Player[Any, Any]]:
    """Players driving ``client`` through the task's protocol, one conversation per episode."""
    wilt = WiltProtocol()

    def make(item: dict[str, Any], episode_id: int, index: int) -> Player[Any, Any]:
        protocol: Any
        if isinstance(config, AiwRunConfig):
            from wason.tasks.aiw.protocol import AiwProtocol

            # trials of one item must be independent samples: the trial is part of the sample key
            protocol = AiwProtocol(item["prompt"])
            sample = f"{item['variation']}|{item['prompt_type']}|{item['trial']}|{item['prompt']}"
        else:
            # every rule starts with the same prompt: the rule keeps episodes from sharing sampled replies
            protocol, sample = wilt, rule_from_item(item).sample_key
        ctx = CallContext(run_id=run_id, episode_id=episode_id, sample=sample)
        return LLMPlayer(client, protocol, config.params, ctx, system_as_user=config.system_as_user)

    return make


def solver_player_factory(config: WiltRunConfig) -> PlayerFactory:
    """The ideal-scientist solver, one per episode, playing through structured actions."""
    from wason.players.solver import WiltSolverPlayer

    def make(item: dict[str, Any], episode_id: int, index: int) -> Player[Any, Any]:
        return WiltSolverPlayer(max_tests=config.max_tests)

    return make


def run_baseline(store: Store, run_id: int) -> int:
    """Play the solver on exactly the rules of run ``run_id``, as its own run marked as that run's baseline."""
    import asyncio

    config = load_config(store, run_id)
    if not isinstance(config, WiltRunConfig):
        raise ValueError("the solver baseline exists for WILT runs only")
    baseline = config.model_copy(update={"player": "solver", "model": None, "baseline_for": run_id})
    items = [(e.item_key, e.item) for e in store.list_episodes(run_id)]
    baseline_id = create_run(store, baseline, items)
    asyncio.run(execute_run(store, baseline_id, solver_player_factory(baseline), concurrency=1))
    return baseline_id


def baselines_of(store: Store, run_id: int) -> list[int]:
    """Solver runs made as baselines of ``run_id`` (the newest last)."""
    return [r.id for r in store.list_runs() if r.config.get("baseline_for") == run_id]


def make_client(config: RunConfig, store: Store, *, api_key: str | None = None) -> ModelClient:
    """The model client of a run: the model from its spec, with the run's retry policy, cache and store."""
    from wason.models.spec import load_model

    if config.model is None:
        raise ValueError("this run has no model")
    model = load_model(
        config.model, base_url=config.base_url, api_key=api_key, max_concurrency=config.concurrency
    )
    policy = RetryPolicy(retries=config.retries, timeout=config.timeout)
    return ModelClient(model=model, store=store, policy=policy, use_cache=config.use_cache)


async def execute_run(
    store: Store,
    run_id: int,
    make_player: PlayerFactory,
    *,
    concurrency: int,
    on_result: Callable[[EpisodeResult], None] | None = None,
) -> list[EpisodeResult]:
    """Play every episode of the run that has not completed (all of them for a new run).

    Completed episodes are never replayed. An episode that was running when the process died, or that errored,
    is replayed from its start; its model calls are answered from the cache, so no finished call is repeated.
    """
    config = load_config(store, run_id)
    todo = [e for e in store.list_episodes(run_id) if e.status != "completed"]
    store.set_run_status(run_id, "running")

    def job(item: dict[str, Any], episode_id: int, index: int) -> EpisodeJob:
        if isinstance(config, AiwRunConfig):
            from wason.tasks.aiw.game import AiwGame
            from wason.tasks.aiw.protocol import AiwProtocol

            return EpisodeJob(
                episode_id=episode_id,
                index=index,
                make_game=lambda: AiwGame(item["prompt"], item["expected"], tuple(item.get("followups", ()))),
                make_player=lambda: make_player(item, episode_id, index),
                feedback=AiwProtocol(item["prompt"]).feedback,
            )
        rule, game_config = rule_from_item(item), config.game_config()
        return EpisodeJob(
            episode_id=episode_id,
            index=index,
            make_game=lambda: WiltGame(rule.program(), game_config),
            make_player=lambda: make_player(item, episode_id, index),
            feedback=render_feedback,
        )

    jobs = [job(e.item, e.id, e.index) for e in todo]
    try:
        results = await run_jobs(jobs, store, concurrency=concurrency, on_result=on_result)
    except BaseException:
        store.set_run_status(run_id, "interrupted")
        raise
    statuses = [e.status for e in store.list_episodes(run_id)]
    store.set_run_status(run_id, "completed" if all(s == "completed" for s in statuses) else "incomplete")
    return results
