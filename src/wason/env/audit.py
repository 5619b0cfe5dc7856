"""The reward-integrity audit: the rewards of a family's text environment cannot be had without solving the game.

An optimiser finds every hole in a reward, so before a family is trained on, :func:`audit` plays it with the
players a hole would reward and checks each one (docs/training.md, "The reward audit"):

- **solver**: the family's reference solver, through the environment, wins every game (the maximum reward);
- **format-breaking**: a reply the protocol cannot read, every turn, is never rewarded;
- **prompt's examples**: every reply the prompt itself shows as an example (each of its lines the protocol
  reads), sent in turn, is never rewarded;
- **declared players**: the family's degenerate players (always-True, always-False, leave-at-once, ...), reply
  scripts in the module its configuration names (:attr:`~wason.core.family.RunSettings.audit_module`:
  ``PLAYERS``), are never rewarded;
- **hacks**: the family's known hacks, built from each game's hidden item by that module's ``hacks(item)`` (or
  ``hacks(item, config)``, for hacks that depend on the run's settings: a range cap, a carve-out, a guess from
  counts), each wrong by construction, are never rewarded (a game whose item has no form of a hack does not play
  it);
- **judges**, a report: where an LLM judge runs beside the code (a family's ``judges`` metric), how often they
  agree and how many answers of the players above the LLM judge would have paid;
- **leaks**: nothing a client reads before the end (the opening, each answer, each step's ``info``) holds a
  hidden part of the item (what :meth:`~wason.core.family.Family.public` does not show) that the games of other
  items do not show as well (a player could reply with it).

A player's games end by the game's rules, or after :data:`MAX_AUDIT_TURNS` replies (cut off, no verdict). Every
check plays the same games: seeds ``seed`` to ``seed + games - 1``, drawn as ``reset(seed=...)`` draws them.
"""

from __future__ import annotations

import importlib
import inspect
import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from wason.core.family import RunSettings
from wason.core.game import Malformed
from wason.core.leaks import MIN_TEXT, find_leaks, hidden_texts, readable
from wason.env.text import AsyncTextEnv

__all__ = ["MAX_AUDIT_GAMES", "MAX_AUDIT_TURNS", "Check", "audit", "failed"]

MAX_AUDIT_GAMES = 1000
"""The most games a check plays."""

MAX_AUDIT_TURNS = 200
"""The most replies a scripted player sends in one game (a game that has not ended by then is cut off)."""

FORMAT_BREAKING = "I would rather not follow the format."
"""The reply of the format-breaking player: text no protocol reads as a move."""

MIN_SECRET = MIN_TEXT
"""The shortest hidden text the leak check looks for (shorter ones, a digit or a yes, are everywhere)."""

Status = Literal["ok", "FAIL", "skip"]
Replies = Callable[[int, Mapping[str, Any]], Sequence[str]]
"""A player's replies in the game of a seed and its item."""


@dataclass(frozen=True)
class Check:
    """One line of the audit: what was checked, whether it held, and the numbers behind it."""

    name: str
    status: Status
    detail: str

    def line(self) -> str:
        return f"{self.status:<4} {self.name}: {self.detail}"


def failed(checks: Iterable[Check]) -> list[Check]:
    return [c for c in checks if c.status == "FAIL"]


@dataclass
class _Game:
    """One game a player played: its seed, reward, verdict, and what a client read before the end."""

    seed: int
    key: str = ""
    reward: float = 0.0
    success: bool | None = None
    replies: int = 0
    unreadable: int = 0
    last: str = ""
    sent: set[str] = field(default_factory=set)
    judges: dict[str, Any] = field(default_factory=dict)
    seen: list[str] = field(default_factory=list)


async def _env(family: str, config: Mapping[str, Any], oracle: Any) -> AsyncTextEnv:
    return AsyncTextEnv(family, dict(config), max_turns=MAX_AUDIT_TURNS, oracle=oracle)


def _seen(text: str, info: Mapping[str, Any]) -> list[str]:
    return [text, json.dumps(info, default=str)]


async def _play(
    family: str,
    config: Mapping[str, Any],
    seed: int,
    oracle: Any,
    replies: Sequence[str] | None = None,
) -> _Game:
    """One game: the solver's moves (``replies`` None), or ``replies`` in turn, the last repeated until the game
    ends."""
    env = await _env(family, config, oracle)
    try:
        opening, info = await env.reset(seed=seed)
        game = _Game(seed, seen=_seen(opening, info))
        assert env.record is not None
        item = env.record.item
        script = list(replies) if replies is not None else None
        solver = env.family.solver(env.config, item) if script is None else None
        sample = (
            env.family.sample_actions(env.config, item) or [] if script is None and solver is None else []
        )
        turn = 0
        while not env.done:
            if solver is not None:
                move = await solver.act(env.observation)
                step = await env.act(move.action)
            elif script is None:
                if turn >= len(sample):
                    break
                step = await env.act(sample[turn])
            else:
                assert script
                game.last = script[min(turn, len(script) - 1)]
                game.sent.add(game.last)
                step = await env.step(game.last)
            turn += 1
            game.reward += step.reward
            if not (step.terminated or step.truncated):
                game.seen += _seen(step.observation, step.info)
            info = step.info
        game.key = str(info.get("item_key", ""))
        game.success = info.get("success")
        game.replies, game.unreadable = int(info.get("replies", 0)), int(info.get("format_errors", 0))
        judges = (info.get("metrics") or {}).get("judges")
        game.judges = dict(judges) if isinstance(judges, Mapping) else {}
        return game
    finally:
        await env.aclose()


