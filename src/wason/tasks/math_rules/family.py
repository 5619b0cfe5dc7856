"""Math sequences (the guess-the-rule benchmark's math game) as a task family: run configuration, items, game,
protocol, the published LLM judge, solver, human player, reports and the game API."""

from __future__ import annotations

import random
import sys
from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar, Literal

from pydantic import ConfigDict, Field, model_validator

from wason.core.family import (
    MAX_SEED,
    ActionCodec,
    EpisodeContext,
    Family,
    FormField,
    GameApi,
    Item,
    JudgedSettings,
    Name,
    form_number,
    form_value,
)
from wason.core.game import Game, Player, TextProtocol
from wason.core.moves import Command, give_up
from wason.failures import unavailable
from wason.tasks.math_rules.game import (
    JUDGES,
    MAX_MORE,
    MAX_QUIZ,
    MAX_TURNS,
    ExpressionAnswer,
    GiveUp,
    Guess,
    MathConfig,
    MathGame,
    More,
    QuizAnswer,
)
from wason.tasks.math_rules.rules import (
    GENERATOR,
    GENERATOR_VERSION,
    MathRule,
    draw_rule,
    draw_sequences,
)

MAX_RULE_FILE = 100_000
"""Characters read from a rule file."""

PUBLISHED_MAX_TURNS = {"L1": 10, "L2": 15, "L3": 20}
"""The published harness's turn limits (exp.py ``max_turn_dict``)."""


MAX_N = 10_000
"""The most games of a run: drawing an item (a rule and its first sequences) takes about 0.4 ms."""


class MathRunConfig(JudgedSettings):
    """Everything that defines a math-sequence run: the level, the rules, the protocol and the judges.

    Game ``k`` (1..n) of a run plays the rule drawn with seed ``"{seed}|{k}"`` at the run's level.
    """

    model_config = ConfigDict(frozen=True)

    model_judges: ClassVar[frozenset[str]] = frozenset({"llm"})
    # the fields that choose which items a run plays (hidden while a game of the run is on)
    # (the level is public: it holds many rules, and is the run's label)
    item_fields: ClassVar[frozenset[str] | None] = frozenset({"n", "seed"})
    # shown while a game of the run is not over; the rest (what draws the rules) only once all are over
    public_fields: ClassVar[frozenset[str]] = frozenset(
        {
            "level",
            "init_examples",
            "per_turn",
            "max_turns",
            "refill",
            "judges",
            "ask_expression",
            "ask_lambda",
            "quiz_size",
            "judge_model",
            "judge_base_url",
        }
    )

    not_in_play: ClassVar[frozenset[str]] = frozenset({"n", "judges", "judge_model", "judge_base_url"})
    model_only: ClassVar[frozenset[str]] = frozenset({"ask_lambda"})
    play_defaults: ClassVar[Mapping[str, Any]] = {"judges": ["expression", "quiz"]}
    # the reward audit's degenerate players and hacks
    audit_module: ClassVar[str | None] = "wason.tasks.math_rules.audit"
    # the curricula's difficulty axis (wason.env.curriculum): the published levels, easiest first
    difficulty_axes: ClassVar[Mapping[str, tuple[Any, ...]]] = {"level": ("L1", "L2", "L3")}

    label_fields: ClassVar[tuple[str, ...]] = ("level",)
    task: Literal["math"] = "math"
    level: Literal["L1", "L2", "L3"] = Field(
        default="L1",
        description="L1 one operation with a constant, L2 the same with negative values, L3 one operation "
        "for even indices and another for odd ones",
    )
    n: int = Field(default=10, ge=1, le=MAX_N, description="games, each with its own rule")
    seed: int = Field(default=0, ge=0, le=MAX_SEED, description="seed of the rules and the sequences")
    init_examples: int = Field(
        default=5, ge=1, le=MAX_MORE, description="sequences shown at the start (published: 5)"
    )
    per_turn: int = Field(
        default=5, ge=1, le=MAX_MORE, description="sequences each further turn brings (published: 5)"
    )
    max_turns: int | None = Field(
        default=None,
        ge=1,
        le=MAX_TURNS,
        description="turns per game (default: the published L1 10, L2 15, L3 20)",
    )
    refill: bool = Field(
        default=True,
        description="every turn brings new sequences, a guess's too, as the published harness did "
        "(--no-refill: only More brings them)",
    )
    judges: list[Name] = Field(
        default_factory=lambda: ["expression", "quiz", "llm"],
        max_length=len(JUDGES),
        description="comma-separated: expression (the guess as lambda v, i: ..., judged by code; decides), "
        "quiz (the player continues fresh sequences), llm (the published judge, 3 votes)",
    )
    ask_expression: bool = Field(
        default=True,
        description="after a guess in words, ask once for its expression (--no-ask-expression: the LLM judge "
        "alone reads words, flagged)",
    )
    ask_lambda: bool = Field(
        default=False,
        description="the system prompt also asks for the guess as lambda v, i: ... (not published)",
    )
    quiz_size: int = Field(
        default=3, ge=0, le=MAX_QUIZ, description="sequences from fresh starts the player continues"
    )

    @model_validator(mode="after")
    def _check(self) -> MathRunConfig:
        unknown = [j for j in self.judges if j not in JUDGES]
        if unknown:
            raise ValueError(f"judges: unknown judge(s) {unknown}; choose from {', '.join(JUDGES)}")
        self.game_config("0")  # validates the rest
        return self

    @property
    def turns(self) -> int:
        return self.max_turns if self.max_turns is not None else PUBLISHED_MAX_TURNS[self.level]

    def game_config(self, seed: str) -> MathConfig:
        try:
            return MathConfig(
                max_turns=self.turns,
                per_turn=self.per_turn,
                refill=self.refill,
                judges=tuple(self.judges),
                ask_expression=self.ask_expression,
                quiz_size=self.quiz_size,
                seed=seed,
            )
        except ValueError as exc:
            raise ValueError(str(exc)) from None

    def items(self) -> list[Item]:
        return [make_item(self.level, self.seed, k, self.init_examples) for k in range(1, self.n + 1)]


