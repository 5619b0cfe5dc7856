"""List rules ("Numberwang") as a task family: run configuration, items, game, protocol, oracles, solver,
human player and reports."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar, Literal

from pydantic import Field, model_validator

from wason.core.family import (
    JUDGE_FIELDS,
    MAX_EPISODES,
    MAX_FORMAT_ERRORS,
    MAX_IDS,
    MAX_NAME_CHARS,
    MAX_SEED,
    ActionCodec,
    EpisodeContext,
    Family,
    FormField,
    Item,
    LlmJudgedSettings,
    Name,
    OracleSpec,
    RuleId,
    RunReader,
    WebForm,
    check_episodes,
    form_value,
)
from wason.core.game import Game, Player, TextProtocol
from wason.core.moves import Command, form_moves, yes_no_quiz
from wason.failures import unavailable
from wason.judges.llm import LLMJudge, LLMLabeller
from wason.tasks.lists.game import (
    MAX_QUIZ,
    MAX_ROUNDS,
    MAX_TESTS_PER_ROUND,
    FinalHypothesis,
    ListsConfig,
    ListsGame,
    PredicateAnswer,
    QuizAnswer,
    TestRound,
)
from wason.tasks.lists.rules import SPLITS as LIST_SPLITS
from wason.tasks.lists.rules import ListRule as Rule

MAX_DRAWN_EXAMPLES = 500
"""The most episodes whose examples are drawn (generated examples): about 50 ms each."""

MAX_GENERATED = MAX_DRAWN_EXAMPLES
"""The most rules of a generated split (``--n``). The generator yields more: about 1,740 of the list grammar's
1,802 rules pass its example check; but a generated rule has no published examples, so each
of its episodes draws them, and a run draws them for at most ``MAX_DRAWN_EXAMPLES`` episodes. Drawing a rule
takes about 0.1-0.2 s (500 rules about 40 s; a ``slow`` test draws them)."""

SERVED_GENERATED = 15
"""The most rules of a generated split asked for over HTTP (``wason serve``): each is drawn with an example check,
about 0.1 s a rule once the grammar's space is built (2 s, once a process), so a split of 15 takes about 1.5 s (30
took 3 to 5 s, 100 took 10 to 25 s) and any game or run a request asks for starts within seconds."""

PILOT_TEMPERATURE = 0.0
"""The temperature of every call the pilot made (its ``api.py``): a new run's default (see
:meth:`ListsFamily.prepare`)."""


class ListsRunConfig(LlmJudgedSettings):
    """Everything that defines a list-rules (Numberwang) run: rules, examples, trials, labeller and judges.

    Each rule is played ``trials`` times; trial ``t`` has the episode seed ``seed + t - 1`` (``seed`` defaults to
    0), which draws generated examples and the quiz, and keeps the trials' model samples apart.
    """

    item_fields: ClassVar[frozenset[str] | None] = frozenset({"split", "ids", "seed", "n"})
    public_fields: ClassVar[frozenset[str]] = JUDGE_FIELDS | {
        "examples",
        "trials",
        "echo",
        "labeller",
        "max_rounds",
        "tests_per_round",
        "format_error_limit",
        "quiz_size",
        "probe_seed",
    }
    not_in_play: ClassVar[frozenset[str]] = JUDGE_FIELDS | {"ids", "seed", "n", "trials", "labeller", "echo"}
    model_only: ClassVar[frozenset[str]] = frozenset({"format_error_limit"})
    # a person is scored by code: the predicate and the quiz, no LLM judge
    play_defaults: ClassVar[Mapping[str, Any]] = {"judges": ["predicate", "quiz"]}
    served_bounds: ClassVar[Mapping[str, int]] = {"n": SERVED_GENERATED}
    # the text environments' shaped rewards: lists tested again, and the share of the solver's hypotheses (those
    # the examples leave) the tests ruled out, after each round (wason.tasks.lists.reduction)
    reward_counts: ClassVar[Mapping[str, str]] = {"repeat": "repeats"}
    reward_information: ClassVar[str | None] = "reduction"
    audit_module: ClassVar[str | None] = "wason.tasks.lists.audit"
    # the curricula's difficulty axis (wason.env.curriculum): the rounds of tests, most first
    difficulty_axes: ClassVar[Mapping[str, tuple[Any, ...]]] = {"max_rounds": (19, 10, 5, 3)}

    task: Literal["lists"] = "lists"
    split: str = Field(
        default="pilot", max_length=MAX_NAME_CHARS, description="pilot, second, all, phase1 or generated"
    )
    ids: list[RuleId] | None = Field(
        default=None, max_length=MAX_IDS, description="only these published rule ids, e.g. 1,2,5"
    )
    seed: int | None = Field(
        default=None,
        ge=0,
        le=MAX_SEED,
        description="seed of the generated split and of generated examples",
    )
    n: int | None = Field(default=None, ge=1, le=MAX_GENERATED, description="rules in the generated split")
    examples: Literal["published", "generated"] | None = Field(
        default=None,
        description="the published three examples (pilot, phase1) or examples drawn with --seed "
        "(default: published where the split has them)",
    )
    trials: int = Field(
        default=1, ge=1, le=MAX_EPISODES, description="episodes per rule, with seeds S, S+1, ..."
    )
    echo: bool = Field(default=False, description="show each tested list beside its label")
    labeller: Literal["code", "llm"] = Field(
        default="code",
        description="who labels test lists: the rule's code (default) or the judge model with the pilot's "
        "analysis prompt (disagreements with the code are recorded)",
    )
    judges: list[Name] = Field(
        default_factory=lambda: ["predicate", "quiz", "llm"],
        max_length=3,
        description="which judges run, comma-separated: predicate (the model states a Python predicate, "
        "judged by code), quiz (it labels held-out lists), llm (the pilot's judge, 3 votes); default all",
    )
    max_rounds: int = Field(
        default=19, ge=1, le=MAX_ROUNDS, description="rounds of five tests (published: 19)"
    )
    tests_per_round: int = Field(
        default=5, ge=1, le=MAX_TESTS_PER_ROUND, description="test lists per round (published: 5)"
    )
    format_error_limit: int = Field(
        default=2,
        ge=0,
        le=MAX_FORMAT_ERRORS,
        description="end an episode after this many consecutive unreadable replies (reference: 2; 0 = never)",
    )
    quiz_size: int = Field(default=10, ge=2, le=MAX_QUIZ, description="held-out lists in the quiz")
    probe_seed: int = Field(
        default=0, ge=0, le=MAX_SEED, description="seed of the probe lists predicates are judged on"
    )

    @model_validator(mode="after")
    def _check(self) -> ListsRunConfig:
        if self.split not in (*LIST_SPLITS, "generated"):
            raise ValueError(
                f"unknown lists split {self.split!r}; choose one of: {', '.join(LIST_SPLITS)}, generated"
            )
        if self.split == "generated" and (self.seed is None or self.n is None):
            raise ValueError("the generated split needs --seed S and --n N (N >= 1)")
        if self.ids is not None and self.split == "generated":
            raise ValueError("rule ids select from a published split")
        self.game_config(0)  # validates the judges and the round settings
        if self.examples == "published" and self.split in ("second", "all", "generated"):
            raise ValueError(f"the {self.split} rules have no published examples; use --examples generated")
        self._check_size()
        if not self.judges:
            raise ValueError("at least one judge is needed (predicate, quiz, llm)")
        if self.labeller == "llm" and self.oracle_model is None:
            raise ValueError("the llm labeller needs a model (--judge-model)")
        return self

    def _check_size(self) -> None:
        from wason.tasks.lists.rules import load_split

        if self.ids is not None:
            rules = len(self.ids)
        elif self.split == "generated":
            rules = int(self.n or 0)
        else:
            rules = len(load_split(self.split))
        check_episodes(rules * self.trials, "trials")
        if self.examples_source() == "generated":
            # each episode's examples are drawn for it, about 50 ms each
            check_episodes(rules * self.trials, "trials", MAX_DRAWN_EXAMPLES, "episodes with drawn examples")

    def examples_source(self) -> str:
        if self.examples is not None:
            return self.examples
        return "published" if self.split in ("pilot", "phase1") else "generated"

    def game_config(self, episode_seed: int) -> ListsConfig:
        return ListsConfig(
            tests_per_round=self.tests_per_round,
            max_rounds=self.max_rounds,
            format_error_limit=self.format_error_limit,
            judges=tuple(self.judges),
            quiz_size=self.quiz_size,
            probe_seed=self.probe_seed,
            quiz_seed=episode_seed,
        )

    def rules(self) -> list[Rule]:
        from wason.tasks.lists.rules import get_rule, load_split

        if self.split == "generated":
            from wason.tasks.lists.generate import generate_rules

            return list(generate_rules(int(self.seed or 0), int(self.n or 0)))
        if self.ids is None:
            return load_split(self.split)
        return [get_rule(self.split, i) for i in self.ids]

    def items(self) -> list[Item]:
        """One episode per (rule, trial); items carry the rule's identity and text and the examples shown."""
        return [self._item(rule, trial) for rule in self.rules() for trial in range(1, self.trials + 1)]

    def item_at(self, index: int) -> Item:
        """``items()[index]`` alone: the examples of one episode are drawn, not every episode's."""
        rule, trial = divmod(index, self.trials)
        if self.split == "generated":
            from wason.tasks.lists.generate import generate_rules

            # a generated split's first k rules are the split of k: draw no rule after this one
            return self._item(generate_rules(int(self.seed or 0), rule + 1)[rule], trial + 1)
        return self._item(self.rules()[rule], trial + 1)

    def _item(self, rule: Rule, trial: int) -> Item:
        from wason.tasks.lists.examples import generate_examples, generate_examples_with_provenance

        source = self.examples_source()
        episode_seed = (self.seed or 0) + trial - 1
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
        return f"{rule.key}|{trial}", item


