"""Dynamic Picnic, validated, as a task family: run configuration, items, game, protocol, game master, game
API and reports."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import fields
from typing import Annotated, Any, ClassVar, Literal

from pydantic import Field, model_validator

from wason.core.family import (
    MAX_EPISODES,
    MAX_FORMAT_ERRORS,
    MAX_IDS,
    MAX_PATH_CHARS,
    MAX_SEED,
    MAX_URL_CHARS,
    ActionCodec,
    EndpointRef,
    EpisodeContext,
    Family,
    FormField,
    GameApi,
    Item,
    ModelRef,
    Name,
    OracleSpec,
    RuleId,
    RunSettings,
    WebForm,
    check_episodes,
    form_number,
    form_value,
)
from wason.core.game import Game, Malformed, TextProtocol
from wason.core.guess_rule import api_view
from wason.core.moves import Command, form_moves, give_up
from wason.failures import OracleUnavailable
from wason.tasks.dynamic_picnic.game import (
    GM,
    GM_MISSING,
    MAX_CANDIDATES,
    MAX_INIT,
    MAX_MORE,
    MAX_TURNS,
    MAX_VALIDATED,
    MAX_WRITER_ROUNDS,
    NOUNS_ONLY,
    AskItem,
    Begin,
    DynamicPicnicGame,
    GiveUp,
    GuessRule,
    MoreExamples,
    PicnicObservation,
    PicnicSettings,
)
from wason.tasks.dynamic_picnic.rules import (
    KINDS,
    LEVELS,
    RULE_TYPES,
    PicnicRule,
    get_rule,
    noun_rule,
    playable,
    rule_pool,
)

NAME = "dynamic-picnic"


MAX_GENERATED = 1_000
"""The most rules the game master writes (each costs model calls)."""

MAX_VOTES = 25
"""The most votes of the validator panel or the rule-guess judge (each a model call)."""

MIN_CODE_RULES = 10
"""The fewest rules a level must have that code can play, for it to be played without a model. With fewer, a
guess made without playing wins too often (L3 has 2 such rules: one fixed guess would win half of its games)."""

CODE_KINDS = ("lexical", "mixed")
"""The kinds code plays without a model: lexical rules, and the mixed rules whose other part is "a single-word
noun" (:func:`~wason.tasks.dynamic_picnic.rules.noun_rule`)."""


