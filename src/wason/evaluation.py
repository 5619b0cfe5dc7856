"""Runs: create a run in the store, play its episodes concurrently, resume an interrupted one.

This is the one place that joins task families, players, models and the store.
"""

from __future__ import annotations

import dataclasses
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


class ListsRunConfig(RunSettings):
    """Everything that defines a list-rules (Numberwang) run: rules, examples, trials, labeller and judges.

    Each rule is played ``trials`` times; trial ``t`` has the episode seed ``seed + t - 1`` (``seed`` defaults to
    0), which draws generated examples and the quiz, and keeps the trials' model samples apart.
    """

    model_config = ConfigDict(frozen=True)

    task: Literal["lists"] = "lists"
    split: str = "pilot"
    ids: list[int] | None = Field(default=None, description="rule ids of a published split")
    seed: int | None = Field(
        default=None, description="seed of the generated split and of generated examples"
    )
    n: int | None = Field(default=None, description="size of the generated split")
    examples: Literal["published", "generated"] | None = Field(
        default=None, description="None: published where every rule has them, else generated"
    )
    trials: int = 1
    echo: bool = False
    labeller: Literal["code", "llm"] = "code"
    judges: list[str] = Field(default_factory=lambda: ["predicate", "quiz", "llm"])
    judge_model: str | None = Field(default=None, description="judge and labeller model; None = the player's")
    judge_base_url: str | None = None
    max_rounds: int = 19
    tests_per_round: int = 5
    format_error_limit: int = 2
    quiz_size: int = 10
    probe_seed: int = 0
    baseline_for: int | None = None

    @model_validator(mode="after")
    def _check(self) -> ListsRunConfig:
        from wason.tasks.lists.rules import SPLITS as LIST_SPLITS

        if self.split not in (*LIST_SPLITS, "generated"):
            raise ValueError(
                f"unknown lists split {self.split!r}; choose one of: {', '.join(LIST_SPLITS)}, generated"
            )
        if self.split == "generated" and (self.seed is None or not self.n or self.n < 1):
            raise ValueError("the generated split needs --seed S and --n N (N >= 1)")
        if self.ids is not None and self.split == "generated":
            raise ValueError("rule ids select from a published split")
        if self.trials < 1:
            raise ValueError("--trials must be at least 1")
        self.game_config(0)  # validates the judges and the round settings
        if self.examples == "published" and self.split in ("second", "all", "generated"):
            raise ValueError(f"the {self.split} rules have no published examples; use --examples generated")
        if not self.judges:
            raise ValueError("at least one judge is needed (predicate, quiz, llm)")
        if self.labeller == "llm" and self.oracle_model is None:
            raise ValueError("the llm labeller needs a model (--judge-model)")
        if "llm" in self.judges and self.oracle_model is None:
            raise ValueError("the llm judge needs a model (--judge-model), or leave it out of --judges")
        return self

    @property
    def oracle_model(self) -> str | None:
        """The model of the LLM judge and labeller."""
        return self.judge_model or self.model

    def examples_source(self) -> str:
        if self.examples is not None:
            return self.examples
        return "published" if self.split in ("pilot", "phase1") else "generated"

    def game_config(self, episode_seed: int) -> Any:
        from wason.tasks.lists.game import ListsConfig

        return ListsConfig(
            tests_per_round=self.tests_per_round,
            max_rounds=self.max_rounds,
            format_error_limit=self.format_error_limit,
            judges=tuple(self.judges),
            quiz_size=self.quiz_size,
            probe_seed=self.probe_seed,
            quiz_seed=episode_seed,
        )

    def rules(self) -> list[Any]:
        from wason.tasks.lists.rules import get_rule, load_split

        if self.split == "generated":
            from wason.tasks.lists.generate import generate_rules

            return list(generate_rules(int(self.seed or 0), int(self.n or 0)))
        if self.ids is None:
            return load_split(self.split)
        return [get_rule(self.split, i) for i in self.ids]

    def items(self) -> list[tuple[str, dict[str, Any]]]:
        """One episode per (rule, trial); items carry the rule's identity and text and the examples shown."""
        from wason.tasks.lists.examples import generate_examples, generate_examples_with_provenance

        base = self.seed or 0
        source = self.examples_source()
        out = []
        for rule in self.rules():
            for trial in range(1, self.trials + 1):
                episode_seed = base + trial - 1
                provenance: dict[str, Any] | None = None
                replaced: list[list[int]] = []
                if source == "published":
                    examples = [list(e) for e in rule.examples]
                    # A published example the rule rejects (phase 1's [9, 14, 19]) would teach the wrong rule:
                    # it is replaced by a drawn one, and the item says so.
                    wrong = [e for e in examples if not rule.accepts(e)]
                    if wrong:
                        drawn = generate_examples(rule, seed=episode_seed, k=3 + len(wrong))
                        spare = iter(d for d in drawn if d not in examples)
                        examples = [e if rule.accepts(e) else next(spare) for e in examples]
                        replaced = wrong
                else:
                    drawn, prov = generate_examples_with_provenance(rule, seed=episode_seed, k=3)
                    examples, provenance = drawn, dataclasses.asdict(prov)
                item = {
                    "rule": {
                        "split": rule.split,
                        "id": rule.id,
                        "text": rule.text,
                        "key": rule.key,
                        "source": rule.source,
                        "provenance": rule.provenance,
                    },
                    "generated": {"seed": self.seed, "n": self.n} if rule.split == "generated" else None,
                    "trial": trial,
                    "seed": episode_seed,
                    "examples": examples,
                    "examples_source": source,
                    "examples_provenance": provenance,
                    "examples_replaced": replaced,
                }
                out.append((f"{rule.key}|{trial}", item))
        return out


