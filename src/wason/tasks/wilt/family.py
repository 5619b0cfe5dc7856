"""WILT as a task family: its run configuration, items, game, protocol, solver, human player and reports."""

from __future__ import annotations

import argparse
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, ClassVar, Literal

from pydantic import Field, field_validator, model_validator

from wason.core.family import (
    MAX_EPISODES,
    MAX_FORMAT_ERRORS,
    MAX_IDS,
    MAX_NAME_CHARS,
    MAX_PATH_CHARS,
    MAX_RUN_ID,
    MAX_SEED,
    ActionCodec,
    EpisodeContext,
    Family,
    FormField,
    Item,
    RuleId,
    RunReader,
    RunSettings,
    WebForm,
    check_episodes,
    form_value,
)
from wason.core.game import Game, Player, TextProtocol
from wason.core.moves import Command, form_moves
from wason.sandbox import compile_rule
from wason.tasks.wilt.game import MAX_TESTS, FinalGuess, ProposeTest, WiltConfig, WiltGame
from wason.tasks.wilt.generate import MAX_N as MAX_GENERATED
from wason.tasks.wilt.generate import SERVED_N
from wason.tasks.wilt.judge import is_lambda
from wason.tasks.wilt.protocol import (
    INSTRUCTIONS,
    WiltProtocol,
    load_instruction,
    testswap_prompt,
)
from wason.tasks.wilt.rules import (
    SPLITS,
    WiltRule,
    get_rule,
    load_rules_file,
    load_split,
    rule_from_item,
    rule_item,
)
from wason.tasks.wilt.single import MAX_TESTS as SINGLE_MAX_TESTS
from wason.tasks.wilt.single import SINGLE_RULES