class DynamicPicnicRunConfig(RunSettings):
    """Everything that defines a Dynamic Picnic run: which rules, who is the game master, the validation and the
    protocol's limits.

    Each rule is played ``trials`` times; trial ``t`` has the episode seed ``seed + t - 1``. The game master
    (``--game-master-model``, default ``--model``) writes, validates and judges; without one only the rules
    code decides can be played: lexical rules and the published "its name is a single-word noun that ..." rules
    (items drawn by code from a word list, guesses judged by a predicate). A level with fewer than
    :data:`MIN_CODE_RULES` such rules (L3 has 2) is refused without a model, since a blind guess would win too
    many of its games.
    """

    item_fields: ClassVar[frozenset[str] | None] = frozenset(
        {"source", "n", "level", "types", "kinds", "pool", "relational", "rejected", "ids", "seed"}
    )
    public_fields: ClassVar[frozenset[str]] = frozenset(
        {
            "trials",
            "game_master_model",
            "game_master_base_url",
            "game_master_temperature",
            "panel",
            "judge_votes",
            "init_examples",
            "negatives",
            "more_default",
            "max_turns",
            "min_positives",
            "min_negatives",
            "candidates",
            "writer_rounds",
            "format_error_limit",
        }
    )

    not_in_play: ClassVar[frozenset[str]] = frozenset({"ids", "seed", "trials"})
    # the game master's and the judges' model calls, and a model's unreadable replies
    model_only: ClassVar[frozenset[str]] = frozenset(
        {
            "game_master_temperature",
            "panel",
            "judge_votes",
            "candidates",
            "writer_rounds",
            "format_error_limit",
        }
    )
    audit_module: ClassVar[str | None] = "wason.tasks.dynamic_picnic.audit"
    difficulty_axes: ClassVar[Mapping[str, tuple[Any, ...]]] = {"level": ("L1", "L2", "L3")}

    label_fields: ClassVar[tuple[str, ...]] = ("source", "level")
    task: Literal["dynamic-picnic"] = "dynamic-picnic"
    source: Literal["published", "generated"] = Field(
        default="published",
        description="the published rules, or rules the game master writes with the published prompts (its "
        "level classifier says their level; a rule about spelling also needs a predicate it writes)",
    )
    n: int = Field(
        default=10, ge=1, le=MAX_GENERATED, description="rules the game master writes (--source generated)"
    )
    level: Literal["L1", "L2", "L3"] | None = Field(default=None, description="only rules of this level")
    types: list[Name] | None = Field(
        default=None,
        max_length=len(RULE_TYPES),
        description="only these rule types, comma-separated: attribute_based, categorical, logical, "
        "relational, semantic",
    )
    kinds: list[Name] | None = Field(
        default=None,
        max_length=len(KINDS),
        description="only these rule kinds: lexical (a predicate decides), mixed, semantic (the panel "
        "decides); default all with a game-master model, lexical and mixed without one (a word list decides "
        "the noun of the single-word noun rules)",
    )
    pool: Literal["distinct", "published"] = Field(
        default="distinct", description="distinct (408 rules, repeated texts once) or published (all 410)"
    )
    relational: bool = Field(
        default=False, description="also play the relational rules (about pairs of items) on single items"
    )
    rejected: bool = Field(
        default=False,
        description="also play rules the code rejects before play (each ends at once, with why)",
    )
    ids: list[RuleId] | None = Field(
        default=None, max_length=MAX_IDS, description="only these published rule ids"
    )
    trials: int = Field(
        default=1, ge=1, le=MAX_EPISODES, description="episodes per rule, with seeds S, S+1, ..."
    )
    seed: int = Field(
        default=0, ge=0, le=MAX_SEED, description="seed of the first trial (word draws, probes)"
    )
    game_master_model: Annotated[str | None, ModelRef("game_master_base_url")] = Field(
        default=None,
        max_length=MAX_PATH_CHARS,
        description="model that writes, validates and judges (default: --model)",
    )
    game_master_base_url: Annotated[str | None, EndpointRef("game_master_model")] = Field(
        default=None, max_length=MAX_URL_CHARS, description="endpoint of --game-master-model"
    )
    game_master_temperature: float | None = Field(
        default=None,
        ge=0.0,
        le=2.0,
        allow_inf_nan=False,
        description="temperature of the game master's calls (default: --temperature); votes are independent "
        "samples, so a panel of one deterministic model always agrees with itself",
    )
    panel: int = Field(
        default=3, ge=1, le=MAX_VOTES, description="validator votes per item; only unanimous items are shown"
    )
    judge_votes: int = Field(
        default=3,
        ge=1,
        le=MAX_VOTES,
        description="votes of the published rule-guess judge (majority wins)",
    )
    init_examples: int = Field(
        default=2, ge=1, le=MAX_INIT, description="items that fit shown at the start (published: 2)"
    )
    negatives: bool = Field(
        default=True, description="also show validated items that do not fit (the reference shows none)"
    )
    more_default: int = Field(
        default=1, ge=1, le=MAX_MORE, description="items per 'more examples' request without a number"
    )
    max_turns: int = Field(
        default=10,
        ge=0,
        le=MAX_TURNS,
        description="turns allowed (published runs: 1,3,5,7,10,15; 0: no limit)",
    )
    min_positives: int = Field(
        default=4,
        ge=1,
        le=MAX_VALIDATED,
        description="validated items that fit a rule needs to be played",
    )
    min_negatives: int = Field(
        default=2,
        ge=0,
        le=MAX_VALIDATED,
        description="validated items that do not fit it needs (with negatives)",
    )
    candidates: int = Field(
        default=8, ge=1, le=MAX_CANDIDATES, description="items asked of the writer per call"
    )
    writer_rounds: int = Field(default=2, ge=1, le=MAX_WRITER_ROUNDS, description="writer rounds before play")
    format_error_limit: int = Field(
        default=3,
        ge=0,
        le=MAX_FORMAT_ERRORS,
        description="consecutive unreadable replies that end a game",
    )

    @model_validator(mode="after")
    def _check(self) -> DynamicPicnicRunConfig:
        for name, known in (("types", RULE_TYPES), ("kinds", KINDS)):
            bad = [v for v in getattr(self, name) or () if v not in known]
            if bad:
                raise ValueError(f"{name}: unknown {bad}; choose from {', '.join(known)}")
        if self.oracle_model is None and any(k not in CODE_KINDS for k in self.kinds or ()):
            raise ValueError("kinds: semantic rules need a game-master model (--game-master-model)")
        if self.source == "generated":
            if self.oracle_model is None:
                raise ValueError("source: generated rules need a game-master model (--game-master-model)")
            if self.ids is not None:
                raise ValueError("ids select published rules; leave them out with --source generated")
        self.settings()  # validates the game's numbers, naming the field
        if self.oracle_model is None and self.level is not None and self.ids is None:
            refusal = code_level_refusal(self.level, self.pool, self.relational)
            if refusal:
                raise ValueError(f"level: {refusal}")
        rules = self.n if self.source == "generated" else len(self.rules())
        check_episodes(rules * self.trials, "trials")
        return self

    @property
    def oracle_model(self) -> str | None:
        """The game master's model: ``game_master_model``, else the player's model."""
        return self.game_master_model or self.model

    def selected_kinds(self) -> tuple[str, ...]:
        if self.kinds is not None:
            return tuple(self.kinds)
        return KINDS if self.oracle_model else CODE_KINDS

    def settings(self) -> PicnicSettings:
        """The game's settings: each of its fields this configuration has (``probes`` keeps its default)."""
        names = [f.name for f in fields(PicnicSettings) if f.name in type(self).model_fields]
        return PicnicSettings(**{name: getattr(self, name) for name in names})

    def rules(self) -> list[PicnicRule]:
        if self.ids is not None:
            rules = [get_rule(i) for i in self.ids]
        else:
            rules = rule_pool(self.pool, relational=self.relational)
        kinds = self.selected_kinds()
        out = []
        for rule in rules:
            if self.level is not None and rule.level != self.level:
                continue
            if self.types is not None and rule.rule_type not in self.types:
                continue
            if rule.kind not in kinds:
                continue
            if self.oracle_model is None and rule.kind == "mixed" and not noun_rule(rule):
                continue
            if self.ids is None and not self.rejected and not playable(rule, relational=self.relational):
                continue
            out.append(rule)
        return out

    def generated(self) -> list[PicnicRule]:
        """Placeholders of the rules the game master will write: types in turn (relational only with
        ``relational``), each at the requested level (or L1, L2, L3 in turn); the text comes when played."""
        types = [t for t in (self.types or RULE_TYPES) if self.relational or t != "relational"]
        levels = [self.level] if self.level else list(LEVELS)
        return [
            PicnicRule(
                id=i + 1,
                rule_type=types[i % len(types)],
                level=levels[i % len(levels)],
                text="",
                kind="semantic",
                source="generated",
            )
            for i in range(self.n)
        ]

    def items(self) -> list[Item]:
        out = []
        for rule in self.generated() if self.source == "generated" else self.rules():
            for trial in range(1, self.trials + 1):
                item = {"rule": rule_json(rule), "trial": trial, "seed": self.seed + trial - 1}
                out.append((f"{rule.key}|{trial}", item))
        return out