def rule_from_item(item: Mapping[str, Any]) -> Rule:
    """The hidden rule of a list-rules episode item (generated rules are drawn again from their seed)."""
    from wason.tasks.lists.rules import get_rule

    ref = item["rule"]
    if ref["split"] == "generated":
        from wason.tasks.lists.generate import generate_rules

        # the split's first k rules are the split of k: rule k is drawn without the ones after it
        rule = generate_rules(int(item["generated"]["seed"]), int(ref["id"]))[-1]
    else:
        rule = get_rule(ref["split"], int(ref["id"]))
    if rule.text != ref["text"]:  # a changed generator or rule table must not silently score another rule
        raise ValueError(f"rule {ref['key']} is no longer {ref['text']!r} (now {rule.text!r})")
    return rule


# Positives per (rule, seed) for the probe set's near misses and the quiz; drawing them costs up to a second for
# narrow rules, so they are drawn once per process.
_POSITIVES: dict[tuple[str, str, int], tuple[tuple[int, ...], ...]] = {}
POSITIVES_PER_RULE = 9  # the probe set's near misses use the first 12 distinct positives, examples first


def list_positives(rule: Rule, seed: int) -> tuple[tuple[int, ...], ...]:
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


def _sample(item: Mapping[str, Any]) -> str:
    # the rule, its examples and the trial: trials of one rule are independent samples
    rule = item["rule"]
    return f"{rule['key']}|{rule['text']}|{item['examples']}|{item['trial']}"


