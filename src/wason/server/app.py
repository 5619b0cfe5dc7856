"""The HTTP API of ``wason serve``: generic sessions under ``/api/``, the published guess-the-rule routes.

Every game is a session in the store (:mod:`wason.core.session`), so a game started here can be looked at with
``wason session view ID`` and the other way round. Errors are JSON with the field at fault::

    {"error": "n_examples must be at least 1, got -3", "field": "n_examples", "kind": "invalid",
     "detail": [{"loc": ["n_examples"], "msg": "...", "type": "invalid"}]}

On the published routes (``/guess-the-rule/...``) ``detail`` is the message itself, a string, as the reference
backend's ``HTTPException(detail=str(e))`` gives it and its web app shows it; ``error``, ``field`` and ``kind`` are
the same there.

422 for bad input (FastAPI's own validation errors have the same ``error``/``field`` keys added), 404 for an
unknown game or session, 409 for acting on a finished game or a step another request stored first, 424 when an
action needs a model and none is attached (games here are judged by code), 500 with one line (the traceback goes
to the server's log only).
"""

from __future__ import annotations

import asyncio
import logging
import random
from typing import Annotated, Any

from fastapi import FastAPI, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    StrictInt,
    StrictStr,
    ValidationError,
)

from wason.core import registry, session
from wason.core.family import Family
from wason.core.game import ExternalFailure
from wason.games import MAX_GUESS_CHARS, GameError, Games, NeedsModel, UnknownGame, game_apis, parse_game_id
from wason.server import gameplay, guard, offload
from wason.server.allowed import AllowedModels, Refused, allowed_models, names_a_file, own_fields
from wason.server.guard import is_published_error
from wason.server.web import auth, browse, play, watch
from wason.server.web.pages import render
from wason.store import Store, StoreError

log = logging.getLogger("wason.server")

MAX_TEXT_CHARS = 100_000
"""The longest text reply accepted by the generic step route."""


# -- request bodies ---------------------------------------------------------------------------------------
def _count(value: Any) -> Any:
    """A count sent as a string of digits (the reference's clients do) is that number; the rest is left to the
    field's own check (a whole number, never a boolean or a float)."""
    if isinstance(value, str):
        text = value.strip()
        digits = text[1:] if text[:1] == "-" else text
        if digits.isascii() and digits.isdigit() and len(digits) <= 30:
            return int(text)
    return value


def _id(value: Any) -> Any:
    """A game id sent as a number is its string."""
    return str(value) if isinstance(value, int) and not isinstance(value, bool) else value


def _unicode(value: Any) -> Any:
    """Refuse text that is not Unicode anywhere in a JSON object, its keys included: a lone surrogate, which
    JSON's ``\\u`` escapes can carry, could be neither stored nor sent back (pydantic refuses it in a string
    field; this is for the objects passed on as they are)."""
    pending = [value]
    while pending:
        item = pending.pop()
        if isinstance(item, str):
            try:
                item.encode("utf-8")
            except UnicodeEncodeError:
                raise ValueError("text must be Unicode (this holds a lone surrogate)") from None
        elif isinstance(item, dict):
            pending.extend(item)
            pending.extend(item.values())
        elif isinstance(item, list):
            pending.extend(item)
    return value


Count = Annotated[StrictInt, BeforeValidator(_count)]
JsonObject = Annotated[dict[str, Any], AfterValidator(_unicode)]
GameId = Annotated[StrictStr, BeforeValidator(_id), Field(max_length=100)]


class CreateGame(BaseModel):
    """``POST /guess-the-rule/game`` (the reference sends ``num_init_examples`` as a string)."""

    model_config = ConfigDict(extra="ignore")

    game_name: StrictStr = Field(max_length=100)
    difficulty: StrictStr = Field(max_length=20)
    num_init_examples: Count
    player: StrictStr | None = Field(default=None, max_length=1000)
    seed: StrictInt | None = None