def code_rules(level: str, pool: str = "distinct", relational: bool = False) -> list[PicnicRule]:
    """The rules of a level that code plays without a model (what a game drawn without one draws from)."""
    return [
        r
        for r in rule_pool(pool, relational=relational)
        if r.level == level
        and r.kind in CODE_KINDS
        and (r.kind == "lexical" or noun_rule(r))
        and playable(r, relational=relational)
    ]


def code_level_refusal(level: str, pool: str = "distinct", relational: bool = False) -> str | None:
    """Why a level cannot be drawn without a model (None when it can): fewer than :data:`MIN_CODE_RULES` rules
    code plays, in one line naming the option that plays it."""
    rules = code_rules(level, pool, relational)
    if len(rules) >= MIN_CODE_RULES:
        return None
    return (
        f"without a game-master model {level} has {len(rules)} rule{'' if len(rules) == 1 else 's'} code can "
        f"decide (a blind guess would win 1 game in {max(1, len(rules))}); set game_master_model "
        "(--game-master-model) to play it"
    )


def blind_share(rules: Sequence[PicnicRule], probes: int = 2000, seed: int = 0) -> tuple[float, PicnicRule]:
    """The largest share of ``rules`` one fixed guess wins, made without playing, and the rule whose predicate
    makes it: a rule's predicate wins another rule only if the two agree on ``probes`` seeded words of the
    vocabulary (on its nouns for a rule played on single-word nouns); the game checks a guess on every word, so
    this is an upper bound. A guess wins several rules only where their rules agree (the letter F, and a
    single-word noun starting with F), so the best blind guess is one of the rules' own predicates."""
    from wason.tasks.dynamic_picnic import vocab

    if not rules:
        raise ValueError("rules: no rule to share")
    words = list(vocab.vocabulary())
    sample = random.Random(seed).sample(words, min(probes, len(words)))
    nouns = [i for i, w in enumerate(sample) if vocab.is_noun(w)]
    everything = list(range(len(sample)))
    signs = []
    for rule in rules:
        program = rule.program()
        if program is None:
            raise ValueError(f"rules: rule {rule.id} has no predicate to decide it by code")
        signs.append([program(w) for w in sample])

    def wins(guess: int) -> int:
        return sum(
            all(signs[guess][i] == signs[b][i] for i in (nouns if noun_rule(rule) else everything))
            for b, rule in enumerate(rules)
        )

    best = max(range(len(rules)), key=wins)
    return wins(best) / len(rules), rules[best]