def _decode_round(data: dict[str, Any]) -> TestRound:
    from wason.tasks.lists.protocol import as_case

    # integer lists become tuples of ints, anything else stays as the player wrote it (the game says No)
    return TestRound(
        cases=tuple(as_case(c) for c in data.get("cases", ())),
        leading_hypothesis=data.get("leading_hypothesis"),
        possible_hypotheses=tuple(data.get("possible_hypotheses", ())),
    )


class ListsFamily(Family[ListsRunConfig]):
    """Hidden rules over integer lists: rounds of five test lists labelled by code, then a final hypothesis."""

    name = "lists"
    title = "List rules"
    summary = "hidden rules over integer lists (the Numberwang pilot): rounds of five test lists"
    config_type = ListsRunConfig
    reports = ("wason.tasks.lists.report", "wason.tasks.lists.plots")
    playable = True

    action_writer = "wason.tasks.lists.protocol"
    action_codec = ActionCodec(
        TestRound, FinalHypothesis, PredicateAnswer, QuizAnswer, hooks={"TestRound": _decode_round}
    )

    def item_count(self, config: ListsRunConfig) -> int:
        rules = int(config.n or 0) if config.split == "generated" else len(config.rules())
        return rules * config.trials

    def prepare(self, config: ListsRunConfig, reader: RunReader) -> ListsRunConfig:
        """A new run that calls a model and sets no temperature samples at the pilot's: its ``api.py`` sends
        ``temperature=0`` on every call (player, labeller and judge). Stored with the run, so a resumed run keeps
        what it started with, and a run stored before this default keeps the model's default."""
        calls_a_model = config.player == "llm" or config.labeller == "llm" or "llm" in config.judges
        if config.params.temperature is not None or not calls_a_model:
            return config
        params = config.params.model_copy(update={"temperature": PILOT_TEMPERATURE})
        return config.model_copy(update={"params": params})

    def game(
        self, config: ListsRunConfig, item: Mapping[str, Any], context: EpisodeContext
    ) -> Game[Any, Any]:
        rule = rule_from_item(item)
        examples = tuple(tuple(int(x) for x in e) for e in item["examples"])
        labeller, judge = _oracles(config, context, item)
        return ListsGame(
            rule,
            examples,
            config.game_config(int(item["seed"])),
            positives=list_positives(rule, config.probe_seed),
            labeller=labeller,
            judge=judge,
        )

    def protocol(self, config: ListsRunConfig, item: Mapping[str, Any]) -> TextProtocol[Any, Any]:
        from wason.tasks.lists.language import LANGUAGE_SUMMARY
        from wason.tasks.lists.protocol import ListsProtocol

        examples = tuple(tuple(int(x) for x in e) for e in item["examples"])
        return ListsProtocol(examples, echo=config.echo, language=LANGUAGE_SUMMARY)

    def sample_key(self, config: ListsRunConfig, item: Mapping[str, Any]) -> str:
        return _sample(item)

    def oracle(self, config: ListsRunConfig) -> OracleSpec | None:
        return config.judge_oracle(
            config.labeller == "llm" or "llm" in config.judges, "the llm judge or labeller"
        )

    def solver(self, config: ListsRunConfig, item: Mapping[str, Any]) -> Player[Any, Any]:
        from wason.tasks.lists.solver_player import ListSolverPlayer

        return ListSolverPlayer(
            seed=int(item["seed"]), tests_per_round=config.tests_per_round, max_rounds=config.max_rounds
        )

    def baseline(self, config: ListsRunConfig, run_id: int) -> ListsRunConfig | None:
        base = super().baseline(config, run_id)
        # the solver's labels come from code
        return None if base is None else base.model_copy(update={"labeller": "code"})

    def web_form(
        self, config: ListsRunConfig, item: Mapping[str, Any], observation: Any, turn: int
    ) -> WebForm:
        moves = form_moves(self.moves(config, item, observation))
        if turn:
            return WebForm(prompt=_person_text(observation.model_dump(mode="json")), moves=moves)
        return WebForm(prompt=_opening(config, observation), moves=moves)

    def web_history(
        self, config: ListsRunConfig, item: Mapping[str, Any], turns: Sequence[Mapping[str, Any]]
    ) -> list[str]:
        # a person reads the lists beside their answers, and the follow-ups in plain words (the protocol's
        # feedback asks a model for a reply format)
        return [_person_text(t.get("observation") or {}) for t in turns]

    def moves(self, config: ListsRunConfig, item: Mapping[str, Any], observation: Any) -> Sequence[Command]:
        kind = getattr(observation, "kind", "")
        if kind == "ask_predicate":
            field = FormField("source", "Predicate", placeholder="lambda xs: all(x % 2 == 0 for x in xs)")
            make = lambda values: PredicateAnswer(form_value(values, "source"))  # noqa: E731
            hint = "write your rule as a Python predicate over the list xs"
            return (Command(name="predicate", label="Send", make=make, fields=(field,), hint=hint, ask=True),)
        if kind == "ask_quiz":
            quiz = getattr(observation, "quiz", ())
            hint = "does each list follow the rule? answer y or n"
            return (yes_no_quiz(QuizAnswer, [f"{list(case)}  y/n" for case in quiz], "list", hint),)
        final = Command(
            name="final",
            label="Final hypothesis",
            make=lambda values: FinalHypothesis(form_value(values, "text")),
            fields=(FormField("text", "The rule", placeholder="..."),),
            words=("final", "f", "guess"),
            syntax="final TEXT",
            hint="your final rule in words, e.g. final the items increase",
            web_hint="your final rule in words, e.g. the items increase",
            action="FinalHypothesis",
        )
        if getattr(observation, "must_finalize", False):
            return (final,)
        tests = Command(
            name="tests",
            label="Test these lists",
            make=_test_round,
            fields=tuple(
                FormField(f"list{i}", f"list {i}", placeholder="1, 2, 3")
                for i in range(1, config.tests_per_round + 1)
            ),
            words=("run", "test", "go"),
            hint="integers separated by commas; an empty field is the empty list",
            action="TestRound",
            collect=True,
        )
        return (tests, final)

    def public(self, item: Mapping[str, Any]) -> list[str]:
        # the examples are shown anyway; the examples' provenance names the rule, and so does the episode's seed
        # (with the run's, which draws a generated split's rules)
        return ["trial", "examples", "examples_source"]

    def describe(self, config: ListsRunConfig, n_episodes: int, n_todo: int, who: str) -> str:
        rules = f"{config.split} split" + (f" (seed {config.seed})" if config.split == "generated" else "")
        examples = config.examples_source()
        if examples == "generated":
            examples += f" with seeds {config.seed or 0}..{(config.seed or 0) + config.trials - 1}"
        primary = config.game_config(0).primary
        judges = ", ".join(f"{j} (primary)" if j == primary else j for j in config.judges)
        if "llm" in config.judges:
            judges += f"; LLM judge {config.oracle_model}"
        labels = (
            "code"
            if config.labeller == "code"
            else f"LLM ({config.oracle_model}) with code disagreements kept"
        )
        return (
            f"lists {rules}, {n_episodes // config.trials} rules x {config.trials} trial(s) = {n_episodes} "
            f"episodes ({n_todo} to play) with {who}; examples {examples}; up to {config.max_rounds} rounds of "
            f"{config.tests_per_round} tests{', echoed' if config.echo else ''}; labels by {labels}; "
            f"judges: {judges}{_temperature_note(config)}"
        )

    # -- playing in a terminal ---------------------------------------------------------------------------
    def item_id(self, item: Mapping[str, Any]) -> int | None:
        return int(item["rule"]["id"])

    def intro(self, config: ListsRunConfig, item: Mapping[str, Any], origin: str) -> str:
        return f"List rules, {config.split} split, a hidden rule ({origin})."

    def ending(self, item: Mapping[str, Any], metrics: Mapping[str, Any] | None) -> list[str]:
        rule = item["rule"]
        lines = [f"\nThe rule was: {rule['text']}  ({rule['key']})"]
        if metrics is None:
            return lines
        m = metrics
        judges = m["judges"]
        verdict = m.get("predicate_verdict") or {}
        if judges.get("predicate"):
            seen = verdict.get("n_observations")
            lines.append(
                f"Your predicate is the rule (it agrees on all {verdict.get('probes')} probe lists"
                + (f", the {seen} you saw labelled among them)." if seen else ").")
            )
        elif verdict.get("rejection"):
            lines.append(f"Your predicate could not be used: {verdict['rejection']}")
        elif verdict:
            lines.append(f"Your predicate is not the rule (agreement {verdict.get('agreement', 0):.1%}).")
            if verdict.get("decided_by_observation"):
                lines.append("  It contradicts a label you were shown (the first list below).")
            for ce in (verdict.get("counterexamples") or [])[:3]:
                lines.append(f"  e.g. {ce['list']}: the rule says {ce['rule']}, yours says {ce['guess']}")
        if m.get("quiz_accuracy") is not None:
            lines.append(f"Quiz: {round(m['quiz_accuracy'] * len(m['quiz']))} of {len(m['quiz'])} right.")
        lines.append(f"{m['rounds']} rounds, {m['lists_tested']} lists tested.")
        return lines