class ValidateGuess(BaseModel):
    """``POST /guess-the-rule/game/validate_guess``."""

    model_config = ConfigDict(extra="ignore")

    game_id: GameId
    guess: StrictStr = Field(max_length=MAX_GUESS_CHARS)


class StartSession(BaseModel):
    """``POST /api/sessions``: a family, its configuration's own fields, and which item (index or seed)."""

    model_config = ConfigDict(extra="forbid")

    family: StrictStr = Field(max_length=100)
    config: JsonObject = Field(default_factory=dict)
    index: StrictInt | None = Field(default=None, ge=0)
    seed: StrictInt | None = None


class StepSession(BaseModel):
    """``POST /api/sessions/{id}/step``: an action as JSON, or a reply as a model writes it (one of them)."""

    model_config = ConfigDict(extra="forbid")

    action: JsonObject | None = None
    text: StrictStr | None = Field(default=None, max_length=MAX_TEXT_CHARS)


# -- errors -----------------------------------------------------------------------------------------------
def _error(
    request: Request,
    status: int,
    message: str,
    field: str | None,
    kind: str,
    loc: list[Any] | None = None,
) -> JSONResponse:
    detail: Any = [
        {"loc": loc if loc is not None else ([field] if field else []), "msg": message, "type": kind}
    ]
    if is_published_error(request.url.path):
        # the reference's shape, text its web app shows; it names the field when the message does not
        named = field is None or field.split(".")[-1] in message
        detail = message if named else f"{field}: {message}"
    return JSONResponse(
        status_code=status, content={"error": message, "field": field, "kind": kind, "detail": detail}
    )


def _one_line(text: str) -> str:
    return " ".join(text.split())[:500]


def _fresh_seed() -> int:
    return random.SystemRandom().randrange(2**63)


async def _game_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, GameError)  # registered for GameError only
    return _error(request, exc.status, _one_line(str(exc)), exc.field, exc.kind)


async def _validation_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, RequestValidationError)  # registered for it only
    detail = []
    for e in exc.errors():
        loc = [p if isinstance(p, int | str) else str(p) for p in e.get("loc", ())]
        detail.append({"loc": loc, "msg": str(e.get("msg", "")), "type": str(e.get("type", ""))})
    # the field is the first part of the location that is not where it came from (body, query, path)
    first = detail[0]["loc"] if detail else []
    named = [p for p in first if p not in ("body", "query", "path")]
    field = ".".join(map(str, named)) or None
    message = "; ".join(
        f"{'.'.join(str(p) for p in d['loc'] if p not in ('body', 'query', 'path')) or 'body'}: {d['msg']}"
        for d in detail
    )
    shown: Any = _one_line(message) if is_published_error(request.url.path) else detail
    return JSONResponse(
        status_code=422,
        content={"error": _one_line(message), "field": field, "kind": "invalid", "detail": shown},
    )


async def _diverged(request: Request, exc: Exception) -> JSONResponse:
    return _error(request, 409, _one_line(str(exc)), None, "diverged")


async def _busy(request: Request, exc: Exception) -> Response:
    """Too many pages being built (:class:`wason.server.offload.Busy`): 503, a page for a browser."""
    headers = {"Retry-After": "5"}
    if "text/html" in request.headers.get("accept", ""):
        page = render(
            request,
            "browse/error.html",
            status_code=503,
            message=str(exc),
            static_report=False,
            links=browse.Links(),
        )
        page.headers.update(headers)
        return page
    content: dict[str, Any] = {"error": str(exc), "field": None, "kind": "busy"}
    if is_published_error(request.url.path):
        content["detail"] = str(exc)
    return JSONResponse(status_code=503, content=content, headers=headers)


async def _internal_error(request: Request, exc: Exception) -> JSONResponse:
    log.error("%s %s failed", request.method, request.url.path, exc_info=exc)
    message = "internal server error (the server's log has the details)"
    content: dict[str, Any] = {"error": message, "kind": "internal"}
    if is_published_error(request.url.path):
        content["detail"] = message
    return JSONResponse(status_code=500, content=content)