RULE_KEYS = ("id", "key", "source", "type", "level", "text", "kind", "predicate", "rejection")
"""An item's rule, in order: the attributes of a :class:`PicnicRule` (``type`` is its ``rule_type``)."""


def rule_json(rule: PicnicRule) -> dict[str, Any]:
    return {k: getattr(rule, "rule_type" if k == "type" else k) for k in RULE_KEYS}


def rule_from_item(item: Mapping[str, Any], *, relational: bool = False) -> PicnicRule:
    """The hidden rule of an item; a published one is read from the package data and must still match."""
    ref = item["rule"]
    if ref.get("source", "published") == "published":
        rule = get_rule(int(ref["id"]))
        if rule.text != ref["text"]:
            raise ValueError(f"rule {ref['key']} is no longer {ref['text']!r} (now {rule.text!r})")
        if relational and rule.rejection is not None and playable(rule, relational=True):
            rule = PicnicRule(**{**rule.__dict__, "rejection": None})
        return rule
    return PicnicRule(
        id=int(ref["id"]),
        rule_type=str(ref["type"]),
        level=str(ref["level"]),
        text=str(ref["text"]),
        kind=ref["kind"],
        predicate=ref.get("predicate"),
        rejection=ref.get("rejection"),
        source=str(ref["source"]),
    )


def _sample(item: Mapping[str, Any]) -> str:
    rule = item["rule"]
    return f"{rule['key']}|{rule['text']}|{item['trial']}|{item['seed']}"


def build_game(
    config: DynamicPicnicRunConfig, item: Mapping[str, Any], context: EpisodeContext | None = None
) -> DynamicPicnicGame:
    from wason.tasks.dynamic_picnic.master import GameMaster, MasterSettings

    rule = rule_from_item(item, relational=config.relational)
    by_code = config.oracle_model is None
    master = None
    if not by_code and context is not None and context.oracle is not None:
        call = context.calls(_sample(item))
        params = config.params
        if config.game_master_temperature is not None:
            params = params.model_copy(update={"temperature": config.game_master_temperature})
        settings = MasterSettings(panel=config.panel, judge_votes=config.judge_votes)
        master = GameMaster(context.oracle, params, call, settings)
    return DynamicPicnicGame(rule, config.settings(), seed=int(item["seed"]), master=master, by_code=by_code)