def _rewarded(games: Sequence[_Game]) -> list[_Game]:
    return [g for g in games if g.reward > 0]


def _games(n: int) -> str:
    return f"{n} game" if n == 1 else f"{n} games"


def _floor_check(name: str, games: Sequence[_Game], *, readable: bool = False) -> Check:
    """Never rewarded; with ``readable``, the protocol read at least one of the player's replies in every game
    (a hack the protocol cannot read tests nothing)."""
    if not games:
        return Check(name, "skip", "no game of the audit has a form of it")
    won = _rewarded(games)
    unread = [g for g in games if g.replies and g.unreadable == g.replies]
    if readable and unread:
        where = ", ".join(f"seed {g.seed}" for g in unread[:3])
        return Check(name, "FAIL", f"tests nothing: the protocol read none of its replies ({where})")
    if not won:
        return Check(name, "ok", f"never rewarded ({_games(len(games))}, reward 0)")
    where = ", ".join(f"seed {g.seed} ({g.key}, reward {g.reward:g})" for g in won[:3])
    last = f"; last reply {won[0].last[:120]!r}" if won[0].last else ""
    return Check(name, "FAIL", f"rewarded in {len(won)} of {len(games)} games: {where}{last}")


def _examples(family: Any, config: Any, item: Mapping[str, Any], opening: str) -> list[str]:
    """The lines of the opening the protocol reads as a move: the prompt's own examples of a reply."""
    protocol = family.protocol(config, item)
    out: list[str] = []
    for line in dict.fromkeys(line.strip() for line in opening.splitlines()):
        if line and not isinstance(protocol.parse(line), Malformed):
            out.append(line)
    return out


def _leak_check(
    family: Any,
    played: Mapping[str, Sequence[_Game]],
    items: Mapping[int, tuple[str, Any]],
    vocabulary: Sequence[str] = (),
) -> Check:
    """No hidden text of an item is read before the end of its games (without the player's own replies, which a
    protocol that repeats the conversation shows back), unless the games of an item without it show it too (then
    it is the family's boilerplate, not this item's secret): :func:`wason.core.leaks.find_leaks`."""
    read: dict[int, str] = {}
    for games in played.values():
        for g in games:
            read[g.seed] = read.get(g.seed, "") + "\n" + readable(g.seen, g.sent)
    secrets = {
        seed: hidden_texts(family, key, item, min_text=MIN_SECRET) for seed, (key, item) in items.items()
    }
    leaks = find_leaks(read, secrets, vocabulary)
    if leaks:
        where = "; ".join(f"seed {leak.game}: {leak.secret[:60]!r}" for leak in leaks[:3])
        return Check("leaks", "FAIL", "a client reads the hidden item before the end: " + where)
    count = sum(len(s) for s in secrets.values())
    return Check("leaks", "ok", f"none of {count} hidden texts of {len(items)} items is read before the end")


@dataclass(frozen=True)
class _Declared:
    """What a family declares for its audit, in the module its configuration names
    (:attr:`~wason.core.family.RunSettings.audit_module`): ``PLAYERS`` (a name to the replies it sends in turn),
    ``hacks(item)`` (a name to the replies of a hack built from the hidden item) and ``public_names()`` (names any
    player may read: item and category names)."""

    players: Mapping[str, Sequence[str]]
    hacks: Callable[..., Mapping[str, Sequence[str]]] | None
    vocabulary: tuple[str, ...]


def _declared(settings_type: type[RunSettings]) -> _Declared:
    name = settings_type.audit_module
    if name is None:
        return _Declared({}, None, ())
    module = importlib.import_module(name)
    vocabulary = getattr(module, "public_names", None)
    return _Declared(
        dict(getattr(module, "PLAYERS", {})),
        getattr(module, "hacks", None),
        tuple(vocabulary()) if callable(vocabulary) else (),
    )