# -- the generic sessions API -----------------------------------------------------------------------------
def describe_family(family: Family[Any]) -> dict[str, Any]:
    game_api = family.game_api()
    try:
        schema: dict[str, Any] | None = family.config_type.model_json_schema()
    except Exception:  # a field type JSON schema cannot describe: the list of fields still says what to send
        schema = None
    return {
        "name": family.name,
        "title": family.title,
        "summary": family.summary,
        "fields": own_fields(family.config_type),
        "config_schema": schema,
        "game_name": game_api.game_name if game_api is not None else None,
        "levels": list(game_api.levels) if game_api is not None else None,
    }


def _family(name: str) -> Family[Any]:
    try:
        return registry.get(name)
    except (registry.UnknownFamily, registry.FamilyLoadError) as exc:
        raise GameError(_one_line(str(exc)), "family") from None


def _session_id(text: str) -> int:
    if not text.isascii() or not text.isdigit() or len(text) > 18:
        raise UnknownGame(f"no session {text[:40]!r}: a session id is a number", "session")
    return int(text)


def _check_exists(store: Store, session_id: int) -> None:
    try:
        store.get_episode(session_id)
    except StoreError:
        raise UnknownGame(f"no session {session_id}", "session") from None


def _session_error(exc: session.SessionError) -> GameError:
    """A session's refusal as an HTTP error: 409 when the game is over or moved on, else bad input."""
    text = _one_line(str(exc))
    # the session module says why in words: these three are about the game's state, not the request
    if any(s in text for s in ("is over", "moved on", "cannot be played on")):
        conflict = GameError(text, "session")
        conflict.status, conflict.kind = 409, "conflict"
        return conflict
    return GameError(text, "action")


def _mount_pages(app: FastAPI) -> None:
    """Serve the packaged assets under ``/static`` and every page router of the web app."""
    app.mount("/static", StaticFiles(packages=[("wason.server", "static")]), name="static")
    app.include_router(browse.router)
    app.include_router(play.router)
    auth.install(app)
    watch.install(app)


def create_app(store: Store | str | None = None, *, models: AllowedModels | None = None) -> FastAPI:
    """The app over ``store`` (a :class:`Store`, a URL or path; default ``$WASON_DB`` or ``wason.db``).

    ``models`` are the models a configuration sent to it may name (default: the embedded model only); each is
    called at the endpoint, and with the key, it was configured with (:mod:`wason.server.allowed`)."""
    games = Games(store)
    db = games.store
    app = FastAPI(
        # FastAPI's /docs and /redoc pages load their scripts from a CDN; every asset here is packaged, so
        # they are off (the schema stays at /openapi.json)
        docs_url=None,
        redoc_url=None,
        title="wason",
        summary="Rule-discovery games as sessions: a generic API for every family, and the published "
        "guess-the-rule routes.",
    )
    app.state.games = games
    app.state.models = models if models is not None else AllowedModels()
    app.add_exception_handler(GameError, _game_error)
    app.add_exception_handler(RequestValidationError, _validation_error)
    app.add_exception_handler(session.SessionDiverged, _diverged)
    app.add_exception_handler(offload.Busy, _busy)
    app.add_exception_handler(Exception, _internal_error)
    _mount_pages(app)
    gameplay.install(app)
    guard.install(app)  # last, so it runs first: allowed hosts and origins, the body limit
    _install_session_routes(app, db)
    _install_published_routes(app, games, db)
    return app


