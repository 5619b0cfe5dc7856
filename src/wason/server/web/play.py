"""Play any registered game in the browser: ``/play`` picks a game, ``/play/{id}`` plays it step by step.

Every game is a session of a human player (:mod:`wason.core.session`); its run records the player as
``human:NAME``, so a person's games are rows of their own beside the models' in ``wason show`` and
``wason grid``. The forms come from the family (:meth:`wason.core.Family.web_form` and
:meth:`~wason.core.Family.web_move`); moves are applied with POST and answered with a redirect to the game
(POST/redirect/GET). The hidden rule is in no page until the game is over.
"""

from __future__ import annotations

import asyncio
import random
import re
import typing
from collections.abc import Mapping
from typing import Any
from urllib.parse import parse_qs

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from pydantic import ValidationError

from wason.core import registry, session
from wason.core.family import EpisodeContext, Family, RunSettings, WebForm, endpoint_fields, model_fields
from wason.core.game import ExternalFailure
from wason.core.public import is_over
from wason.core.records import HUMAN, person_name
from wason.server import offload
from wason.server.allowed import AllowedModels, Refused, allowed_models, own_fields
from wason.server.web.pages import render
from wason.store import Store, StoreError

router = APIRouter()

MAX_BODY = 64_000
MAX_VALUE = 10_000


class PlayError(ValueError):
    """A request the page refuses, with the HTTP status it answers with."""

    def __init__(self, message: str, status: int = 422) -> None:
        super().__init__(message)
        self.status = status


# -- helpers ----------------------------------------------------------------------------------------------
def _store(request: Request) -> Store:
    store: Store = request.app.state.games.store
    return store


async def _form(request: Request) -> dict[str, str]:
    """An urlencoded form body (one value per name), bounded in size."""
    body = await request.body()
    if len(body) > MAX_BODY:
        raise PlayError(f"the form is larger than {MAX_BODY // 1000} kB")
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError:
        raise PlayError("the form is not UTF-8 text") from None
    values = {k: v[0] for k, v in parse_qs(text, keep_blank_values=True).items()}
    for key, value in values.items():
        if len(value) > MAX_VALUE:
            raise PlayError(f"{key}: longer than {MAX_VALUE:,} characters")
    return values


def _one_line(text: str) -> str:
    return " ".join(str(text).split())[:500]


def _playable_families() -> list[Family[Any]]:
    """Every registered family: each has sessions, so each can be played here."""
    return list(registry.families())


def _family(name: str) -> Family[Any]:
    try:
        return registry.get(name)
    except (registry.UnknownFamily, registry.FamilyLoadError) as exc:
        raise PlayError(_one_line(str(exc)), 404) from None


def option_fields(family: Family[Any]) -> list[dict[str, Any]]:
    """The configuration fields a person may set on ``/play``: the family's own, not the files on the server,
    not those ``wason play`` leaves out, not those that matter only to a model or a solver
    (:attr:`~wason.core.family.RunSettings.model_only`), not the models of judges or game masters (a person's
    game is judged by code); each with its label, help and default (the play default)."""
    config_type = family.config_type
    defaults = config_type.with_play_defaults({})
    models = {*model_fields(config_type), *endpoint_fields(config_type)}
    out = []
    for name in own_fields(config_type):
        if name in config_type.not_in_play or name in config_type.model_only or name in models:
            continue
        info = config_type.model_fields[name]
        default = defaults.get(name, info.default)
        choices = _choices(info.annotation)
        out.append(
            {
                "name": name,
                "label": name.replace("_", " "),
                # descriptions are also argparse help, where a percent sign is written twice
                "help": (info.description or "").replace("%%", "%"),
                "value": _shown(default),
                "choices": choices,
                "list": _is_list(info.annotation),
            }
        )
    return out


def _choices(annotation: Any) -> list[str]:
    if typing.get_origin(annotation) is typing.Literal:
        return [str(a) for a in typing.get_args(annotation)]
    if annotation is bool:
        return ["true", "false"]
    return []


def _is_list(annotation: Any) -> bool:
    if typing.get_origin(annotation) in (list, tuple):
        return True
    return any(_is_list(a) for a in typing.get_args(annotation) if a is not type(None))


def _shown(value: Any) -> str:
    if value is None or value is ...:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list | tuple):
        return ",".join(map(str, value))
    return str(value) if isinstance(value, int | float | str) else ""