def _person_text(observation: Mapping[str, Any]) -> str:
    """What a person reads after a move (an observation's JSON): each tested list with its answer, the rounds
    left, or the follow-up asked in plain words."""
    kind = observation.get("kind")
    if kind == "ask_predicate":
        return (
            "Now write your rule as a Python predicate over the list xs, e.g. "
            "lambda xs: len(xs) > 2 and xs[0] < xs[-1]."
        )
    if kind == "ask_quiz":
        return "Last: does each of these lists follow the rule? Answer yes or no for each."
    if kind == "ended":
        return ""
    lines = []
    if kind == "format_error":
        lines.append(f"That move could not be read ({observation.get('reason') or 'unreadable'}).")
    cases = observation.get("cases") or []
    labels = observation.get("labels") or []
    repeats = observation.get("repeats") or [False] * len(cases)
    for case, label, repeat in zip(cases, labels, repeats, strict=False):
        lines.append(
            f"{case} -> {'Yes' if label else 'No'}" + ("  (tested or shown before)" if repeat else "")
        )
    left = observation.get("rounds_left")
    if left is not None:
        lines.append(f"[{left} round{'' if left == 1 else 's'} left]")
    if observation.get("must_finalize"):
        lines.append("No rounds left: state your rule.")
    return "\n".join(lines)


