"""Code Functions Picnic as a task family: configuration, items, game, protocol, judges, solver, human player,
reports, the guess-the-rule game API and the family's own commands."""

from __future__ import annotations

import argparse
import hashlib
import json
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, ClassVar, Literal

from pydantic import Field, model_validator

from wason.core.family import (
    JUDGE_FIELDS,
    MAX_EPISODES,
    MAX_IDS,
    MAX_PATH_CHARS,
    MAX_SEED,
    ActionCodec,
    EpisodeContext,
    Family,
    FormField,
    GameApi,
    Item,
    LlmJudgedSettings,
    Name,
    OracleSpec,
    PlayIO,
    RuleId,
    RunReader,
    RunSettings,
    check_episodes,
    form_value,
)
from wason.core.game import Game, Player, TextProtocol
from wason.core.guess_rule import api_view
from wason.core.moves import Command, give_up, yes_no_quiz
from wason.core.records import RunReport
from wason.failures import unavailable
from wason.judges import VotingJudge
from wason.sandbox import GuessRejected, compile_word_rule
from wason.tasks.code_functions.game import (
    MAX_MORE,
    MAX_QUIZ,
    MAX_TURNS,
    CodeFunctionsGame,
    GameSettings,
    GiveUp,
    Guess,
    More,
    Observation,
    PredicateAnswer,
    QuizAnswer,
)
from wason.tasks.code_functions.grammar import LEVELS, Rule, generate_rules, grammar_rule
from wason.tasks.code_functions.vocabulary import vocabulary_provenance
from wason.tasks.code_functions.writer import WrittenRule

SPLITS = ("generated", "published", "file", "write-rules")
RULES_FILE_LIMIT = 1 << 20


MAX_GENERATED = 1_000
"""The most generated rules (a level has 61 to about 4,000 balanced ones; 1,000 take about 0.3 s to draw)."""

MAX_PUBLISHED = 167
"""The translated published functions (the most rules the published split plays)."""