def lists_rule_from_item(item: dict[str, Any]) -> Any:
    """The hidden rule of a list-rules episode item (generated rules are drawn again from their seed)."""
    from wason.tasks.lists.rules import get_rule

    ref = item["rule"]
    if ref["split"] == "generated":
        from wason.tasks.lists.generate import generate_rules

        gen = item["generated"]
        rule = generate_rules(int(gen["seed"]), int(gen["n"]))[int(ref["id"]) - 1]
    else:
        rule = get_rule(ref["split"], int(ref["id"]))
    if rule.text != ref["text"]:  # a changed generator or rule table must not silently score another rule
        raise ValueError(f"rule {ref['key']} is no longer {ref['text']!r} (now {rule.text!r})")
    return rule


RunConfig = WiltRunConfig | AiwRunConfig | ListsRunConfig


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
    if run.task == "lists":
        return ListsRunConfig.model_validate(run.config)
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
        elif isinstance(config, ListsRunConfig):
            from wason.sandbox.lists import LANGUAGE_SUMMARY
            from wason.tasks.lists.protocol import ListsProtocol

            protocol = ListsProtocol(item["examples"], echo=config.echo, language=LANGUAGE_SUMMARY)
            sample = _lists_sample(item)
        else:
            # every rule starts with the same prompt: the rule keeps episodes from sharing sampled replies
            protocol, sample = wilt, rule_from_item(item).sample_key
        ctx = CallContext(run_id=run_id, episode_id=episode_id, sample=sample)
        return LLMPlayer(client, protocol, config.params, ctx, system_as_user=config.system_as_user)

    return make


def _lists_sample(item: dict[str, Any]) -> str:
    # the rule, its examples and the trial: trials of one rule are independent samples
    rule = item["rule"]
    return f"{rule['key']}|{rule['text']}|{item['examples']}|{item['trial']}"


def solver_player_factory(config: RunConfig) -> PlayerFactory:
    """The reference solver of the task, one per episode, playing through structured actions."""
    from wason.players.solver import ListSolverPlayer, WiltSolverPlayer

    def make(item: dict[str, Any], episode_id: int, index: int) -> Player[Any, Any]:
        if isinstance(config, ListsRunConfig):
            return ListSolverPlayer(
                seed=int(item["seed"]), tests_per_round=config.tests_per_round, max_rounds=config.max_rounds
            )
        if isinstance(config, WiltRunConfig):
            return WiltSolverPlayer(max_tests=config.max_tests)
        raise ValueError(f"there is no solver for {config.task}")

    return make


def run_baseline(store: Store, run_id: int) -> int:
    """Play the solver on exactly the rules of run ``run_id``, as its own run marked as that run's baseline."""
    import asyncio

    config = load_config(store, run_id)
    update: dict[str, Any] = {"player": "solver", "model": None, "baseline_for": run_id}
    if isinstance(config, ListsRunConfig):
        # The solver's labels come from code; an LLM judge runs only on a judge model named for it.
        update["labeller"] = "code"
        if config.judge_model is None:
            update["judges"] = [j for j in config.judges if j != "llm"]
    elif not isinstance(config, WiltRunConfig):
        raise ValueError("the solver baseline exists for WILT and list-rules runs")
    baseline = config.model_copy(update=update)
    oracle = None
    if isinstance(baseline, ListsRunConfig) and "llm" in baseline.judges:
        oracle = make_oracle_client(baseline, store)
    items = [(e.item_key, e.item) for e in store.list_episodes(run_id)]
    baseline_id = create_run(store, baseline, items)

    async def play() -> None:
        try:
            await execute_run(
                store, baseline_id, solver_player_factory(baseline), concurrency=1, oracle=oracle
            )
        finally:
            if oracle is not None:
                await oracle.aclose()

    asyncio.run(play())
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