def _temperature_note(config: ListsRunConfig) -> str:
    """The run header's word on sampling, where a model is called: the pilot's temperature 0, or what differs."""
    if config.player != "llm" and config.labeller != "llm" and "llm" not in config.judges:
        return ""
    temperature = config.params.temperature
    if temperature == PILOT_TEMPERATURE:
        return "; temperature 0, as the pilot"
    shown = "the model's default temperature" if temperature is None else f"temperature {temperature:g}"
    return f"; {shown} (the pilot's: 0)"


def _oracles(config: ListsRunConfig, context: EpisodeContext, item: Mapping[str, Any]) -> tuple[Any, Any]:
    """The episode's LLM labeller and judge, bound to its call context (None where code decides)."""
    oracle = context.oracle
    wanted = config.labeller == "llm", "llm" in config.judges
    if oracle is None:
        # A stored game restored where no model is at hand: its turns carry what the oracles said; a new
        # action that needs them fails as an outside failure, with the reason.
        none = unavailable("an LLM judge or labeller")
        return (none if wanted[0] else None), (none if wanted[1] else None)
    from wason.tasks.lists.protocol import (
        format_cases_for_labeller,
        load_analysis_prompt,
        load_judgment_prompt,
    )

    call = context.calls(_sample(item))
    labeller = judge = None
    if wanted[0]:
        llm_labeller = LLMLabeller(oracle, load_analysis_prompt(), config.params, format_cases_for_labeller)

        async def label(rule_text: str, cases: Any) -> list[bool | None]:
            return (await llm_labeller(rule_text, cases, call)).labels

        labeller = label
    if wanted[1]:
        llm_judge = LLMJudge(oracle, load_judgment_prompt(), config.params)

        async def decide(rule_text: str, hypothesis: str) -> dict[str, Any]:
            return (await llm_judge(rule_text, hypothesis, call)).model_dump(mode="json")

        judge = decide
    return labeller, judge


FAMILY = ListsFamily()


def _opening(config: ListsRunConfig, observation: Any) -> str:
    """What the player reads first: the examples and how the game goes."""
    examples = "\n".join(f"  {list(e)}" for e in getattr(observation, "examples", None) or ())
    rules = (
        "Find the hidden rule: it says Yes or No to lists of integers. The examples above all say Yes.\n"
        f"You have {config.max_rounds} rounds of up to {config.tests_per_round} lists; then state your "
        "rule in words (Final hypothesis). You may then be asked to write it as a Python predicate "
        "(lambda xs: ...) and to label new lists."
    )
    return f"Example lists that follow the rule:\n{examples}\n\n{rules}" if examples else rules


def _test_round(values: Mapping[str, str]) -> TestRound:
    """A round of tests: the lists of the fields given, in order (an empty field: the empty list)."""
    cases = []
    for i in range(1, len(values) + 1):
        if f"list{i}" not in values:
            break
        text = values[f"list{i}"].strip().strip("[]")
        try:
            cases.append(tuple(int(p) for p in text.replace(",", " ").split()))
        except ValueError:
            raise ValueError(f"list {i}: integers separated by commas, not {text[:40]!r}") from None
    return TestRound(cases=tuple(cases))