class WiltRunConfig(RunSettings):
    """Everything that defines a WILT run; stored with the run so ``--resume`` can rebuild it."""

    item_fields: ClassVar[frozenset[str] | None] = frozenset(
        {"split", "ids", "rules_file", "seed", "n", "tests_from"}
    )
    public_fields: ClassVar[frozenset[str]] = frozenset(
        {
            "trials",
            "protocol",
            "max_tests",
            "format_error_limit",
            "probe_seed",
            "solver_stop",
            "lenient_guess",
        }
    )

    flag_names: ClassVar[Mapping[str, str]] = {"rules_file": "rules"}
    flag_metavars: ClassVar[Mapping[str, str]] = {"rules_file": "FILE"}
    not_in_play: ClassVar[frozenset[str]] = frozenset({"ids", "seed", "n", "trials", "tests_from"})
    model_only: ClassVar[frozenset[str]] = frozenset({"format_error_limit", "lenient_guess", "solver_stop"})
    internal_fields: ClassVar[frozenset[str]] = RunSettings.internal_fields | {"swap"}
    play_defaults: ClassVar[Mapping[str, Any]] = {"split": "full"}
    served_bounds: ClassVar[Mapping[str, int]] = {"n": SERVED_N}
    # the text environments' shaped rewards: invalid and repeated tests, and the hypothesis-space reduction
    reward_counts: ClassVar[Mapping[str, str]] = {"invalid": "invalid_tests", "repeat": "repeats"}
    reward_information: ClassVar[str | None] = "reduction"
    audit_module: ClassVar[str | None] = "wason.tasks.wilt.audit"
    # the curricula's difficulty axis: the test budget, most tests first
    difficulty_axes: ClassVar[Mapping[str, tuple[Any, ...]]] = {"max_tests": (30, 20, 10, 5)}

    task: Literal["wilt"] = "wilt"
    split: str = Field(
        default="lite",
        max_length=MAX_NAME_CHARS,
        description="lite (10 rules), full (50), generated (with --seed and --n), or single (our 12 one-variable "
        "rules, the split of --protocol single)",
    )
    ids: list[RuleId] | None = Field(
        default=None, max_length=MAX_IDS, description="only these published rule ids, e.g. 1,2,15"
    )
    rules_file: str | None = Field(
        default=None,
        max_length=MAX_PATH_CHARS,
        description="your own rules, one per line in the guess language",
    )
    seed: int | None = Field(default=None, ge=0, le=MAX_SEED, description="seed of the generated split")
    n: int | None = Field(default=None, ge=1, le=MAX_GENERATED, description="rules in the generated split")
    trials: int = Field(
        default=1,
        ge=1,
        le=MAX_EPISODES,
        description="episodes per rule, each its own sample (with --model-seed S, trial t samples with seed S+t-1)",
    )
    protocol: Literal["published", "bayesian", "testswap", "single"] = Field(
        default="published",
        description="published: the paper's A.1.2 prompt; bayesian: the reference's Bayesian prompt "
        "(whole numbers from 1 to 100); testswap: one guess from another run's tests (paper A.2, --tests-from); "
        "single: the reference's one-variable prompt (one whole number from 1 to 100, 5 tests, lambda x)",
    )
    tests_from: int | None = Field(
        default=None,
        ge=1,
        le=MAX_RUN_ID,
        description="with --protocol testswap: the WILT run whose tests each rule's guess is made from",
    )
    # the source run's rules and their tests (filled by the family's prepare from --tests-from, then stored)
    swap: list[dict[str, Any]] | None = Field(default=None, max_length=MAX_EPISODES)
    # at least 1, checked with the protocol (a test swap's game has none)
    max_tests: int = Field(default=30, le=MAX_TESTS, description="tests before the guess (published: 30)")
    format_error_limit: int = Field(
        default=2,
        ge=0,
        le=MAX_FORMAT_ERRORS,
        description="end an episode after this many consecutive unreadable replies (reference: 2; 0 = never)",
    )
    probe_seed: int = Field(
        default=0, ge=0, le=MAX_SEED, description="seed of the probe set guesses are judged on"
    )
    lenient_guess: bool = Field(
        default=False,
        description="accept a bare-expression final guess (x > y > z) as a lambda of x, y, z; the reference "
        "answers 'Invalid lambda function.' and scores it 0",
    )
    solver_stop: Literal["falsify", "confident"] = Field(
        default="falsify",
        description="the solver player's stopping rule: falsify (spend every test trying to break its "
        "hypothesis, then guess) or confident (guess once one hypothesis holds 99%% of the weight, for scores "
        "that reward fewer tests)",
    )

    @classmethod
    def with_play_defaults(cls, given: Mapping[str, Any]) -> dict[str, Any]:
        # a rules file (or the one-variable protocol's own rules) is the source: the full split is the default
        # only without one
        if given.get("rules_file") or given.get("protocol") == "single":
            return dict(given)
        return super().with_play_defaults(given)

    @model_validator(mode="before")
    @classmethod
    def _implied_split(cls, data: Any) -> Any:
        # `--rules FILE` plays the file's rules: the split is "file" unless the user named another; the
        # one-variable prompt plays our one-variable rules with the 5 tests it states, unless told otherwise
        if not isinstance(data, dict):
            return data
        data = dict(data)
        if data.get("rules_file") and data.get("split") in (None, "file"):
            data["split"] = "file"
        if data.get("protocol") == "single":
            if data.get("split") in (None, "lite"):
                data["split"] = "single"
            if data.get("max_tests") is None:
                data["max_tests"] = SINGLE_MAX_TESTS
        return data

    @field_validator("rules_file")
    @classmethod
    def _absolute(cls, v: str | None) -> str | None:
        # stored absolute, so `--resume` from another directory finds the same file
        return None if v is None else str(Path(v).resolve())

    @field_validator("split")
    @classmethod
    def _check_split(cls, v: str) -> str:
        if v not in (*SPLITS, "generated", "file", "single"):
            raise ValueError(
                f"unknown WILT split {v!r}; choose one of: {', '.join(SPLITS)}, generated, file, single"
            )
        return v

    @model_validator(mode="after")
    def _check_sources(self) -> WiltRunConfig:
        if self.split == "generated" and (self.seed is None or self.n is None):
            raise ValueError("the generated split needs --seed S and --n N (N >= 1)")
        if self.split == "file" and not self.rules_file:
            raise ValueError("split 'file' needs a rules file (--rules FILE)")
        if self.rules_file and self.split != "file":
            raise ValueError("--rules FILE plays your own rules; leave out --split")
        if self.ids is not None and self.split not in (*SPLITS, "single"):
            raise ValueError("rule ids select from a published split (lite or full) or the single split")
        if (self.protocol == "single") != (self.split == "single"):
            raise ValueError(
                "--protocol single plays the one-variable rules (split single), and only that protocol does"
            )
        if self.max_tests < 1:
            raise ValueError(f"max_tests must be at least 1 (--max-tests), got {self.max_tests}")
        if (self.protocol == "testswap") != (self.tests_from is not None):
            raise ValueError(
                "--protocol testswap and --tests-from RUN go together (the run whose tests are given)"
            )
        self.game_config()
        rules = self._rule_count()
        if rules is not None:
            check_episodes(rules * self.trials, "trials")
        return self

    def _rule_count(self) -> int | None:
        """How many rules the run plays, where that is known before they are read (not a rules file's, nor a
        test swap's source run's)."""
        if self.protocol == "testswap" or self.split == "file":
            return None
        if self.ids is not None:
            return len(self.ids)
        if self.split == "generated":
            return self.n
        if self.split == "single":
            return len(SINGLE_RULES)
        return len(load_split(self.split))

    def game_config(self) -> WiltConfig:
        # a test swap has one turn: the guess from the tests given; a reply that is no guess ends the episode
        swap = self.protocol == "testswap"
        return WiltConfig(
            lenient_guess=self.lenient_guess,
            max_tests=0 if swap else self.max_tests,
            format_error_limit=1 if swap else self.format_error_limit,
            probe_seed=self.probe_seed,
            integer_range=(1, 100) if self.protocol in ("bayesian", "single") else None,
            arity=1 if self.protocol == "single" else 3,
        )

    def items(self) -> list[Item]:
        """The run's episodes as ``(key, item)``, one per rule and trial; items carry the rule text, so resuming
        never needs the source again.

        With one trial the items are the rule's own (as before trials existed, so older runs and their cached
        replies line up); with more, each trial's key ends in ``|t`` and its item holds ``trial``. A test-swap
        run plays the source run's rules, each item holding the tests it is given."""
        if self.protocol == "testswap":
            if self.swap is None:
                raise ValueError("a test-swap run needs its source run's tests: give --tests-from RUN")
            base = [(str(s["key"]), {**s["item"], "swap_tests": s["tests"]}) for s in self.swap]
        else:
            base = [rule_item(r) for r in self.rules()]
        check_episodes(len(base) * self.trials, "trials")
        if self.trials == 1:
            return base
        return [(f"{k}|{t}", {**i, "trial": t}) for k, i in base for t in range(1, self.trials + 1)]

    def rules(self) -> list[WiltRule]:
        """The run's hidden rules, in order: a published split (or some of its ids), a generated split, or a
        user's rules file."""
        if self.split == "generated":
            from wason.tasks.wilt.generate import generate_split

            return generate_split(seed=int(self.seed or 0), n=int(self.n or 0))
        if self.split == "file":
            return load_rules_file(str(self.rules_file))
        if self.split == "single":
            rules = {r.id: WiltRule("single", r.id, r.rule, r.kind) for r in SINGLE_RULES}
            unknown = sorted(set(self.ids or ()) - set(rules))
            if unknown:
                raise ValueError(f"the single split has rules 1 to {len(rules)}; no {unknown[0]}")
            return list(rules.values()) if self.ids is None else [rules[i] for i in self.ids]
        if self.ids is None:
            return load_split(self.split)
        return [get_rule(self.split, i) for i in self.ids]