class CodeFunctionsConfig(LlmJudgedSettings):
    """Everything that defines a Code Functions Picnic run: which rules, how examples are shown, the protocol,
    the turn limit and the judges.

    Each rule is played ``trials`` times; trial ``t`` has the episode seed ``seed + t - 1``, which draws the
    examples and the quiz.
    """

    # the level is public (not in item_fields): it holds many rules, and is the run's label
    item_fields: ClassVar[frozenset[str] | None] = frozenset(
        {"split", "n", "seed", "ids", "balanced_only", "rules_file"}
    )
    public_fields: ClassVar[frozenset[str]] = JUDGE_FIELDS | {
        "level",
        "trials",
        "protocol",
        "examples",
        "init_examples",
        "after_wrong",
        "max_turns",
        "quiz_size",
    }

    not_in_play: ClassVar[frozenset[str]] = JUDGE_FIELDS | {"n", "trials"}
    model_only: ClassVar[frozenset[str]] = frozenset({"protocol"})
    play_defaults: ClassVar[Mapping[str, Any]] = {"judges": ["predicate", "quiz"], "max_turns": 0}
    flag_names: ClassVar[Mapping[str, str]] = {"rules_file": "rules"}
    audit_module: ClassVar[str | None] = "wason.tasks.code_functions.audit"
    difficulty_axes: ClassVar[Mapping[str, tuple[Any, ...]]] = {"level": ("L1", "L2", "L3")}

    label_fields: ClassVar[tuple[str, ...]] = ("split", "level")
    task: Literal["code-functions"] = "code-functions"
    split: Literal["generated", "published", "file", "write-rules"] = Field(
        default="generated",
        description="generated (rules from the word grammar), published (the 167 translated history_L1 "
        "functions), file (--rules FILE), write-rules (the player is a game master writing rules with the "
        "published prompt)",
    )
    level: Literal["L1", "L2", "L3"] = Field(
        default="L1", description="L1 one property, L2 two, L3 three or xor"
    )
    n: int = Field(
        default=20,
        ge=1,
        le=MAX_GENERATED,
        description="rules in the generated split (or written in write-rules)",
    )
    seed: int = Field(
        default=0, ge=0, le=MAX_SEED, description="seed of the generated rules and of the episodes' draws"
    )
    ids: list[RuleId] | None = Field(
        default=None, max_length=MAX_IDS, description="only these published function indices"
    )
    balanced_only: bool = Field(
        default=True, description="published split: only functions balanced on this word list"
    )
    rules_file: str | None = Field(
        default=None, max_length=MAX_PATH_CHARS, description="a JSONL file of rules (split file)"
    )
    trials: int = Field(
        default=1, ge=1, le=MAX_EPISODES, description="episodes per rule, with seeds S, S+1, ..."
    )
    protocol: Literal["as-run", "head", "head-fixed", "game-api"] = Field(
        default="as-run",
        description="as-run (the prompt behind the paper's results), head, head-fixed, game-api (more N / guess)",
    )
    examples: Literal["balanced", "random"] = Field(
        default="balanced",
        description="balanced (N accepted and N rejected words) or random (as the library)",
    )
    init_examples: int = Field(
        default=2, ge=1, le=MAX_MORE, description="initial examples (pairs when balanced)"
    )
    after_wrong: int = Field(
        default=1,
        ge=0,
        le=MAX_MORE,
        description="examples added after a wrong guess (published: 1 pair)",
    )
    max_turns: int = Field(
        default=7, ge=0, le=MAX_TURNS, description="turns allowed (published: 1, 3, 5, 7; 0: no limit)"
    )
    judges: list[Name] = Field(
        default_factory=lambda: ["predicate", "quiz", "llm"],
        max_length=3,
        description="predicate (code, decides), quiz (held-out words), llm (the published judge, 2 of 3)",
    )
    quiz_size: int = Field(default=10, ge=2, le=MAX_QUIZ, description="held-out words in the quiz")

    @model_validator(mode="before")
    @classmethod
    def _stored_protocol(cls, data: Any) -> Any:
        # runs stored before the protocol was named game-api hold "api": they still load (the flag offers only
        # the new name)
        if isinstance(data, dict) and data.get("protocol") == "api":
            data = {**data, "protocol": "game-api"}
        return data

    @model_validator(mode="after")
    def _check(self) -> CodeFunctionsConfig:
        if self.split == "file" and not self.rules_file:
            raise ValueError("rules_file: the file split needs --rules FILE")
        if self.ids is not None and self.split != "published":
            raise ValueError("ids select published functions (--split published)")
        self.settings(0)  # validates the game's settings
        # the rules a file holds are counted once read (items); a game master writing rules plays no trials
        rules = {"generated": self.n, "published": MAX_PUBLISHED}.get(self.split)
        if self.ids is not None:
            rules = len(self.ids)
        if rules is not None:
            check_episodes(rules * self.trials, "trials")
        return self

    def settings(self, seed: int) -> GameSettings:
        try:
            return GameSettings(
                examples=self.examples,
                initial=self.init_examples,
                after_wrong=self.after_wrong,
                max_turns=self.max_turns or None,
                judges=tuple(self.judges),
                quiz_size=self.quiz_size,
                seed=seed,
            )
        except ValueError as exc:
            raise ValueError(str(exc)) from None

    def rules(self) -> list[Rule]:
        if self.split == "generated":
            return generate_rules(self.level, self.seed, self.n)
        if self.split == "published":
            from wason.tasks.code_functions.published import published_rules

            rules = published_rules(balanced_only=self.balanced_only)
            if self.ids is not None:
                by_index = {int(r.provenance["index"]): r for r in published_rules()}
                missing = [i for i in self.ids if i not in by_index]
                if missing:
                    raise ValueError(f"ids: no translated published function {missing[0]}")
                rules = [by_index[i] for i in self.ids]
            return rules
        if self.split == "file":
            return load_rules_file(str(self.rules_file))
        return []

    def items(self) -> list[Item]:
        if self.split == "write-rules":
            from wason.tasks.code_functions.writer import writer_items

            return writer_items(self.level, self.n, self.seed)
        out: list[Item] = []
        rules = self.rules()
        check_episodes(len(rules) * self.trials, "trials")
        vocabulary = vocabulary_provenance()  # read once: it asks the package metadata for wordfreq's version
        for rule in rules:
            for trial in range(1, self.trials + 1):
                episode_seed = self.seed + trial - 1
                game_seed = int(hashlib.sha256(f"{rule.key}|{episode_seed}".encode()).hexdigest()[:12], 16)
                item = {
                    "rule": rule.to_json(),
                    "level": rule.level,
                    "trial": trial,
                    "seed": episode_seed,
                    "game_seed": game_seed,
                    "vocabulary": vocabulary,
                }
                out.append((f"{rule.key}|{trial}", item))
        return out