def _config_fields(family: Family[Any], values: Mapping[str, str], models: AllowedModels) -> dict[str, Any]:
    """The configuration's fields from the form: empty ones keep their default; lists are comma-separated. A
    model (or its address) is not offered, but one sent anyway must be one the server allows."""
    fields: dict[str, Any] = {}
    for spec in option_fields(family):
        raw = values.get(f"opt_{spec['name']}", "").strip()
        if not raw:
            continue
        fields[spec["name"]] = [p.strip() for p in raw.split(",") if p.strip()] if spec["list"] else raw
    config_type = family.config_type
    for name in (*model_fields(config_type), *endpoint_fields(config_type)):
        raw = values.get(f"opt_{name}", "").strip()
        if raw and name not in RunSettings.model_fields:
            fields[name] = raw
    try:
        fields = models.check(config_type, fields)
    except Refused as exc:
        raise PlayError(_one_line(str(exc))) from None
    out: dict[str, Any] = config_type.with_play_defaults(fields)
    return out


def player_name(text: str) -> str:
    try:
        return person_name(text)
    except ValueError as exc:
        raise PlayError(f"player: {exc}") from None


async def _automatic(store: Store, session_id: int) -> None:
    """Apply the game's own moves (a game master preparing examples) before the player is asked."""
    for _ in range(10):
        fam, _, _, live = await session.load(store, session_id)
        automatic = getattr(live.game, "automatic_action", None)
        own = automatic() if callable(automatic) and not live.done else None
        if own is None:
            return
        await session.step(store, session_id, fam.actions.encode(own))


# -- choosing a game --------------------------------------------------------------------------------------
@router.get("/play", response_class=HTMLResponse)
async def play_index(request: Request, family: str | None = None) -> Response:
    """The games, and for the chosen one its options, the item's seed and the player's name."""
    return _index(request, family, {}, None)


def _index(
    request: Request, family: str | None, values: Mapping[str, str], error: str | None, status: int = 200
) -> Response:
    chosen = None
    if family is not None:
        try:
            chosen = _family(family)
        except PlayError as exc:
            error, status = str(exc), exc.status
    return render(
        request,
        "play/index.html",
        status_code=status,
        families=_playable_families(),
        chosen=chosen,
        fields=option_fields(chosen) if chosen is not None else [],
        values=values,
        error=error,
    )


@router.post("/play")
async def play_start(request: Request) -> Response:
    """Start a game of a human player and go to it."""
    try:
        values = await _form(request)
    except PlayError as exc:
        return _index(request, None, {}, str(exc), exc.status)
    name = values.get("family", "")
    try:
        family = _family(name)
        who = player_name(values.get("player", ""))
        # the family's items are made, the game stored and its own first moves applied in a thread: the loop
        # answers meanwhile (nobody knows the game's id yet, so no other move can come between)
        sid = await asyncio.to_thread(
            _start_and_prepare, _store(request), family, values, who, allowed_models(request.app)
        )
    except PlayError as exc:
        return _index(request, name, values, str(exc), exc.status)
    return RedirectResponse(f"/play/{sid}", status_code=303)


def _start_and_prepare(
    store: Store, family: Family[Any], values: Mapping[str, str], who: str, models: AllowedModels
) -> int:
    sid = _start(store, family, values, who, models)
    try:
        asyncio.run(_automatic(store, sid))
    except ExternalFailure as exc:
        raise PlayError(_one_line(f"this game needs a model to start: {exc}"), 424) from None
    return sid


def _start(
    store: Store, family: Family[Any], values: Mapping[str, str], who: str, models: AllowedModels
) -> int:
    fields = _config_fields(family, values, models)
    try:
        config = family.config_type.model_validate({**fields, "player": HUMAN + who})
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(map(str, first["loc"])) or "options"
        raise PlayError(_one_line(f"{where}: {first['msg']}")) from None
    except ValueError as exc:
        raise PlayError(_one_line(str(exc))) from None
    try:
        # completed from the store as `wason play` does (evidence taken from another run)
        config = family.prepare(config, store)
        items = family.items(config)
    except (ValueError, StoreError) as exc:
        raise PlayError(_one_line(str(exc))) from None
    if not items:
        raise PlayError("these options give no game to play")
    item: tuple[str, dict[str, Any]]
    rule = values.get("rule", "").strip()
    seed_text = values.get("seed", "").strip()
    own = values.get("own_rule", "").strip() if family.own_rules else ""
    if sum(map(bool, (rule, seed_text, own))) > 1:
        raise PlayError("give one of a rule of your own, a rule id and a seed, not several")
    if own:
        try:
            item = family.own_rule(config, own)
        except ValueError as exc:
            raise PlayError(_one_line(str(exc))) from None
    elif rule:
        if not rule.isdigit():
            raise PlayError(f"rule: a rule id is a whole number, not {rule[:40]!r}")
        matches = [it for it in items if family.item_id(it[1]) == int(rule)]
        if not matches:
            raise PlayError(f"rule: these options have no rule {rule}")
        item = matches[0]
    else:
        if seed_text and not re.fullmatch(r"-?\d{1,18}", seed_text):
            raise PlayError(f"seed: a whole number, not {seed_text[:40]!r}")
        seed = int(seed_text) if seed_text else random.SystemRandom().randrange(10**9)
        item = random.Random(seed).choice(items)
    try:
        return session.start(store, family.name, config, item=item, player=HUMAN + who)
    except ExternalFailure as exc:
        raise PlayError(_one_line(f"this game needs a model to start: {exc}"), 424) from None
    except ValueError as exc:
        raise PlayError(_one_line(str(exc))) from None