def make_oracle_client(
    config: ListsRunConfig, store: Store, *, api_key: str | None = None
) -> ModelClient | None:
    """The client of a list-rules run's LLM judge and labeller, or None when neither runs."""
    if config.labeller != "llm" and "llm" not in config.judges:
        return None
    if config.oracle_model is None:
        raise ValueError("the llm judge or labeller needs a model (--judge-model)")
    spec = config.oracle_model
    base_url = config.judge_base_url if config.judge_model else config.base_url
    update = {"model": spec, "base_url": base_url}
    # The same model and endpoint as the player: share its key; another provider reads its own variable.
    key = api_key if config.judge_model is None else None
    return make_client(config.model_copy(update=update), store, api_key=key)


async def execute_run(
    store: Store,
    run_id: int,
    make_player: PlayerFactory,
    *,
    concurrency: int,
    on_result: Callable[[EpisodeResult], None] | None = None,
    oracle: ModelClient | None = None,
) -> list[EpisodeResult]:
    """Play every episode of the run that has not completed (all of them for a new run).

    Completed episodes are never replayed. An episode that was running when the process died, or that errored,
    is replayed from its start; its model calls are answered from the cache, so no finished call is repeated.
    ``oracle`` is the model of a list-rules run's LLM judge and labeller.
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
        if isinstance(config, ListsRunConfig):
            return _lists_job(config, run_id, item, episode_id, index, make_player, oracle)
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


def _lists_job(
    config: ListsRunConfig,
    run_id: int,
    item: dict[str, Any],
    episode_id: int,
    index: int,
    make_player: PlayerFactory,
    oracle: ModelClient | None,
) -> EpisodeJob:
    from wason.sandbox.lists import LANGUAGE_SUMMARY
    from wason.tasks.lists.game import ListsGame
    from wason.tasks.lists.protocol import ListsProtocol

    rule = lists_rule_from_item(item)
    game_config = config.game_config(int(item["seed"]))
    examples = tuple(tuple(int(x) for x in e) for e in item["examples"])
    context = CallContext(run_id=run_id, episode_id=episode_id, sample=_lists_sample(item))

    def make_game() -> ListsGame:
        labeller, judge = _oracles(config, oracle, context)
        return ListsGame(
            rule,
            examples,
            game_config,
            positives=list_positives(rule, config.probe_seed),
            labeller=labeller,
            judge=judge,
        )

    render = ListsProtocol(examples, echo=config.echo, language=LANGUAGE_SUMMARY)
    return EpisodeJob(
        episode_id=episode_id,
        index=index,
        make_game=make_game,
        make_player=lambda: make_player(item, episode_id, index),
        feedback=render.feedback,
    )


# Positives per (rule, seed) for the probe set's near misses and the quiz; drawing them costs up to a second for
# narrow rules, so they are drawn once per process.
_POSITIVES: dict[tuple[str, str, int], tuple[tuple[int, ...], ...]] = {}
POSITIVES_PER_RULE = 9  # the probe set's near misses use the first 12 distinct positives, examples first


def list_positives(rule: Any, seed: int) -> tuple[tuple[int, ...], ...]:
    """Lists the rule accepts (beyond its examples), drawn with ``seed``; empty when none can be found."""
    from wason.tasks.lists.examples import generate_examples

    key = (rule.key, rule.text, seed)
    if key not in _POSITIVES:
        try:
            drawn = generate_examples(rule, seed=seed, k=POSITIVES_PER_RULE)
        except ValueError:  # a rule with few positives: take what a smaller draw finds
            try:
                drawn = generate_examples(rule, seed=seed, k=3)
            except ValueError:
                drawn = []
        _POSITIVES[key] = tuple(tuple(xs) for xs in drawn)
    return _POSITIVES[key]


def _oracles(config: ListsRunConfig, oracle: ModelClient | None, context: CallContext) -> tuple[Any, Any]:
    """The episode's LLM labeller and judge, bound to its call context (None where code decides)."""
    if oracle is None:
        return None, None
    from wason.judges.llm import LLMJudge, LLMLabeller
    from wason.tasks.lists.protocol import (
        format_cases_for_labeller,
        load_analysis_prompt,
        load_judgment_prompt,
    )

    labeller = judge = None
    if config.labeller == "llm":
        llm_labeller = LLMLabeller(oracle, load_analysis_prompt(), config.params, format_cases_for_labeller)

        async def label(rule_text: str, cases: Any) -> list[bool | None]:
            return (await llm_labeller(rule_text, cases, context)).labels

        labeller = label
    if "llm" in config.judges:
        llm_judge = LLMJudge(oracle, load_judgment_prompt(), config.params)

        async def decide(rule_text: str, hypothesis: str) -> dict[str, Any]:
            return (await llm_judge(rule_text, hypothesis, context)).model_dump(mode="json")

        judge = decide
    return labeller, judge