def make_item(level: str, seed: int, index: int, init_examples: int) -> Item:
    """Game ``index`` of a run: its rule (with provenance) and its first sequences, all from ``seed``."""
    drawn = draw_rule(level, f"{seed}|{index}")
    rule = drawn.rule
    examples = draw_sequences(
        rule, level, random.Random(f"math_rules.examples|{seed}|{index}"), init_examples
    )
    item = {
        "level": level,
        "index": index,
        "seed": seed,
        "n_init": init_examples,
        "examples": examples,
        "rule": {
            "text": rule.text(),
            "expression": rule.expression(),
            "code": rule.code(),
            "ops": rule.as_json(),
            "generator": GENERATOR,
            "version": GENERATOR_VERSION,
            "rejected": [[text, reason] for text, reason in drawn.rejected],
        },
    }
    return f"{level}|{seed}|{index}", item


def rule_from_item(item: Mapping[str, Any]) -> MathRule:
    """The hidden rule of an item (checked against its text, so a changed grammar never scores another rule)."""
    rule = MathRule.from_json(item["rule"]["ops"])
    if rule.text() != item["rule"]["text"]:
        raise ValueError(f"rule: {item['rule']['text']!r} is no longer the rule {rule.text()!r}")
    return rule


def _sample(item: Mapping[str, Any]) -> str:
    return f"math|{item['level']}|{item['seed']}|{item['index']}|{item['rule']['expression']}"


def _examples(item: Mapping[str, Any]) -> tuple[tuple[int, ...], ...]:
    return tuple(tuple(int(t) for t in s) for s in item["examples"])


def _decode_quiz(data: dict[str, Any]) -> QuizAnswer:
    values = data.get("values") or ()
    try:
        if not isinstance(values, list | tuple) or len(values) > 100:
            raise TypeError
        out = []
        for v in values:
            if v is not None and (not isinstance(v, list | tuple) or len(v) > 100):
                raise TypeError
            if v is not None and any(isinstance(t, bool) or not isinstance(t, int) for t in v):
                raise TypeError
            out.append(tuple(int(t) for t in v) if v is not None else None)
    except TypeError:
        raise ValueError("values: a list of lists of integers (or null), at most 100 of each") from None
    return QuizAnswer(tuple(out))