class DynamicPicnicFamily(Family[DynamicPicnicRunConfig]):
    """Hidden picnic rules, written and validated by a game-master model (or a word predicate)."""

    name = NAME
    title = "Dynamic Picnic"
    summary = "guess the rule of a picnic; every item validated by a predicate or a unanimous panel"
    config_type = DynamicPicnicRunConfig
    reports = ("wason.tasks.dynamic_picnic.report",)
    playable = True

    commands = "Dynamic Picnic tools"

    action_codec = ActionCodec(Begin, AskItem, MoreExamples, GuessRule, GiveUp)

    def game(
        self, config: DynamicPicnicRunConfig, item: Mapping[str, Any], context: EpisodeContext
    ) -> Game[Any, Any]:
        return build_game(config, item, context)

    def protocol(self, config: DynamicPicnicRunConfig, item: Mapping[str, Any]) -> TextProtocol[Any, Any]:
        from wason.tasks.dynamic_picnic.protocol import PicnicProtocol

        first = build_game(config, item).start()
        return PicnicProtocol(first, more_default=config.more_default)

    def sample_key(self, config: DynamicPicnicRunConfig, item: Mapping[str, Any]) -> str:
        return _sample(item)

    def oracle(self, config: DynamicPicnicRunConfig) -> OracleSpec | None:
        if config.oracle_model is None:
            return None
        same = config.game_master_model is None
        return OracleSpec(
            model=config.oracle_model,
            base_url=config.base_url if same else config.game_master_base_url,
            same_as_player=same,
        )

    def sample_actions(self, config: DynamicPicnicRunConfig, item: Mapping[str, Any]) -> list[Any]:
        rule = item["rule"]
        actions: list[Any] = [] if config.oracle_model is None else [Begin()]
        actions += [AskItem(item="apple"), MoreExamples(n=1)]
        text, predicate = str(rule.get("text") or ""), rule.get("predicate")
        # code decides a guess with a predicate on a lexical rule, and on a single-word noun rule played without
        # a model; the game master's judge decides the rest: the rule's own words
        by_code = rule.get("kind") == "lexical" or (
            config.oracle_model is None and noun_rule(rule_from_item(item, relational=config.relational))
        )
        if predicate and by_code:
            actions.append(GuessRule(text=text, predicate=str(predicate)))
        elif text and config.oracle_model is not None:
            actions.append(GuessRule(text=text, predicate=str(predicate) if predicate else None))
        else:
            actions.append(GiveUp())
        return actions

    def public(self, item: Mapping[str, Any]) -> list[str]:
        return ["trial"]

    def item_id(self, item: Mapping[str, Any]) -> int | None:
        return int(item["rule"]["id"])

    def describe(self, config: DynamicPicnicRunConfig, n_episodes: int, n_todo: int, who: str) -> str:
        master = (
            f"game master {config.oracle_model} (panel of {config.panel}, judge {config.judge_votes} votes)"
            if config.oracle_model
            else "no game master: lexical and single-word noun rules, items and verdicts by code"
        )
        level = config.level or "all levels"
        return (
            f"dynamic-picnic {config.pool} pool, {level}, kinds {', '.join(config.selected_kinds())}: "
            f"{n_episodes} episodes ({n_todo} to play) with {who}; {master}; "
            f"{config.init_examples} first examples, up to {config.max_turns or 'unlimited'} turns"
        )

    def intro(self, config: DynamicPicnicRunConfig, item: Mapping[str, Any], origin: str) -> str:
        return (
            f"Dynamic Picnic: a hidden rule ({origin}). Ask 'Can I bring X?', ask for more examples, "
            "state 'The rule is: ...' or 'give up'."
        )

    def ending(self, item: Mapping[str, Any], metrics: Mapping[str, Any] | None) -> list[str]:
        text = (metrics or {}).get("rule_text") or item["rule"]["text"]
        lines = [f"\nThe rule was: {text}"]
        if metrics:
            turns = metrics.get("turns")
            how = {
                "won": "You found it",
                "gave_up": "You gave up",
                "turns": "No turns were left",
                "rule_rejected": "The rule could not be played",
                "format_errors": "Too many replies could not be read",
            }.get(str(metrics.get("end_reason")), str(metrics.get("end_reason")))
            lines.append(f"{how}, after {turns} turn{'' if turns == 1 else 's'}.")
        return lines

    def column(self, config: DynamicPicnicRunConfig, item: Mapping[str, Any]) -> str:
        # the paper's Table 2 columns: "DP L1", "DP L2", "DP L3" (a run may play several levels)
        return f"DP {item['rule']['level']}"

    def game_api(self) -> GameApi:
        return DynamicPicnicGameApi()

    def web_form(
        self, config: DynamicPicnicRunConfig, item: Mapping[str, Any], observation: Any, turn: int
    ) -> WebForm:
        form = super().web_form(config, item, observation, turn)
        if turn == 0 and isinstance(observation, PicnicObservation) and observation.history:
            said = "\n".join(f"{who}: {text}" for who, text in observation.history)
            intro = (
                "Find the secret rule of the picnic: ask whether an item can be brought, ask for more examples, "
                "and guess the rule when you think you have it."
            )
            form = WebForm(prompt=f"{intro}\n\n{said}", moves=form.moves)
        elif turn:
            form = WebForm(prompt="", moves=form.moves)  # the page shows what each turn added
        return WebForm(prompt=form.prompt, moves=form_moves(self.moves(config, item, observation)))

    def moves(
        self, config: DynamicPicnicRunConfig, item: Mapping[str, Any], observation: Any
    ) -> Sequence[Command]:
        from wason.tasks.dynamic_picnic.protocol import read_reply

        def ask(values: Mapping[str, str]) -> AskItem:
            thing = form_value(values, "item").rstrip("?").strip()
            return AskItem(item=thing, said=f"Can I bring {thing}?")

        def more(values: Mapping[str, str]) -> MoreExamples:
            given = values.get("n", "").strip()
            return MoreExamples(n=form_number(values, "n") if given else config.more_default)

        def say(values: Mapping[str, str]) -> Any:
            action = read_reply(
                form_value(values, "text"),
                final=bool(getattr(observation, "final", False)),
                more_default=config.more_default,
            )
            if isinstance(action, Malformed):
                raise ValueError(f"not understood: {action.reason}")
            return action

        guess = self.game_api().guess
        return (
            Command(
                name="ask",
                label="Can I bring it?",
                make=ask,
                fields=(FormField("item", "Can I bring", placeholder="an apple"),),
                words=("ask", "can i bring"),
                syntax="Can I bring ITEM?",
                hint="whether an item fits the rule",
                action="AskItem",
            ),
            Command(
                name="more",
                label="More examples",
                make=more,
                fields=(
                    FormField("n", "How many (empty: the game's number)", kind="number", placeholder="3"),
                ),
                words=("more examples", "more"),
                syntax="more [N]",
                hint="more examples",
                action="MoreExamples",
            ),
            Command(
                name="guess",
                label="Guess",
                make=lambda values: guess(form_value(values, "text")),
                fields=(FormField("text", "The rule", placeholder="things that are red"),),
                words=("guess", "g"),
                syntax="guess TEXT",
                hint="your guess of the rule (add  lambda w: ...  to have it checked by code)",
                action="GuessRule",
            ),
            give_up(GiveUp, said="I give up"),
            Command(
                name="say",
                label="Say",
                make=say,
                fields=(FormField("text", "Anything", placeholder="Can I bring a kite?"),),
                words=("",),
                syntax="TEXT",
                hint="anything else to the game master, in your words (Can I bring a kite? The rule is: ...)",
            ),
        )

    def terminal_text(
        self, config: DynamicPicnicRunConfig, item: Mapping[str, Any], observation: Any, turn: int
    ) -> str:
        if turn == 0 or not isinstance(observation, PicnicObservation):
            return self.web_form(config, item, observation, turn).prompt
        # the web page shows each turn's lines apart (web_history); here: what the game master said last
        history = list(observation.history)
        last = max((i for i, (who, _) in enumerate(history) if who != GM), default=-1)
        said = [f"{who}: {text}" for who, text in history[last + 1 :]]
        left = observation.turns_left
        return "\n".join(
            [*said, *([] if left is None else [f"({left} turn{'s' if left != 1 else ''} left)"])]
        )

    def web_history(
        self, config: DynamicPicnicRunConfig, item: Mapping[str, Any], turns: Sequence[Mapping[str, Any]]
    ) -> list[str]:
        # the protocol repeats the whole conversation each turn; a person reads what each turn added (the opening
        # lines are on the page already, above the moves)
        out: list[str] = []
        seen = len(self.game(config, item, EpisodeContext()).start().history)
        for turn in turns:
            history = turn.get("observation", {}).get("history") or []
            added = "\n".join(f"{who}: {text}" for who, text in history[seen:])
            # a move that added no line (a guess in words that no model can judge here) says why in its message
            said = turn.get("observation", {}).get("message")
            out.append(added or str(said or turn.get("feedback") or ""))
            seen = len(history)
        return out

    def add_commands(self, parser: Any) -> None:
        sub = parser.add_subparsers(dest="family_command", required=True, parser_class=type(parser))
        rules = sub.add_parser(
            "rules", help="the published rules: counts per type, level and kind; rejections"
        )
        rules.add_argument("--pool", choices=("distinct", "published"), default="distinct")
        rules.add_argument("--relational", action="store_true", help="keep the relational rules")
        rules.add_argument(
            "--list", action="store_true", help="one line per rule: id, type, level, kind, why not"
        )
        rules.add_argument("--json", action="store_true")

    def run_command(self, args: Any, write: Any) -> int:
        import json

        from wason.tasks.dynamic_picnic.rules import counts, kind_counts

        pool = rule_pool(args.pool, relational=args.relational)
        played = [r for r in pool if playable(r, relational=args.relational)]
        rejected = [r for r in pool if not playable(r, relational=args.relational)]
        if args.json:
            data = {
                "pool": counts(pool),
                "playable": counts(played),
                "kinds": dict(kind_counts(played)),
                "rejected": [{"id": r.id, "level": r.level, "reason": r.rejection} for r in rejected],
            }
            write(json.dumps(data, indent=2))
            return 0
        if args.list:
            for r in pool:
                why = f"  rejected: {r.rejection}" if r in rejected else ""
                write(f"{r.id:4d} {r.rule_type:15s} {r.level} {r.kind:8s} {r.text}{why}")
            return 0
        table = counts(pool)
        write(f"{args.pool} pool{' with relational rules' if args.relational else ''}: {len(pool)} rules")
        for name, row in table.items():
            write(
                f"  {name:15s} L1 {row['L1']:3d}  L2 {row['L2']:3d}  L3 {row['L3']:3d}  total {row['total']:3d}"
            )
        kinds = ", ".join(f"{k} {n}" for k, n in sorted(kind_counts(played).items()))
        write(f"playable: {len(played)} ({kinds}); rejected before play: {len(rejected)}")
        return 0