class WiltFamily(Family[WiltRunConfig]):
    """WILT: three numbers in, True/False out; up to 30 tests, then one final lambda guess."""

    name = "wilt"
    title = "WILT"
    summary = "three numbers in, True/False out; 30 tests, then one lambda guess"
    config_type = WiltRunConfig
    reports = ("wason.tasks.wilt.report", "wason.tasks.wilt.plots", "wason.tasks.wilt.swap")
    playable = True
    commands = "WILT tools"
    own_rules = "a rule in the guess language, e.g. lambda x, y, z: x + y > z"

    action_writer = "wason.tasks.wilt.protocol"
    action_codec = ActionCodec(ProposeTest, FinalGuess)
    _protocols: ClassVar[Mapping[str, WiltProtocol]] = {
        n: WiltProtocol(
            load_instruction(n), whole_1_100=n in ("bayesian", "single"), arity=1 if n == "single" else 3
        )
        for n in INSTRUCTIONS
    }

    def game(self, config: WiltRunConfig, item: Mapping[str, Any], context: EpisodeContext) -> Game[Any, Any]:
        # a test swap's guesser is shown the source's tests: its guess is held to them
        given = _swap_tests(item) if config.protocol == "testswap" else ()
        return WiltGame(rule_from_item(item).program(), config.game_config(), given)

    def protocol(self, config: WiltRunConfig, item: Mapping[str, Any]) -> TextProtocol[Any, Any]:
        if config.protocol == "testswap":
            return WiltProtocol(testswap_prompt(_swap_tests(item)), testing=False)
        return self._protocols[config.protocol]

    def prepare(self, config: WiltRunConfig, reader: RunReader) -> WiltRunConfig:
        """A test-swap run takes its rules and their tests from the finished episodes of ``tests_from``."""
        if config.protocol != "testswap" or config.tests_from is None:
            return config
        source_id = config.tests_from
        source = reader.get_run(source_id)
        if source.task != self.name:
            raise ValueError(f"--tests-from {source_id}: run {source_id} is {source.task}, not {self.name}")
        swap: list[dict[str, Any]] = []
        seen: set[str] = set()
        for e in reader.list_episodes(source_id):
            rule_key = str(e.item_key).split("|")[0]  # a source with trials gives its first finished trial
            if e.status != "completed" or not e.metrics or rule_key in seen:
                continue
            seen.add(rule_key)
            item = {k: v for k, v in e.item.items() if k not in ("trial", "swap_tests")}
            swap.append({"key": rule_key, "item": item, "tests": e.metrics.get("history") or []})
        if not swap:
            raise ValueError(
                f"--tests-from {source_id}: run {source_id} has no finished episode to take tests from"
            )
        return config.model_copy(update={"swap": swap})

    def sample_key(self, config: WiltRunConfig, item: Mapping[str, Any]) -> str:
        # every rule starts with the same prompt: the rule keeps episodes from sharing sampled replies, and the
        # trial keeps a rule's trials apart; trial 1 keeps the key it had before trials, so older runs resume
        # against their cached replies
        key = rule_from_item(item).sample_key
        trial = _trial(item)
        return key if trial == 1 else f"{key}|trial {trial}"

    def generation_params(self, config: WiltRunConfig, item: Mapping[str, Any]) -> Any:
        """The sampling parameters of one episode: the run's, with a given model seed moved on by the trial
        (trial t samples with seed S+t-1, so trial 1 sends what a run without trials sends). Returns the
        run's :class:`~wason.models.base.GenerationParams` type (tasks do not import the models package)."""
        seed = config.params.seed
        trial = _trial(item)
        if seed is None or trial == 1:
            return config.params
        return config.params.model_copy(update={"seed": seed + trial - 1})

    def solver(self, config: WiltRunConfig, item: Mapping[str, Any]) -> Player[Any, Any]:
        from wason.tasks.wilt.solver_player import WiltSolverPlayer

        if config.protocol == "single":
            from wason.tasks.wilt.solver_player import SingleSolverPlayer

            return SingleSolverPlayer(max_tests=config.max_tests)
        if config.protocol == "testswap":
            # the ideal reader of the tests given: it has seen them, and makes no test of its own
            player = WiltSolverPlayer(max_tests=0)
            for point, result in _swap_tests(item):
                player.solver.observe(point, result)
            return player
        return WiltSolverPlayer(max_tests=config.max_tests, falsify=config.solver_stop == "falsify")

    def public(self, item: Mapping[str, Any]) -> list[str]:
        # the id of a published rule (or a generated rule's provenance) would name the rule; the trial does not
        return ["split", *(["trial"] if "trial" in item else [])]

    def describe(self, config: WiltRunConfig, n_episodes: int, n_todo: int, who: str) -> str:
        source = {
            "file": f"rules of {config.rules_file}",
            "generated": f"generated split (seed {config.seed})",
        }.get(config.split, config.split + " split")
        played = (
            f"{n_episodes} rules"
            if config.trials == 1
            else f"{n_episodes // config.trials} rules x {config.trials} trials = {n_episodes} episodes"
        )
        return (
            f"WILT {source} ({played}, {n_todo} to play) with {who}; {config.max_tests} tests then one guess"
        )

    # -- playing in a terminal ---------------------------------------------------------------------------
    def item_id(self, item: Mapping[str, Any]) -> int | None:
        return int(item["id"])

    def intro(self, config: WiltRunConfig, item: Mapping[str, Any], origin: str) -> str:
        where = f"rules file {config.rules_file}" if config.split == "file" else f"{config.split} split"
        return f"WILT, {where}, a hidden rule ({origin})."

    def ending(self, item: Mapping[str, Any], metrics: Mapping[str, Any] | None) -> list[str]:
        rule = rule_from_item(item)
        lines = [f"\nThe rule was: {rule.text}  ({rule.key})"]
        if metrics is None:
            return lines
        m = metrics
        tests = m.get("tests", m["attempts"])
        spent = m["attempts"] - tests  # tests the game refused and unreadable replies used attempts too
        after = f"after {tests} test{'' if tests == 1 else 's'}" + (
            f" (and {spent} attempt{'' if spent == 1 else 's'} that tested nothing)" if spent > 0 else ""
        )
        if m["correct"]:
            lines.append(f"Correct, {after}.")
        elif m["approximately_correct"]:
            lines.append(f"Not quite, {after}: approximately correct (right idea, wrong edge cases).")
        elif m.get("guessed"):
            lines.append(f"Not the rule, {after}.")
        else:
            lines.append(f"No final guess, {after}.")
        verdict = m.get("verdict") or {}
        for point, truth, said in verdict.get("counterexamples", [])[:3]:
            lines.append(f"  e.g. {tuple(point)}: the rule says {truth}, your guess says {said}")
        if m.get("reduction"):
            curve = m["reduction"]
            lines.append(
                f"Your {len(curve)} test{'' if len(curve) == 1 else 's'} ruled out {curve[-1]:.1%} of "
                f"{m['hypothesis_space']}'s candidate rules; {m['uninformative_tests']} of them ruled out nothing "
                "new."
            )
        return lines

    # -- playing in a browser ----------------------------------------------------------------------------
    def web_form(
        self, config: WiltRunConfig, item: Mapping[str, Any], observation: Any, turn: int
    ) -> WebForm:
        from wason.tasks.wilt.protocol import render_feedback

        single = config.protocol == "single"
        moves = form_moves(self.moves(config, item, observation))
        if turn:
            prompt = render_feedback(
                observation,
                arity=1 if single else 3,
                whole_1_100=config.protocol in ("bayesian", "single"),
            )
            return WebForm(prompt=prompt, moves=moves)
        example = "x > 50 or x % 3 == 0" if single else "x < y < z or x + y == z"
        takes = (
            "one whole number x from 1 to 100"
            if single
            else "three numbers x, y, z (each typed with at most three digits, not counting sign and decimal "
            "point: -11.3, .005, 250)"
        )
        prompt = (
            f"Find the hidden rule: it takes {takes} and answers True or False.\n"
            f"You have {config.max_tests} tests, then one final guess in the guess language (Python-like: "
            "+ - * / // % **, comparisons, and/or/not, abs min max round int, math.floor/ceil/sqrt/gcd), "
            f"e.g. {example}."
        )
        return WebForm(prompt=prompt, moves=moves)

    def moves(self, config: WiltRunConfig, item: Mapping[str, Any], observation: Any) -> Sequence[Command]:
        single = config.protocol == "single"
        names = ("x",) if single else ("x", "y", "z")
        whole = config.protocol in ("bayesian", "single")
        head = f"lambda {', '.join(names)}: "
        example = "x > 50" if single else "x < y < z"

        def final_guess(values: Mapping[str, str]) -> FinalGuess:
            text = form_value(values, "expression")
            # a person may leave out the lambda (the model protocol may not)
            return FinalGuess(text if is_lambda(text) else head + text)

        guess = Command(
            name="guess",
            label="Final guess",
            make=final_guess,
            fields=(FormField("expression", "Rule", placeholder=example),),
            words=("guess", "g", "final"),
            syntax="guess EXPR",
            # an action's guess is held to the published form (a lambda); a person typing may leave it out
            hint=f"your one final guess, {head}{example} (typed, the lambda may be left out: guess {example}); "
            "ends the game",
            web_hint=f"your one final guess, e.g. {example} (the lambda may be left out); ends the game",
            action="FinalGuess",
        )
        if getattr(observation, "must_guess", False):
            return (guess,)
        test = Command(
            name="test",
            label="Test",
            make=lambda values: ProposeTest(tuple(_test_value(values, n, whole) for n in names)),
            fields=tuple(
                FormField(n, n, kind="number" if single else "text", placeholder=p)
                for n, p in zip(names, ("42",) if single else ("1", "2", "3"), strict=True)
            ),
            words=("", "test"),
            syntax="42" if single else "1 2 3",
            hint=(
                "test the number 42: a whole number from 1 to 100"
                if single
                else "test the triple (1, 2, 3): numbers of at most three digits, e.g. -11.3, .005, 250"
            ),
            action="ProposeTest",
        )
        return (test, guess)

    def own_rule(self, config: WiltRunConfig, text: str) -> Item:
        rule = " ".join(text.split())
        if not rule or len(rule) > 1000:
            raise ValueError("own_rule: a rule of 1 to 1000 characters in the guess language")
        try:
            compile_rule(rule)
        except ValueError as exc:
            raise ValueError(f"own_rule: {' '.join(str(exc).split())[:300]}") from None
        return rule_item(WiltRule(split="file", id=1, text=rule, meta={"file": "written on the play page"}))

    # -- wason wilt judge ----------------------------------------------------------------------------------
    def add_commands(self, parser: Any) -> None:
        sub = parser.add_subparsers(dest="family_command", required=True, parser_class=type(parser))
        jd = sub.add_parser(
            "judge",
            help="decide whether a guess is a rule (lambda or expression in x, y, z) on every triple one can test",
        )
        jd.add_argument("rule")
        jd.add_argument("guess")
        jd.add_argument("--seed", type=int, default=0, help="probe set seed (default 0)")
        jd.add_argument(
            "--tests",
            metavar="FILE",
            help="the episode's tests and the results it showed, one a line: (1, 2, 3): True",
        )
        jd.add_argument(
            "--whole",
            action="store_true",
            help="judge over the whole numbers from 1 to 100 (the Bayesian prompt's tests), not every typeable triple",
        )
        jd.add_argument("--json", action="store_true")

    def run_command(self, args: argparse.Namespace, write: Callable[[str], None]) -> int:
        from wason.tasks.wilt.decide import Domain
        from wason.tasks.wilt.judge import format_verdict, judge
        from wason.tasks.wilt.rules import load_tests_file

        if not 0 <= args.seed <= MAX_SEED:
            raise ValueError(f"--seed must be from 0 to {MAX_SEED}")
        tests = load_tests_file(args.tests) if args.tests else []
        domain = Domain(integer_range=(1, 100) if args.whole else None)
        if args.whole:
            for point, _ in tests:
                if not domain.contains(point):
                    raise ValueError(
                        f"{args.tests}: the test {point} is not three whole numbers from 1 to 100"
                    )
        verdict = judge(args.rule, args.guess, seed=args.seed, tests=tests, domain=domain)
        write(verdict.model_dump_json(indent=2) if args.json else format_verdict(verdict))
        return 0


def _test_value(values: Mapping[str, str], name: str, whole: bool) -> str:
    """A person's test value, checked before it is played: a value the game would count as an invalid test is
    refused naming its field, and costs nothing."""
    from wason.tasks.wilt.values import InvalidValue, parse_value

    text = form_value(values, name)
    try:
        value = parse_value(text)
    except InvalidValue as exc:
        raise ValueError(f"{name}: {exc}") from None
    if whole and not (value.is_integer() and 1 <= value <= 100):
        raise ValueError(f"{name}: {text[:20]} is not a whole number from 1 to 100")
    return text


def _swap_tests(item: Mapping[str, Any]) -> list[tuple[tuple[float, float, float], bool]]:
    """A test-swap item's tests, as its prompt shows them."""
    return [((float(a), float(b), float(c)), bool(r)) for (a, b, c), r in item.get("swap_tests") or []]


def _trial(item: Mapping[str, Any]) -> int:
    # items of runs with one trial (and of runs made before trials) hold no trial
    return int(item.get("trial") or 1)


FAMILY = WiltFamily()