def load_rules_file(path: str) -> list[Rule]:
    """Rules from a JSONL file (one rule a line: ``source``, optional ``text``, ``level``, ``key``); each is
    compiled in the word language first. Errors name the file and line."""
    p = Path(path)
    try:
        with p.open("rb") as handle:
            raw = handle.read(RULES_FILE_LIMIT + 1)
    except OSError as exc:
        raise ValueError(f"rules_file: cannot read {path}: {exc.strerror}") from None
    if len(raw) > RULES_FILE_LIMIT:
        raise ValueError(f"rules_file: {path} is larger than 1 MiB")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ValueError(f"rules_file: {path} is not UTF-8 text (byte {exc.start})") from None
    rules = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ValueError(f"rules_file: {path}:{number}: not JSON ({exc.msg})") from None
        if not isinstance(data, dict) or not isinstance(data.get("source"), str):
            raise ValueError(f"rules_file: {path}:{number}: expected an object with a 'source' string")
        try:
            compile_word_rule(data["source"])
        except GuessRejected as exc:
            raise ValueError(f"rules_file: {path}:{number}: {exc.reason}") from None
        level = str(data.get("level", "L1"))
        if level not in LEVELS:
            raise ValueError(f"rules_file: {path}:{number}: level must be one of {', '.join(LEVELS)}")
        rules.append(
            Rule(
                key=str(data.get("key") or f"file:{number}"),
                level=level,
                text=str(data.get("text") or data["source"]),
                source=data["source"],
                provenance={
                    "split": "file",
                    "file": p.name,
                    "line": number,
                    **(data.get("provenance") or {}),
                },
            )
        )
    if not rules:
        raise ValueError(f"rules_file: {path} has no rules")
    return rules


def rule_from_item(item: Mapping[str, Any]) -> Rule:
    """The hidden rule of an item; a grammar rule is rebuilt from its atoms and must still read the same."""
    rule = Rule.from_json(dict(item["rule"]))
    if rule.shape is not None:
        again = grammar_rule(rule.shape, list(rule.atoms), rule.level)
        if again.source != rule.source:
            raise ValueError(f"rule {rule.key} is no longer {rule.source!r} (now {again.source!r})")
    return rule


def _sample(item: Mapping[str, Any]) -> str:
    rule = item.get("rule") or {}
    return f"{rule.get('key')}|{rule.get('source')}|{item.get('seed')}|{item.get('trial')}"


def _llm_judge(config: CodeFunctionsConfig, context: EpisodeContext, item: Mapping[str, Any]) -> Any:
    """The published judge (``validate_sysprompt.txt`` + ``judge_user.txt``), three votes, two decide; each
    reply is read by its last word (see :func:`~wason.tasks.code_functions.judge.read_judge_reply`)."""
    oracle = context.oracle
    if oracle is None:
        return unavailable("the LLM judge")
    from wason.tasks.code_functions.judge import read_judge_reply
    from wason.tasks.code_functions.protocol import judge_messages

    call = context.calls(_sample(item))
    return VotingJudge(oracle, judge_messages, config.params, call, read=read_judge_reply, sample="guess{n}")


def _decode_quiz(data: dict[str, Any]) -> QuizAnswer:
    labels = data.get("labels") or ()
    return QuizAnswer(tuple(None if v is None else bool(v) for v in labels))