class MathFamily(Family[MathRunConfig]):
    """Hidden rules ``next = f(current, index)`` over integer sequences: More, or a guess judged by code."""

    name = "math"
    title = "Math sequences"
    summary = "hidden rules next = f(current, index) over integer sequences (the guess-the-rule math game)"
    config_type = MathRunConfig
    wording = "wason.tasks.math_rules.web"
    reports = ("wason.tasks.math_rules.report",)
    playable = True
    commands = "math sequence tools"

    action_writer = "wason.tasks.math_rules.protocol"
    action_codec = ActionCodec(
        More, Guess, ExpressionAnswer, QuizAnswer, GiveUp, hooks={"QuizAnswer": _decode_quiz}
    )

    def items(self, config: MathRunConfig) -> list[Item]:
        return config.items()

    def item_count(self, config: MathRunConfig) -> int:
        return config.n

    def item_at(self, config: MathRunConfig, index: int) -> Item:
        return make_item(config.level, config.seed, index + 1, config.init_examples)

    def game(self, config: MathRunConfig, item: Mapping[str, Any], context: EpisodeContext) -> Game[Any, Any]:
        rule = rule_from_item(item)
        judge: Any = None
        if "llm" in config.judges:
            judge = _judge(config, context, item, rule)
        return MathGame(
            rule,
            str(item["level"]),
            _examples(item),
            config.game_config(f"{item['seed']}|{item['index']}"),
            judge=judge,
        )

    def protocol(self, config: MathRunConfig, item: Mapping[str, Any]) -> TextProtocol[Any, Any]:
        from wason.tasks.math_rules.protocol import MathProtocol

        return MathProtocol(ask_lambda=config.ask_lambda)

    def sample_key(self, config: MathRunConfig, item: Mapping[str, Any]) -> str:
        return _sample(item)

    def solver(self, config: MathRunConfig, item: Mapping[str, Any]) -> Player[Any, Any]:
        from wason.tasks.math_rules.solver import MathSolverPlayer

        return MathSolverPlayer(str(item["level"]), config.turns)

    def public(self, item: Mapping[str, Any]) -> list[str]:
        # the seed draws the rule, so it stays hidden with it; so does the game's index, which with the run's
        # configuration names the rule (items are a public function of it)
        return ["level", "n_init", "examples"]

    def describe(self, config: MathRunConfig, n_episodes: int, n_todo: int, who: str) -> str:
        judges = ", ".join(
            f"{j} (decides)" if j == config.game_config("0").decider else j for j in config.judges
        )
        if "llm" in config.judges:
            judges += f"; LLM judge {config.oracle_model}"
        return (
            f"math {config.level}, {n_episodes} games ({n_todo} to play) with {who}; seed {config.seed}; "
            f"up to {config.turns} turns, {config.init_examples} sequences then {config.per_turn} a turn; "
            f"judges: {judges}"
        )

    def column(self, config: MathRunConfig, item: Mapping[str, Any]) -> str:
        # the paper's Table 2 columns: "Math L1", "Math L2", "Math L3"
        return f"Math {config.level}"

    # -- playing in a terminal ---------------------------------------------------------------------------
    def item_id(self, item: Mapping[str, Any]) -> int | None:
        return int(item["index"])

    def intro(self, config: MathRunConfig, item: Mapping[str, Any], origin: str) -> str:
        return f"Math sequences, level {item['level']}, a hidden rule ({origin})."

    def ending(self, item: Mapping[str, Any], metrics: Mapping[str, Any] | None) -> list[str]:
        rule = item["rule"]
        lines = [f"\nThe rule was: {rule['text']}  ({rule['expression']})"]
        if metrics is None:
            return lines
        guesses = metrics.get("guesses") or []
        verdict = (guesses[-1].get("verdict") or {}) if guesses else {}
        if metrics.get("judges", {}).get("expression"):
            lines.append(
                f"Your expression is the rule (it agrees on all {verdict.get('points')} transitions)."
            )
        elif verdict.get("rejection"):
            lines.append(f"Your last guess could not be judged by code: {verdict['rejection']}")
        elif verdict:
            lines.append(f"Your expression is not the rule (agreement {verdict.get('agreement', 0):.1%}).")
            for ce in (verdict.get("counterexamples") or [])[:3]:
                lines.append(f"  e.g. after {ce['value']} at index {ce['index']} the rule gives {ce['next']}")
        if metrics.get("quiz_accuracy") is not None:
            n = len(metrics.get("quiz") or [])
            lines.append(f"Quiz: {round(metrics['quiz_accuracy'] * n)} of {n} continuations right.")
        turns = metrics["turns"]
        lines.append(f"{turns} turn{'' if turns == 1 else 's'}, {metrics['sequences_seen']} sequences seen.")
        return lines

    # -- the family's own commands -----------------------------------------------------------------------
    def add_commands(self, parser: Any) -> None:
        sub = parser.add_subparsers(dest="family_command", required=True, parser_class=type(parser))
        rd = sub.add_parser(
            "rule",
            help="read a game master's rule (a rule writer's reply or a generate_next function) without running "
            "it, and say which rule of the grammar it is",
        )
        rd.add_argument("file", help="the reply or the function, '-' for standard input")
        rd.add_argument("--level", choices=["L1", "L2", "L3"], default="L1")
        jd = sub.add_parser(
            "judge", help="judge an expression lambda v, i: ... against a rule of the grammar"
        )
        jd.add_argument("rule", help="the rule as an expression or a generate_next function")
        jd.add_argument("guess", help="the guess, lambda v, i: ...")
        jd.add_argument("--level", choices=["L1", "L2", "L3"], default="L1")

    def run_command(self, args: Any, write: Callable[[str], None]) -> int:
        from wason.tasks.math_rules.expression import judge_expression
        from wason.tasks.math_rules.gm_code import identify_rule, read_rule

        if args.family_command == "rule":
            if args.file == "-":
                text = sys.stdin.read(MAX_RULE_FILE)
            else:
                try:
                    with open(args.file, encoding="utf-8") as f:
                        text = f.read(MAX_RULE_FILE)
                except (OSError, UnicodeDecodeError) as exc:
                    raise ValueError(f"cannot read {args.file}: {exc.__class__.__name__}") from None
            expression = read_rule(text)
            rule = identify_rule(expression, args.level)
            write(f"{rule.text()}\n{rule.expression()}\n(read as {expression})")
            return 0
        rule = identify_rule(read_rule(args.rule), args.level)
        verdict = judge_expression(rule, args.level, args.guess)
        write(f"rule: {rule.text()}")
        if verdict.rejection:
            write(f"the guess is refused: {verdict.rejection}")
        else:
            write(
                f"{'equivalent' if verdict.equivalent else 'not equivalent'}: agreement "
                f"{verdict.agreement:.3f} on {verdict.points} transitions"
            )
            for ce in verdict.counterexamples:
                write(f"  after {ce['value']} at index {ce['index']} the rule gives {ce['next']}")
        return 0 if verdict.equivalent else 1

    # -- the guess-the-rule game API ---------------------------------------------------------------------
    # -- playing in a browser ----------------------------------------------------------------------------
    def moves(self, config: MathRunConfig, item: Mapping[str, Any], observation: Any) -> Sequence[Command]:
        kind = getattr(observation, "kind", "")
        if kind == "ask_expression":
            field = FormField("source", "Expression", placeholder="lambda v, i: v + 3")
            make = lambda values: ExpressionAnswer(form_value(values, "source"))  # noqa: E731
            hint = "write your rule as a Python expression of the value v and the index i"
            return (
                Command(name="expression", label="Send", make=make, fields=(field,), hint=hint, ask=True),
            )
        if kind == "ask_quiz":
            from wason.tasks.math_rules.game import QUIZ_ASKED

            quiz = getattr(observation, "quiz", ())
            terms = tuple(
                FormField(f"seq{k}", f"{k}. {', '.join(map(str, shown))}, ...", placeholder="1, 2, 3, 4, 5")
                for k, shown in enumerate(quiz, start=1)
            )
            hint = f"continue each sequence: its next {QUIZ_ASKED} terms"
            make_quiz = lambda values: _quiz_answer(values, len(quiz))  # noqa: E731
            return (Command(name="quiz", label="Send", make=make_quiz, fields=terms, hint=hint, ask=True),)
        more = Command(
            name="more",
            label="More sequences",
            make=lambda values: More(form_number(values, "n") if values.get("n", "").strip() else None),
            fields=(FormField("n", "How many (empty: the game's number)", kind="number", placeholder="3"),),
            syntax="more [N]",
            hint="N more sequences (by default the game's number per turn)",
            action="More",
        )
        return (more, *super().moves(config, item, observation)[1:], give_up(GiveUp))

    def game_api(self) -> GameApi:
        from wason.tasks.math_rules.game_api import MathGameApi

        return MathGameApi()


def _judge(config: MathRunConfig, context: EpisodeContext, item: Mapping[str, Any], rule: MathRule) -> Any:
    oracle = context.oracle
    if oracle is None:
        return unavailable("an LLM judge")
    from wason.tasks.math_rules.judge import MathJudge

    call = context.calls(_sample(item))
    return MathJudge(oracle, rule, config.params, call)


FAMILY = MathFamily()


def _quiz_answer(values: Mapping[str, str], count: int) -> QuizAnswer:
    """The quiz's answers: the next terms of each sequence (an empty field: no answer)."""
    from wason.tasks.math_rules.game import QUIZ_ASKED

    answers: list[tuple[int, ...] | None] = []
    for k in range(1, count + 1):
        text = values.get(f"seq{k}", "")
        try:
            numbers = tuple(int(t) for t in text.replace(",", " ").split())[:QUIZ_ASKED]
        except ValueError:
            raise ValueError(f"sequence {k}: whole numbers separated by commas") from None
        answers.append(numbers or None)
    return QuizAnswer(tuple(answers))
