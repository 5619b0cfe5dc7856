"""Static Picnic as a task family: run configuration, items, game, protocol, judges, solver, human player and
reports. See ``docs/picnic.md``."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from wason.core.family import (
    ActionCodec,
    EpisodeContext,
    Family,
    GameApi,
)
from wason.core.game import Game, Player, TextProtocol
from wason.core.moves import Command, give_up
from wason.failures import unavailable
from wason.tasks.picnic.config import GENERATOR as GENERATOR
from wason.tasks.picnic.config import JUDGES as JUDGES
from wason.tasks.picnic.config import MAX_N as MAX_N
from wason.tasks.picnic.config import MAX_TURN_LIMITS as MAX_TURN_LIMITS
from wason.tasks.picnic.config import Judge as Judge
from wason.tasks.picnic.config import PicnicRunConfig as PicnicRunConfig
from wason.tasks.picnic.config import make_item as make_item
from wason.tasks.picnic.config import rule_from_item as rule_from_item
from wason.tasks.picnic.game import GiveUp, Guess, More, PicnicGame


def _sample(item: Mapping[str, Any]) -> str:
    rule = item["rule"]
    return (
        f"{rule['pool']}:{rule['level']}:{rule['id']}|t{item.get('max_turns')}|n{item.get('num_init_examples')}"
        f"|g{item.get('game')}|s{item.get('seed')}"
    )


class PicnicFamily(Family[PicnicRunConfig]):
    """Static Picnic: find the categories of a hidden rule over 511 items from positive and negative examples."""

    name = "picnic"
    title = "Static Picnic"
    summary = "guess-the-rule over 511 items and 76 categories (GuessTheRuleBench's Static Picnic)"
    config_type = PicnicRunConfig
    wording = "wason.tasks.picnic.web"
    reports = ("wason.tasks.picnic.report",)
    playable = True

    action_writer = "wason.tasks.picnic.protocol"
    action_codec = ActionCodec(More, Guess, GiveUp)

    def game(
        self, config: PicnicRunConfig, item: Mapping[str, Any], context: EpisodeContext
    ) -> Game[Any, Any]:
        return PicnicGame(
            rule_from_item(item),
            int(item["seed"]),
            config.game_config(item),
            judge=_judge(config, context, item) if config.llm_judge else None,
        )

    def protocol(self, config: PicnicRunConfig, item: Mapping[str, Any]) -> TextProtocol[Any, Any]:
        from wason.tasks.picnic.protocol import PicnicProtocol

        mt = item.get("max_turns")
        # a model reads the published count of examples left; a person or a script (a session) is not told it
        return PicnicProtocol(int(mt) if mt is not None else None, counts=config.player == "llm")

    def sample_key(self, config: PicnicRunConfig, item: Mapping[str, Any]) -> str:
        return _sample(item)

    def solver(self, config: PicnicRunConfig, item: Mapping[str, Any]) -> Player[Any, Any]:
        from wason.tasks.picnic.solver import PicnicSolverPlayer

        return PicnicSolverPlayer()

    def public(self, item: Mapping[str, Any]) -> list[str]:
        # the rule, the seed and the provenance (its draw seed) name or derive the rule, and so does the game's
        # number with the run's configuration (items are a public function of it)
        return ["level", "max_turns", "num_init_examples"]

    def describe(self, config: PicnicRunConfig, n_episodes: int, n_todo: int, who: str) -> str:
        draw = f"{config.n} seeded draw(s)" if config.draw == "sample" else f"every rule x {config.n}"
        judge = f"; LLM judge {config.oracle_model} beside the code" if config.llm_judge else ""
        return (
            f"Static Picnic {','.join(config.level)}, {config.pool} pool, {draw} per level, max turns "
            f"{','.join(map(str, config.max_turns))}: {n_episodes} games ({n_todo} to play) with {who}; "
            f"{config.init_examples} first examples, {config.negatives} negatives; judged by code{judge}"
        )

    def column(self, config: PicnicRunConfig, item: Mapping[str, Any]) -> str:
        # the paper's Table 2 columns: "SP L1", "SP L2", "SP L3" (a run may play several levels)
        return f"SP {item['level']}"

    # -- playing in a terminal ---------------------------------------------------------------------------
    def item_id(self, item: Mapping[str, Any]) -> int | None:
        return int(item["rule"]["id"])

    def intro(self, config: PicnicRunConfig, item: Mapping[str, Any], origin: str) -> str:
        limit = item.get("max_turns")
        return (
            f"Static Picnic {item['level']} ({config.pool} pool), a hidden rule ({origin}); "
            f"{'no turn limit' if limit is None else f'{limit} moves'}."
        )

    def ending(self, item: Mapping[str, Any], metrics: Mapping[str, Any] | None) -> list[str]:
        rule = item["rule"]
        lines = [f"\nThe rule was: {rule['text']}  ({rule['positives']} items)"]
        if metrics is None:
            return lines
        verdict = metrics.get("final_code_verdict") or {}
        if metrics.get("status") == "won":
            lines.append("You found it.")
        elif verdict.get("equivalent") is False:
            lines.append(
                f"Your last guess accepts {verdict.get('guess_positives')} items; it misses "
                f"{', '.join(verdict.get('missing') or []) or 'none'} and wrongly takes "
                f"{', '.join(verdict.get('extra') or []) or 'none'}."
            )
        moves = metrics.get("moves")
        # the published turn count starts at 1 with the game's creation: say the moves the player made too
        played = (
            f"{moves} move{'' if moves == 1 else 's'} ({metrics['turns']} turns as published, the start counted)"
            if isinstance(moves, int)
            else f"{metrics['turns']} turns"
        )
        lines.append(
            f"{played}, {metrics['positives_seen']} positives and {metrics['negatives_seen']} negatives seen."
        )
        return lines

    # -- playing in a browser ----------------------------------------------------------------------------
    def moves(self, config: PicnicRunConfig, item: Mapping[str, Any], observation: Any) -> Sequence[Command]:
        from wason.tasks.picnic.catalog import catalog

        names = Command(
            name="categories",
            label="Categories",
            make=lambda values: ", ".join(catalog().tags),
            words=("categories", "cats"),
            hint="the category names",
            info=True,
        )
        return (*super().moves(config, item, observation), give_up(GiveUp), names)

    # -- the guess-the-rule game API ---------------------------------------------------------------------
    def game_api(self) -> GameApi:
        from wason.tasks.picnic.game_api import PicnicGameApi

        return PicnicGameApi()


def _judge(config: PicnicRunConfig, context: EpisodeContext, item: Mapping[str, Any]) -> Any:
    """The episode's LLM judge, bound to its call context (fails as an outside failure with no model)."""
    oracle = context.oracle
    if oracle is None:
        return unavailable("an LLM judge")
    from wason.tasks.picnic.judge import llm_verdict

    call = context.calls(_sample(item))

    async def decide(guess: str, rule: str, positives: list[str]) -> Mapping[str, Any]:
        return await llm_verdict(oracle, config.params, call, guess, rule, positives)

    return decide


FAMILY = PicnicFamily()
"""Static Picnic (GuessTheRuleBench): a hidden conjunction of categories over 511 items, judged by code.

Modules: ``catalog`` (items, tags, rule pools, draws), ``guess`` (the guess reader and the code judge), ``game``,
``protocol`` (the published player texts), ``judge`` (the published LLM judge), ``solver``, ``human``, ``game_api``
(the reference's game API), ``report``.
"""