class CodeFunctionsFamily(Family[CodeFunctionsConfig]):
    """Hidden word predicates: labelled words, more on request, a guess judged by code on held-out words."""

    name = "code-functions"
    title = "Code Functions Picnic"
    summary = "hidden rules over words (the guess-the-rule functions game): a predicate judged by code"
    config_type = CodeFunctionsConfig
    wording = "wason.tasks.code_functions.web"
    reports = ("wason.tasks.code_functions.report",)
    playable = True
    commands = "tools: the published functions' translation, checking rule files, listing generated rules"

    action_codec = ActionCodec(
        More, Guess, PredicateAnswer, QuizAnswer, GiveUp, WrittenRule, hooks={"QuizAnswer": _decode_quiz}
    )

    def action_message(self, action: Mapping[str, Any]) -> str | None:
        from wason.tasks.code_functions.protocol import write_action

        try:
            decoded = self.actions.decode(action)
        except ValueError:  # not an action of this game: no message makes it
            return None
        if isinstance(decoded, WrittenRule):  # a game master's reply is its code
            return decoded.code if decoded.code.strip() else None
        return write_action(decoded)

    def game(
        self, config: CodeFunctionsConfig, item: Mapping[str, Any], context: EpisodeContext
    ) -> Game[Any, Any]:
        if config.split == "write-rules":
            from wason.tasks.code_functions.writer import WriterGame

            return WriterGame(str(item["level"]))
        from wason.tasks.code_functions.judge import rule_truth

        rule = rule_from_item(item)
        settings = config.settings(int(item["game_seed"]))
        judge = _llm_judge(config, context, item) if "llm" in config.judges else None
        code = rule.provenance.get("code") if isinstance(rule.provenance.get("code"), str) else None
        return CodeFunctionsGame(rule, rule_truth(rule), settings, judge=judge, judge_code=code)

    def protocol(self, config: CodeFunctionsConfig, item: Mapping[str, Any]) -> TextProtocol[Any, Any]:
        if config.split == "write-rules":
            from wason.tasks.code_functions.writer import WriterProtocol

            return WriterProtocol(str(item["level"]))
        from wason.tasks.code_functions.protocol import CodeFunctionsProtocol

        return CodeFunctionsProtocol(config.protocol, str(item.get("level", "L1")))

    def sample_key(self, config: CodeFunctionsConfig, item: Mapping[str, Any]) -> str:
        if config.split == "write-rules":
            return f"write-rules|{item['level']}|{item['attempt']}|{item['seed']}"
        return _sample(item)

    def oracle(self, config: CodeFunctionsConfig) -> OracleSpec | None:
        return config.judge_oracle("llm" in config.judges and config.split != "write-rules", "the llm judge")

    def solver(self, config: CodeFunctionsConfig, item: Mapping[str, Any]) -> Player[Any, Any] | None:
        if config.split == "write-rules":
            return None
        from wason.tasks.code_functions.solver import ANY_LEVEL, CodeFunctionsSolver

        # a generated rule is of its level; a published or file rule may be anything the grammar can say
        level = str(item.get("level", "L1")) if config.split == "generated" else ANY_LEVEL
        # it makes only the moves the protocol can express: only `game-api` can ask for more words
        return CodeFunctionsSolver(level, ask_for_more=config.protocol == "game-api")

    def sample_actions(self, config: CodeFunctionsConfig, item: Mapping[str, Any]) -> list[Any] | None:
        if config.split == "write-rules":
            return [WrittenRule("def has_e(word):\n    return 'e' in word\n")]
        return None

    def baseline(self, config: CodeFunctionsConfig, run_id: int) -> CodeFunctionsConfig | None:
        if config.split == "write-rules":
            return None
        return super().baseline(config, run_id)

    def human(
        self, config: CodeFunctionsConfig, item: Mapping[str, Any], io: PlayIO
    ) -> Player[Any, Any] | None:
        # a game of writing rules is played by models only
        return None if config.split == "write-rules" else super().human(config, item, io)

    def public(self, item: Mapping[str, Any]) -> list[str]:
        # not the episode's seed: it is the run's (or the published route's), which draws the rules
        return [k for k in ("level", "trial", "vocabulary", "attempt") if k in item]

    def describe(self, config: CodeFunctionsConfig, n_episodes: int, n_todo: int, who: str) -> str:
        from wason.tasks.code_functions.report import protocol_text

        if config.split == "write-rules":
            return (
                f"code-functions write-rules {config.level}: {n_episodes} rule(s) to write ({n_todo} to do) by "
                f"{who} with the published rule-generator prompt"
            )
        judges = ", ".join(config.judges)
        if "llm" in config.judges:
            judges += f" (LLM judge {config.oracle_model})"
        return (
            f"code-functions {config.split} {config.level}: {n_episodes} episodes ({n_todo} to play) with {who}; "
            f"{protocol_text(config.model_dump(mode='json'))}; judges: {judges}"
        )

    def column(self, config: CodeFunctionsConfig, item: Mapping[str, Any]) -> str:
        # the paper's Table 2 columns: "CF L1", "CF L2", "CF L3"
        return f"CF {item.get('level', config.level)}"

    def report_json(self, store: RunReader, run_ids: Sequence[int]) -> RunReport:
        if store.get_run(run_ids[0]).config.get("split") == "write-rules":
            from wason.tasks.code_functions.writer import writer_report

            return writer_report(store, run_ids[0])  # a game master's run: no baseline
        return super().report_json(store, run_ids)

    def item_id(self, item: Mapping[str, Any]) -> int | None:
        rule = item.get("rule") or {}
        index = (rule.get("provenance") or {}).get("index")
        return int(index) if isinstance(index, int) else None

    def intro(self, config: CodeFunctionsConfig, item: Mapping[str, Any], origin: str) -> str:
        return f"Code Functions Picnic, level {item.get('level')}, a hidden rule over words ({origin})."

    def ending(self, item: Mapping[str, Any], metrics: Mapping[str, Any] | None) -> list[str]:
        rule = item.get("rule") or {}
        lines = [f"\nThe rule was: {rule.get('text')}  ({rule.get('source')})"]
        if metrics is None:
            return lines
        turns = metrics.get("turns")
        lines.append(
            f"You {metrics.get('status')} in {turns} turn{'' if turns == 1 else 's'}, "
            f"after {metrics.get('examples_seen')} examples."
        )
        if metrics.get("final_accuracy") is not None:
            lines.append(
                f"Your last predicate agreed with the rule on {metrics['final_accuracy']:.1%} of the "
                "words you had not seen."
            )
        if metrics.get("quiz_accuracy") is not None:
            lines.append(f"Quiz: {metrics['quiz_accuracy']:.0%} right.")
        return lines

    # -- playing in a browser ----------------------------------------------------------------------------
    def moves(
        self, config: CodeFunctionsConfig, item: Mapping[str, Any], observation: Any
    ) -> Sequence[Command]:
        kind = getattr(observation, "kind", "")
        if kind == "ask_predicate":
            field = FormField("source", "Predicate", placeholder="lambda w: w[0] in 'aeiou'")
            hint = "write your rule as a Python predicate over the word w"
            return (
                Command(
                    name="predicate", label="Send", make=_predicate, fields=(field,), hint=hint, ask=True
                ),
            )
        if kind == "ask_quiz":
            quiz = getattr(observation, "quiz", ())
            hint = "the game is decided; can each word be brought? answer y or n"
            return (yes_no_quiz(QuizAnswer, [f"{word}?" for word in quiz], "word", hint),)
        words = Command(
            name="words",
            label="Words",
            make=lambda values: (
                "You can bring: "
                + ", ".join(getattr(observation, "all_positives", ()))
                + "\nYou cannot bring: "
                + ", ".join(getattr(observation, "all_negatives", ()))
            ),
            hint="every word shown so far",
            info=True,
        )
        return (*super().moves(config, item, observation), give_up(GiveUp), words)

    def game_api(self) -> GameApi | None:
        return CodeFunctionsGameApi()

    # -- the family's own commands ---------------------------------------------------------------------------
    def add_commands(self, parser: Any) -> None:
        sub = parser.add_subparsers(dest="cf_command", required=True)
        pub = sub.add_parser("published", help="the published functions: translated, untranslated, balance")
        pub.add_argument("--json", action="store_true", help="print JSON")
        check = sub.add_parser(
            "check",
            help="translate the functions of a file (a game master's replies, a history file) and check balance",
        )
        check.add_argument("file", help="a text file of Python function definitions")
        check.add_argument("--level", default="L1", choices=LEVELS)
        check.add_argument("-o", "--output", help="write the accepted rules as JSONL (for --split file)")
        rules = sub.add_parser("rules", help="list generated rules")
        rules.add_argument("--level", default="L1", choices=LEVELS)
        rules.add_argument("--seed", type=int, default=0)
        rules.add_argument("--n", type=int, default=20)

    def run_command(self, args: argparse.Namespace, write: Callable[[str], None]) -> int:
        from wason.tasks.code_functions.commands import run

        return run(args, write)


