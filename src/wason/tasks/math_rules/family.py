"""Math sequences (the guess-the-rule benchmark's math game) as a task family: run configuration, items, game,
protocol, the published LLM judge, solver, human player, reports and the game API."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from wason.core.family import (
    ActionCodec,
    EpisodeContext,
    Family,
    FormField,
    GameApi,
    Item,
    command_text,
    form_number,
    form_value,
)
from wason.core.game import Game, Player, TextProtocol
from wason.core.moves import Command, give_up
from wason.failures import unavailable
from wason.tasks.math_rules.config import MAX_N as MAX_N
from wason.tasks.math_rules.config import MAX_RULE_FILE as MAX_RULE_FILE
from wason.tasks.math_rules.config import PUBLISHED_MAX_TURNS as PUBLISHED_MAX_TURNS
from wason.tasks.math_rules.config import MathRunConfig as MathRunConfig
from wason.tasks.math_rules.config import make_item as make_item
from wason.tasks.math_rules.config import rule_from_item as rule_from_item
from wason.tasks.math_rules.game import (
    ExpressionAnswer,
    GiveUp,
    Guess,
    MathGame,
    More,
    QuizAnswer,
)
from wason.tasks.math_rules.rules import (
    MathRule,
)


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
            expression = read_rule(command_text(args.file, MAX_RULE_FILE))
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