# -- playing ------------------------------------------------------------------------------------------------
def _session_id(text: str) -> int:
    if not text.isascii() or not text.isdigit() or len(text) > 18:
        raise PlayError(f"no game {text[:40]!r}: a game id is a number", 404)
    return int(text)


async def _game(store: Store, session_id: int) -> tuple[Family[Any], RunSettings, Any, session.Session]:
    try:
        episode = store.get_episode(session_id)
        run = store.get_run(episode.run_id)
    except StoreError:
        raise PlayError(f"no game {session_id}", 404) from None
    if not run.player.startswith(HUMAN):
        raise PlayError(f"game {session_id} is not played by a person (its player is {run.player})", 404)
    try:
        fam, cfg, episode, live = await session.load(store, session_id)
    except ExternalFailure as exc:
        raise PlayError(_one_line(f"this game cannot be restored here: {exc}"), 424) from None
    except session.SessionDiverged as exc:
        raise PlayError(_one_line(str(exc)), 409) from None
    return fam, cfg, episode, live


@router.get("/play/{session_id}", response_class=HTMLResponse)
async def play_game(request: Request, session_id: str) -> Response:
    """The game so far and the moves open now; the rule, verdict and judge's findings once it is over."""
    return await _page(request, session_id, None, {}, 200)


async def _page(
    request: Request, session_id: str, error: str | None, values: Mapping[str, str], status: int
) -> Response:
    store = _store(request)
    try:
        sid = _session_id(session_id)
        # restoring the game replays (and judges again) its moves: by a move worker, as a move is
        context = await offload.move(request.app, store, None, _page_context, sid)
    except PlayError as exc:
        return render(request, "play/error.html", status_code=exc.status, error=str(exc))
    family = registry.get(context.pop("family"))
    return render(
        request, "play/game.html", status_code=status, family=family, error=error, values=values, **context
    )


def _page_context(store: Store, sid: int) -> dict[str, Any]:
    """What the game's page shows (in a move worker): everything but the family, named by its name."""
    return asyncio.run(_context(store, sid))


async def _context(store: Store, sid: int) -> dict[str, Any]:
    fam, cfg, episode, live = await _game(store, sid)
    run = store.get_run(episode.run_id)
    turns = store.list_turns(sid)
    intro = fam.web_form(cfg, episode.item, _start_observation(fam, cfg, episode), 0).prompt
    said = fam.web_history(cfg, episode.item, turns)
    history = [
        {
            "move": action_words(fam, t["action"]),
            "feedback": text,
            "reply": t["reply"],
        }
        for t, text in zip(turns, said, strict=True)
    ]
    over = live.done or is_over(episode.status)
    form: WebForm | None = None
    prompt = ""
    if not over:
        form = fam.web_form(cfg, episode.item, live.observation, live.turn)
        if live.turn and form.prompt.strip() and (not history or form.prompt != history[-1]["feedback"]):
            prompt = form.prompt
    outcome = live.outcome() if live.done else None
    ending: list[str] = []
    if over:
        ending = [line.strip("\n") for line in fam.ending(episode.item, outcome.metrics if outcome else None)]
    return {
        "family": fam.name,
        "session_id": sid,
        "run": run,
        "player": run.player[len(HUMAN) :],
        "episode": episode,
        "turn": live.turn,
        "intro": intro,
        "history": history,
        "prompt": prompt,
        "form": form,
        "over": over,
        "left": episode.status == "errored",
        "reason": episode.error,
        "success": outcome.success if outcome else None,
        "metrics": outcome.metrics if outcome else None,
        "ending": ending,
        "item": episode.item if over else None,
    }