class DynamicPicnicGameApi(GameApi):
    """The reference's game API. Games created here have no model (the API judges by code), so they draw from
    the rules code decides (:func:`code_rules`: L1 23, L2 16): items from a word list decided by the rule's
    predicate (and, for the single-word noun rules, a word list of nouns); a rule guess is judged when it
    carries a predicate (``lambda w: ...``). L3 has 2 such rules and is refused as a game that needs a model
    (:func:`code_level_refusal`; the routes answer 424).

    The summary is the reference's (``base.py:37-85``): ``domain`` ``natural_language``, ``game_gen_type``
    ``dynamic``; ``system_message`` the "Welcome back..." text with the conversation so far (``Assistant:``
    lines for what the game said, ``User:`` lines for what the player sent as a guess; requests for examples
    add no user line, as in the reference), or once over its game-over text; ``rule`` the rule's text (the
    reference's rule is its text)."""

    game_name: ClassVar[str] = "dynamic_picnic"
    levels: ClassVar[tuple[str, ...]] = LEVELS
    class_name: ClassVar[str | None] = "DynamicGoingOnAPicnic"
    domain: ClassVar[str | None] = "natural_language"
    game_gen_type: ClassVar[str | None] = "dynamic"

    def create(self, difficulty: str, num_init_examples: int, seed: int | None) -> tuple[RunSettings, Item]:
        if difficulty not in LEVELS:
            raise ValueError(f"difficulty must be one of {', '.join(LEVELS)}")
        if not isinstance(num_init_examples, int) or not 1 <= num_init_examples <= MAX_INIT:
            raise ValueError(f"num_init_examples must be from 1 to {MAX_INIT}")
        refusal = code_level_refusal(difficulty)
        if refusal:  # the level needs a model, and games made here have none (the routes answer 424)
            raise OracleUnavailable(f"difficulty {difficulty}: {refusal}", GM_MISSING)
        config = DynamicPicnicRunConfig(
            player="session",
            level=difficulty,  # type: ignore[arg-type]  # checked above
            init_examples=num_init_examples,
            min_positives=max(4, num_init_examples),
            max_turns=0,
            seed=seed or 0,
        )
        items = config.items()
        if not items:
            raise ValueError(f"difficulty: no {difficulty} rule can be played without a model")
        chooser = random.Random(seed) if seed is not None else random.Random(random.SystemRandom().random())
        return config, chooser.choice(items)

    def more(self, n: int) -> Any:
        if not isinstance(n, int) or not 1 <= n <= 20:
            raise ValueError("n_examples must be from 1 to 20")
        return MoreExamples(n=n)

    def guess(self, text: str) -> Any:
        from wason.tasks.dynamic_picnic.protocol import read_reply

        stripped = text.strip()
        if stripped.lower() in ("give up", "i give up"):
            return GiveUp(said=stripped)
        action = read_reply(stripped)
        if isinstance(action, AskItem | GuessRule):
            return action
        from wason.tasks.dynamic_picnic.protocol import _predicate

        return GuessRule(text=stripped[:1000], predicate=_predicate(stripped), said=stripped[:2000])

    def view(self, observation: Any, done: bool) -> dict[str, Any]:
        from wason.tasks.dynamic_picnic import prompts

        obs = observation if isinstance(observation, PicnicObservation) else None
        if obs is None:
            return {"system_message": ""}
        guess_result: bool | None = None
        if obs.kind == "start":
            message = prompts.api_init(obs.positives)
            if (GM, NOUNS_ONLY) in obs.history:  # a game played on single-word nouns says so (ours)
                message = f"{message}\n\n{NOUNS_ONLY}"
        elif obs.kind == "examples" and obs.positives:
            message = prompts.api_more(obs.positives)
        elif obs.kind == "verdict" and obs.verdict is False:
            message, guess_result = prompts.short("base.py:227"), False
        elif obs.kind == "ended" and obs.end_reason == "won":
            message, guess_result = prompts.short("base.py:220", rule=obs.rule or ""), True
        else:
            message = obs.message
        return api_view(message, obs.positives, obs.negatives, None, guess_result)

    def resume_message(self, history: Sequence[tuple[Any, Any]], status: str, rule: Any) -> str:
        from wason.tasks.dynamic_picnic import prompts

        if status != "ongoing":
            return prompts.short("base.py:53", status=status, rule=rule)
        conversation: list[tuple[str, str]] = []
        for action, observation in history:
            if action is not None and not isinstance(action, MoreExamples):
                said = (
                    getattr(action, "said", "") or getattr(action, "text", "") or getattr(action, "item", "")
                )
                conversation.append(("User", str(said)))
            conversation.append(("Assistant", str(self.view(observation, False)["system_message"])))
        return prompts.api_resume(conversation)


FAMILY = DynamicPicnicFamily()