class CodeFunctionsGameApi(GameApi):
    """The reference's game API shape: games are judged by code, so a guess must carry its predicate.

    The summary is the reference's (``base.py:396-445``): ``domain`` ``lexical``, ``game_gen_type`` ``dynamic``,
    ``game_class_name`` ``CodeFunctionsPicnic``; ``system_message`` the "Welcome back..." text with every word
    shown so far, in the order shown, or once over its game-over text; ``rule`` the rule's code (the reference's
    rule is the code of its predicate; here a ``lambda w: ...`` in the word language). The reference always
    added the last-turn line to the welcome text (its count of examples available is always 0); here it is added
    when no examples are left.
    """

    game_name = "code_functions_picnic"
    class_name = "CodeFunctionsPicnic"
    domain = "lexical"
    game_gen_type = "dynamic"

    def create(self, difficulty: str, num_init_examples: int, seed: int | None) -> tuple[RunSettings, Item]:
        if difficulty not in LEVELS:
            raise ValueError(f"difficulty must be one of {', '.join(LEVELS)}")
        if num_init_examples < 1:
            raise ValueError("num_init_examples must be at least 1")
        if num_init_examples > MAX_MORE:
            raise ValueError(f"num_init_examples must be at most {MAX_MORE} (pairs)")
        seed = 0 if seed is None else seed
        config = CodeFunctionsConfig(
            player="human",
            split="generated",
            level=difficulty,  # type: ignore[arg-type]
            n=1,
            seed=seed,
            protocol="game-api",
            init_examples=num_init_examples,
            after_wrong=0,
            max_turns=0,
            judges=["predicate"],
        )
        return config, config.items()[0]

    def more(self, n: int) -> Any:
        if n < 1:
            raise ValueError("n_examples must be at least 1")
        return More(n)

    def guess(self, text: str) -> Any:
        from wason.tasks.code_functions.protocol import parse_play

        action = parse_play(text, allow_more=False)
        return action if isinstance(action, Guess | GiveUp) else Guess(text=text, predicate=None)

    def view(self, observation: Any, done: bool) -> dict[str, Any]:
        from wason.tasks.code_functions.protocol import (
            PREDICATE_PROBLEM,
            api_message,
            short_message,
        )

        obs: Observation = observation
        result: bool | None = None
        if obs.kind == "start":
            message = api_message("api_init_message.txt", obs.positives, obs.negatives)
        elif obs.kind == "examples":
            message = api_message("api_more_examples_message.txt", obs.positives, obs.negatives)
        elif obs.kind == "wrong":
            result = False
            message = short_message("base.py:362")
            if obs.reason:
                message += "\n" + PREDICATE_PROBLEM.format(reason=obs.reason)
        elif obs.kind == "ask_predicate":
            message = API_PREDICATE_REQUEST
        elif obs.status == "won":
            result = True
            message = short_message("base.py:358")
        elif obs.status == "lost":
            result = False if obs.reason != "gave up" else None
            message = short_message("base.py:360") if obs.reason != "gave up" else "You gave up. Game over!"
        else:
            message = ""
        return api_view(message, obs.positives, obs.negatives, obs.available, result)

    def rule_text(self, item: Mapping[str, Any]) -> str:
        rule = item.get("rule") or {}
        return f"{rule.get('text')} ({rule.get('source')})"

    def rule_object(self, item: Mapping[str, Any]) -> str:
        return str((item.get("rule") or {}).get("source"))

    def resume_message(self, history: Sequence[tuple[Any, Any]], status: str, rule: Any) -> str:
        from wason.tasks.code_functions.protocol import api_message, short_message

        if status != "ongoing":
            return short_message("base.py:417").format(status=status, rule=rule)
        last: Observation = history[-1][1]
        message = api_message("api_resume_message.txt", last.all_positives, last.all_negatives)
        if last.available is not None and last.available <= 0:  # base.py:413-414
            message += "\n(This is the last turn because there are no more examples available)"
        return message


API_PREDICATE_REQUEST = (
    "Games here are judged by code: send the rule again as a Python predicate over the word w, e.g. "
    'lambda w: len(w) > 4 and w[0] not in "aeiou" (it may follow your rule in words).'
)


FAMILY = CodeFunctionsFamily()


def _predicate(values: Mapping[str, str]) -> PredicateAnswer:
    from wason.tasks.code_functions.protocol import find_predicate

    text = form_value(values, "source")
    return PredicateAnswer(find_predicate(text) or text)