async def audit(
    family: str,
    config: Mapping[str, Any] | None = None,
    *,
    games: int = 5,
    seed: int = 0,
    oracle: Any = None,
) -> list[Check]:
    """Play the audit's players on ``games`` games of ``family`` (its run configuration ``config``, as
    ``wason eval NAME``'s flags); one :class:`Check` per player and for leaks.

    Raises:
        ValueError: ``games`` out of bounds, or a configuration the family refuses (one line).
    """
    if not 1 <= games <= MAX_AUDIT_GAMES:
        raise ValueError(f"games: from 1 to {MAX_AUDIT_GAMES}, not {games}")
    config = dict(config or {})
    probe = await _env(family, config, oracle)
    fam, settings = probe.family, probe.config
    settings_type = type(settings)
    seeds = range(seed, seed + games)
    items: dict[int, tuple[str, Any]] = {}
    openings: dict[int, str] = {}
    for s in seeds:
        opening, _ = await probe.reset(seed=s)
        assert probe.record is not None
        items[s], openings[s] = (probe.record.key, probe.record.item), opening
    await probe.aclose()

    async def each(replies: Replies | None) -> list[_Game]:
        """The games of ``replies`` (the solver's with None); a seed it has no replies for is not played."""
        out = []
        for s in seeds:
            script = None if replies is None else list(replies(s, items[s][1]))
            if script is None or script:
                out.append(await _play(family, config, s, oracle, None if script is None else script))
        return out

    checks: list[Check] = []
    played: dict[str, list[_Game]] = {}
    golden = "solver" if fam.solver(settings, items[seed][1]) is not None else "sample game"
    if golden == "sample game" and not fam.sample_actions(settings, items[seed][1]):
        checks.append(Check("solver", "skip", f"{fam.title} has no reference solver nor sample game"))
    else:
        played[golden] = solver = await each(None)
        lost = [g for g in solver if g.success is not True]
        best = max((g.reward for g in solver), default=0.0)
        if lost:
            where = ", ".join(f"seed {g.seed} ({g.key})" for g in lost[:3])
            checks.append(Check(golden, "FAIL", f"lost {len(lost)} of {len(solver)} games: {where}"))
        else:
            checks.append(Check(golden, "ok", f"won {len(solver)} of {len(solver)} games (reward {best:g})"))

    players: dict[str, Replies] = {"format-breaking": _script([FORMAT_BREAKING])}
    examples = {s: _examples(fam, settings, items[s][1], openings[s]) for s in seeds}
    if any(examples.values()):
        players["prompt's examples"] = lambda seed, item: examples[seed]
    else:
        checks.append(Check("prompt's examples", "skip", "the prompt shows no reply the protocol reads"))
    declared = _declared(settings_type)
    for name, script in declared.players.items():
        players[name] = _script(list(script))
    if declared.hacks is not None:
        two = len(inspect.signature(declared.hacks).parameters) >= 2  # hacks(item, config) where they need it
        made = {
            s: dict(declared.hacks(items[s][1], settings) if two else declared.hacks(items[s][1]))
            for s in seeds
        }
        for name in sorted({n for m in made.values() for n in m}):
            players[f"hack {name}"] = _hack(made, name)
    for name, replies in players.items():
        played[name] = await each(replies)
        checks.append(_floor_check(name, played[name], readable=name != "format-breaking"))
    checks.append(_leak_check(fam, played, items, declared.vocabulary))
    checks.append(_judges_check(played))
    return checks


def _judges_check(played: Mapping[str, Sequence[_Game]]) -> Check:
    """The LLM judge beside the code, where both judged (a family's ``judges`` metric: ``"llm"`` beside the code
    verdict, which is the reward): how often they agree, and how many answers of the players that must never be
    rewarded the LLM judge would have paid. A report: the reward is the code's, so a disagreement fails nothing,
    but a reward built on that LLM judge would pay them."""
    pairs = [
        (name, g)
        for name, games in played.items()
        for g in games
        if g.judges.get("llm") is not None and g.success is not None
    ]
    if not pairs:
        why = "no LLM judge ran beside the code (where a family has one, it runs once its model is named)"
        return Check("judges", "skip", why)
    agree = sum(bool(g.judges["llm"]) == bool(g.success) for _, g in pairs)
    floor = [(n, g) for n, g in pairs if n not in ("solver", "sample game")]
    paid = [(n, g) for n, g in floor if g.judges["llm"] and not g.success]
    where = "; ".join(f"{n} seed {g.seed}" for n, g in paid[:3])
    return Check(
        "judges",
        "ok",
        f"the LLM judge agrees with the code on {agree} of {len(pairs)} judged answers; it would pay {len(paid)} "
        f"of the {len(floor)} answers of players the code never rewards" + (f" ({where})" if where else ""),
    )


def _script(replies: list[str]) -> Replies:
    return lambda seed, item: replies


def _hack(made: Mapping[int, Mapping[str, Sequence[str]]], name: str) -> Replies:
    return lambda seed, item: list(made[seed].get(name) or ())  # an item with no form of the hack: not played