def _install_session_routes(app: FastAPI, db: Store) -> None:
    """The generic sessions API under ``/api/``: families, models, and a session's start, view, move and summary."""

    @app.get("/api/families")
    async def list_families() -> dict[str, Any]:
        """Every registered family: name, title, the configuration fields a session may set, its schema."""
        return {"families": [describe_family(f) for f in registry.families()]}

    @app.get("/api/models")
    async def list_models() -> dict[str, Any]:
        """The models a configuration sent here may name (the operator's ``wason serve --model``; never their
        addresses or keys)."""
        return {"models": allowed_models(app).specs()}

    @app.post("/api/sessions", status_code=201)
    async def start_session(body: StartSession) -> dict[str, Any]:
        """Start a game of any family; returns the player's view (the hidden rule stays in the store)."""
        family = _family(body.family)
        config = _session_config(app, family, body.config)
        if body.index is not None and body.seed is not None:
            raise GameError("give index or seed, not both", "index")
        try:
            # with neither index nor seed the game is drawn at random (as /play and the published routes do), so
            # that nobody can draw the same game again to learn its rule while it is played
            seed = body.seed if body.seed is not None or body.index is not None else _fresh_seed()
            # the family's items are made and the game stored in a thread: the loop answers meanwhile
            session_id = await asyncio.to_thread(
                session.start, db, family.name, config, index=body.index, seed=seed
            )
        except ValidationError as exc:
            raise _config_error(exc, set(own_fields(family.config_type))) from None
        except session.SessionError as exc:
            raise GameError(_one_line(str(exc)), "index") from None
        except ExternalFailure as exc:
            raise NeedsModel(_one_line(f"{family.name} needs a model to start: {exc}"), "config") from None
        except ValueError as exc:
            raise GameError(_one_line(str(exc)), "config") from None
        # the first view in a thread too (not by the move workers: the game is stored, so it is not refused now)
        return await asyncio.to_thread(_read, db, session_id, False)

    @app.get("/api/sessions/{session_id}")
    async def view_session(session_id: str) -> dict[str, Any]:
        """What the player sees now; the hidden parts of the item only once the game is over."""
        sid = _session_id(session_id)
        _check_exists(db, sid)
        # restoring a game replays (and judges again) its moves: off the loop, as a move is
        return await offload.move(app, db, None, _read, sid, False)

    @app.post("/api/sessions/{session_id}/step")
    async def step_session(session_id: str, body: StepSession) -> dict[str, Any]:
        """One move: ``{"action": {...}}`` or ``{"text": "..."}``."""
        sid = _session_id(session_id)
        if (body.action is None) == (body.text is None):
            raise GameError("give an action or a text reply (one of them)", "action")
        _check_exists(db, sid)
        # by a move worker, after the session's earlier moves (offload.move): the loop answers meanwhile
        return await offload.move(app, db, sid, _step, sid, body.action, body.text)

    @app.get("/api/sessions/{session_id}/summary")
    async def summarize_session(session_id: str) -> dict[str, Any]:
        """The result: status and, once the game is over, its outcome and the whole item."""
        sid = _session_id(session_id)
        _check_exists(db, sid)
        return await offload.move(app, db, None, _read, sid, True)


def _session_config(app: FastAPI, family: Family[Any], fields: dict[str, Any]) -> dict[str, Any]:
    """The configuration a client sent for a session of ``family``: its own fields only, no file on the server,
    and only models this server allows."""
    allowed = set(own_fields(family.config_type))
    for key in fields:
        if names_a_file(family.config_type, key):
            raise GameError(
                f"config.{key} names a file on the server, which is not accepted over HTTP",
                f"config.{key}",
            )
        if key not in allowed:
            raise GameError(
                f"config.{key} is not a field of {family.name} (its fields: {', '.join(sorted(allowed))})",
                f"config.{key}",
            )
    try:
        return allowed_models(app).check(family.config_type, fields, prefix="config.")
    except Refused as exc:
        raise GameError(_one_line(str(exc)), exc.field) from None


def _config_error(exc: ValidationError, allowed: set[str]) -> GameError:
    """A configuration the family refused when it made the game, as a 422 naming the field (``config.FIELD``)."""
    first = exc.errors()[0]
    loc, msg = [str(p) for p in first["loc"]], str(first["msg"]).removeprefix("Value error, ")
    named = msg.split(":", 1)[0]
    if not loc and named in allowed:  # a check across fields says first which field to change
        loc, msg = [named], msg.split(":", 1)[1].strip()
    field = ".".join(["config", *loc])
    return GameError(_one_line(f"{field}: {msg}"), field)