def _start_observation(fam: Family[Any], cfg: RunSettings, episode: Any) -> Any:
    """What the player saw at the start: a new game's first observation (games are deterministic)."""
    return fam.game(cfg, episode.item, EpisodeContext(run_id=episode.run_id, episode_id=episode.id)).start()


def action_words(family: Family[Any] | None, action: Mapping[str, Any]) -> str:
    """A stored move in the player's words, as the Play and Watch pages both show it: the family's own wording
    (:meth:`Family.describe_action`), else its kind and values."""
    said = family.describe_action(action) if family is not None else None
    return said or describe_action(action)


def describe_action(action: Mapping[str, Any]) -> str:
    """A stored action in words: its kind and its values (``Propose test: 1, 2, 3``)."""
    kind = str(action.get("type", "move"))
    words = re.sub(r"(?<!^)(?=[A-Z])", " ", kind).lower().capitalize()
    parts = []
    for key, value in action.items():
        if key == "type" or value in (None, "", [], ()):
            continue
        listed = isinstance(value, list | tuple)
        part = ", ".join("?" if v is None else str(v) for v in value) if listed else str(value)
        if part not in parts:  # a move that keeps its text twice (as typed and as read) says it once
            parts.append(part)
    return f"{words}: {'; '.join(parts)}" if parts else words


@router.post("/play/{session_id}")
async def play_move(request: Request, session_id: str) -> Response:
    """One move from the page's form; back to the game (or the page with one message when refused)."""
    try:
        values = await _form(request)
    except PlayError as exc:
        return await _page(request, session_id, str(exc), {}, exc.status)
    store = _store(request)
    try:
        sid = _session_id(session_id)
        # by a move worker, after the game's earlier moves (offload.move): the loop answers meanwhile
        await offload.move(request.app, store, sid, _move_now, sid, values)
    except PlayError as exc:
        return await _page(request, session_id, str(exc), values, exc.status)
    return RedirectResponse(f"/play/{sid}", status_code=303)


def _move_now(store: Store, sid: int, values: Mapping[str, str]) -> None:
    asyncio.run(_move(store, sid, values))


async def _move(store: Store, sid: int, values: Mapping[str, str]) -> None:
    fam, cfg, episode, live = await _game(store, sid)
    if live.done or episode.status != "running":
        raise PlayError("this game is over; start a new one from Play", 409)
    if not values.get("turn", "").isdigit():
        raise PlayError("turn: the form's move number is missing (send the page's form as it is)")
    if values["turn"] != str(live.turn):
        raise PlayError(
            "the game moved on since this page was shown (another tab?); here it is as it is now", 409
        )
    move = values.get("move", "")
    fields = {k[2:]: v for k, v in values.items() if k.startswith("f_")}
    try:
        action = fam.web_move(cfg, episode.item, live.observation, move, fields)
    except ValueError as exc:
        raise PlayError(_one_line(str(exc))) from None
    try:
        if isinstance(action, str):
            await session.step(store, sid, text=action)
        else:
            await session.step(store, sid, action)
        await _automatic(store, sid)
        if (await session.view(store, sid))["done"]:
            _close(store, sid)
    except session.SessionError as exc:
        text = _one_line(str(exc))
        raise PlayError(text, 409 if "is over" in text or "moved on" in text else 422) from None
    except ExternalFailure as exc:
        raise PlayError(
            _one_line(f"this move needs a model, and games here are judged by code: {exc}"), 424
        ) from None


def _close(store: Store, session_id: int) -> None:
    """A game that is over closes its run (a person's run is one game), as the terminal's does."""
    session.close(store, session_id)


@router.post("/play/{session_id}/quit")
async def play_quit(request: Request, session_id: str) -> Response:
    """Leave the game: it ends (as a person's ``quit`` at the terminal does) and the rule is shown."""
    store = _store(request)
    try:
        sid = _session_id(session_id)
        await offload.move(request.app, store, sid, _quit_now, sid)
    except PlayError as exc:
        return await _page(request, session_id, str(exc), {}, exc.status)
    return RedirectResponse(f"/play/{sid}", status_code=303)


def _quit_now(store: Store, sid: int) -> None:
    asyncio.run(_quit(store, sid))


async def _quit(store: Store, sid: int) -> None:
    _, _, episode, live = await _game(store, sid)
    if live.done or episode.status != "running":
        raise PlayError("this game is over already", 409)
    live.fail("gave up: left the game")
    _close(store, sid)


__all__ = ["HUMAN", "action_words", "describe_action", "option_fields", "player_name", "router"]