def _install_published_routes(app: FastAPI, games: Games, db: Store) -> None:
    """The published guess-the-rule routes (``/guess-the-rule/...``), over :class:`Games`."""

    @app.get("/guess-the-rule/games")
    async def list_games() -> dict[str, Any]:
        """The published game names this server plays, with their levels (not a reference route)."""
        return {
            "games": [
                {"game_name": name, "levels": list(game_api.levels), "family": family.name}
                for name, (family, game_api) in sorted(game_apis().items())
            ]
        }

    @app.post("/guess-the-rule/game")
    async def create_game(body: CreateGame) -> dict[str, Any]:
        """Create a game: ``{game_name, difficulty, num_init_examples, player?, seed?}``."""
        return await games.create(
            body.game_name, body.difficulty, body.num_init_examples, seed=body.seed, player=body.player
        )

    @app.post("/guess-the-rule/game/validate_guess")
    async def validate_guess(body: ValidateGuess) -> dict[str, Any]:
        """Judge a guess: ``{game_id, guess}``."""
        sid = parse_game_id(body.game_id)
        return await offload.move(app, db, sid, _published_guess, body.game_id, body.guess)

    @app.get("/guess-the-rule/game/{game_id}")
    async def game_summary(game_id: str, include_rule: Annotated[bool, Query()] = False) -> dict[str, Any]:
        """The summary; the rule only once the game is over (``include_rule=true`` before that is a 409)."""
        parse_game_id(game_id)
        return await offload.move(app, db, None, _published_summary, game_id, include_rule)

    @app.get("/guess-the-rule/game/{game_id}/examples")
    async def more_examples(game_id: str, n_examples: Annotated[int, Query()] = 1) -> dict[str, Any]:
        """``n_examples`` more examples (positive and negative, as the game gives them)."""
        sid = parse_game_id(game_id)
        return await offload.move(app, db, sid, _published_more, game_id, n_examples)


# -- the work of a move, in a move worker (a thread, or a process of wason serve: offload.move) ---------------
# Each restores the game from the store, so it runs anywhere the store can be opened; what it raises is one of the
# errors the app answers (a GameError, SessionDiverged), which cross a process boundary as they are.
def _step(store: Store, session_id: int, action: dict[str, Any] | None, text: str | None) -> dict[str, Any]:
    """One move of a session, as ``POST /api/sessions/{id}/step`` takes it."""
    try:
        if text is not None:
            return asyncio.run(session.step(store, session_id, text=text))
        return asyncio.run(session.step(store, session_id, action))
    except session.SessionError as exc:
        raise _session_error(exc) from None
    except ExternalFailure as exc:
        raise NeedsModel(
            _one_line(f"this move needs a model, and sessions here are judged by code only: {exc}"), "action"
        ) from None


def _read(store: Store, session_id: int, summary: bool) -> dict[str, Any]:
    """A session's view (or summary), with a game the server cannot rebuild (it needs a model) as a 424."""
    try:
        return asyncio.run(session.summary(store, session_id) if summary else session.view(store, session_id))
    except ExternalFailure as exc:
        raise NeedsModel(_one_line(f"this session cannot be restored here: {exc}"), "session") from None


def _published_guess(store: Store, game_id: str, guess: str) -> dict[str, Any]:
    return asyncio.run(Games(store).validate_guess(game_id, guess))


def _published_more(store: Store, game_id: str, n_examples: int) -> dict[str, Any]:
    return asyncio.run(Games(store).more(game_id, n_examples))


def _published_summary(store: Store, game_id: str, include_rule: bool) -> dict[str, Any]:
    return asyncio.run(Games(store).summary(game_id, include_rule=include_rule))
