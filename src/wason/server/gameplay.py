"""``GET /guess-the-rule/llm-gameplay``: a model plays one published game, streamed as the reference's web app
reads it (its "watch GPT-4o play").

The reference backend (``app/views.py`` and its llm_gameplay module) streams JSON objects
``{"id", "sender", "content"}`` with ``sender`` ``SYSTEM`` (the host) or ``USER`` (the model), written back to
back with nothing between them; its web app (``frontend/src/services/gameService.ts``) splits what it receives on
newlines, so it could parse only a stream of one message. Here each message is one line of JSON followed by
``\\n`` (JSON Lines, ``application/x-ndjson``), which that app parses message by message. The app marks the game
lost on a message containing "game over!" and won on one containing "guessed the rule correctly!"; the last
message says one of them.

The game is a run in the store like one started from ``/watch`` (played in a thread of its own, every turn recorded,
``wason show RUN``), of the named game (the reference always played its first game, whatever was named) through the
family's own protocol. The model is the operator's: one given to ``wason serve --model SPEC``, never one named by
the request. The request's ``player`` only chooses among those by name (``gpt-4o`` chooses ``openai:gpt-4o``); any
other name plays the first ``--model``. Without one the route is a 424. The model makes at most :data:`MAX_TURNS`
moves (the reference's ``max_turns=5``); then the game is given up for it. What is streamed before the game is over
is what the model was shown and what it replied, never the rule; the last message names the rule, as the reference's
does.
"""

from __future__ import annotations

import asyncio
import json
import logging
import random
from collections.abc import AsyncIterator
from typing import Annotated, Any

from fastapi import APIRouter, FastAPI, Query, Request
from fastapi.responses import StreamingResponse

from wason.core.game import ExternalFailure, Move, Player
from wason.core.public import is_over
from wason.games import GameError, NeedsModel, game_apis, parse_count
from wason.models.spec import Endpoint
from wason.redaction import redact
from wason.server.allowed import AllowedModels, allowed_models
from wason.server.web import auth
from wason.server.web.watch import MAX_WATCHED, FormError, Plan, start_run, watches
from wason.store import Store

log = logging.getLogger("wason.server.gameplay")

MAX_TURNS = 5
"""The model's moves in one game (the reference's ``max_turns``); then the game is given up for it."""
MAX_MESSAGE_CHARS = 20_000
"""The longest message streamed (a model's reply is cut there; the store keeps it whole)."""
POLL_SECONDS = 0.25
MEDIA_TYPE = "application/x-ndjson"

TURN_LIMIT = "Turn limit reached ({limit} moves): the game is given up."
WON = "{model} model guessed the rule correctly!"
LOST = "Game over! The rule was: {rule}"
ERRORED = "Error during LLM interaction: {error}"
STOPPED = "Game over! The game was stopped before it ended."


class Narrated:
    """The model's player, telling :attr:`messages` what it is shown and what it replies (the stream reads
    them), and giving up after ``limit`` moves. It runs in the run's thread; the stream only reads the list."""

    def __init__(self, inner: Player[Any, Any], protocol: Any, give_up: Any, limit: int) -> None:
        self.inner, self.protocol, self.give_up, self.limit = inner, protocol, give_up, limit
        self.moves = 0
        self.messages: list[tuple[str, str]] = []

    def _shown(self, observation: Any) -> str:
        if self.moves > 0:
            return str(self.protocol.feedback(observation))
        parts = [self.protocol.system_prompt()]
        first = getattr(self.protocol, "first_message", None)
        if callable(first):
            parts.append(first(observation))
        return "\n\n".join(str(p) for p in parts if p)

    async def act(self, observation: Any) -> Move[Any]:
        if self.moves > self.limit:
            # the game did not end when it was given up: stop here (the episode is recorded as errored)
            raise RuntimeError(f"the game went on after it was given up at the turn limit ({self.limit})")
        self.messages.append(("SYSTEM", self._shown(observation)))
        if self.moves == self.limit:
            self.moves += 1
            self.messages.append(("SYSTEM", TURN_LIMIT.format(limit=self.limit)))
            return Move(action=self.give_up, reply=None, meta={"turn_limit": self.limit})
        move = await self.inner.act(observation)
        self.moves += 1
        self.messages.append(("USER", move.reply if move.reply is not None else str(move.action)))
        return move


def _refused(message: str, field: str | None, status: int, kind: str) -> GameError:
    error = GameError(message, field)
    error.status, error.kind = status, kind
    return error


def _operator_model(models: AllowedModels, player: str | None) -> Endpoint:
    """The operator's model the request's ``player`` names (by spec or by the model's own name), else the first
    one given to ``wason serve --model``. Raises :class:`NeedsModel` when there is none."""
    operator = models.endpoints[1:]  # the first is the embedded model, always allowed, never chosen here
    if not operator:
        raise NeedsModel(
            "this server plays no model: its operator starts it with wason serve --model SPEC [--base-url URL] "
            "for the llm gameplay",
            "player",
        )
    wanted = (player or "").strip().lower()
    for endpoint in operator:
        spec = endpoint.spec.lower()
        if wanted and wanted in (spec, spec.split(":", 1)[-1]):
            return endpoint
    return operator[0]


def _message(n: int, sender: str, content: str) -> bytes:
    text = json.dumps({"id": n, "sender": sender, "content": content[:MAX_MESSAGE_CHARS]}, ensure_ascii=False)
    return (text + "\n").encode()


async def _stream(
    request: Request, store: Store, run_id: int, narrated: list[Narrated], rule: Any, model: str
) -> AsyncIterator[bytes]:
    """The messages as the model is shown them and replies, then the end."""
    watched = watches(request.app).runs[run_id]
    sent = 0
    try:
        while True:
            ended = watched.played.is_set() or watched.ended.is_set()
            messages = narrated[0].messages if narrated else []
            while sent < len(messages):
                sender, content = messages[sent]
                sent += 1
                yield _message(sent, sender, content)
            if ended:
                break
            if await request.is_disconnected():
                watched.cancel()  # nobody watches: the model is not asked again (the run is left interrupted)
                return
            await asyncio.sleep(POLL_SECONDS)
        episodes = await asyncio.to_thread(store.list_episodes, run_id)
        episode = episodes[0] if episodes else None
        if episode is None or not is_over(episode.status):
            end = (
                STOPPED if watched.stopped else ERRORED.format(error=watched.error or "the game did not end")
            )
        elif episode.status == "errored":
            first = (episode.error or watched.error or "unknown error").split("Traceback")[0]
            end = ERRORED.format(error=" ".join(redact(first).split())[:500])
        elif episode.success:
            end = WON.format(model=model)
        else:
            end = LOST.format(rule=rule(episode.item))
        yield _message(sent + 1, "SYSTEM", end)
    except asyncio.CancelledError:
        watched.cancel()
        raise


router = APIRouter()


@router.get("/guess-the-rule/llm-gameplay")
async def llm_gameplay(
    request: Request,
    game_name: Annotated[str, Query(max_length=100)],
    difficulty: Annotated[str, Query(max_length=20)],
    num_init_examples: Annotated[str, Query(max_length=20)] = "2",
    player: Annotated[str | None, Query(max_length=200)] = None,
) -> StreamingResponse:
    """Stream a model's game (JSON Lines of ``{id, sender, content}``); 424 when the server plays no model."""
    token = auth.server_token(request.app)
    if token is not None and not auth.matches(auth.given_token(dict(request.scope["headers"])), token):
        # it spends the operator's money, so it asks for the token as a write does
        raise _refused(auth.MESSAGE, "token", 401, "unauthorized")
    known = game_apis()
    if game_name not in known:
        names = ", ".join(sorted(known)) or "none registered"
        raise GameError(f"unknown game_name {game_name[:60]!r}; known: {names}", "game_name")
    family, game_api = known[game_name]
    level = next((lv for lv in game_api.levels if lv.lower() == difficulty.strip().lower()), None)
    if level is None:
        raise GameError(
            f"difficulty must be one of {', '.join(game_api.levels)}, got {difficulty[:20]!r}", "difficulty"
        )
    n = parse_count(num_init_examples, "num_init_examples")
    models = allowed_models(request.app)
    endpoint = _operator_model(models, player)
    if len(watches(request.app).active()) >= MAX_WATCHED:
        raise _refused(
            f"this server already plays {MAX_WATCHED} runs; wait for one to end", None, 429, "busy"
        )
    store: Store = request.app.state.games.store
    seed = random.SystemRandom().randrange(2**31)
    narrated: list[Narrated] = []

    def plan() -> Plan:
        try:
            config, item = game_api.create(level, n, seed)
        except ValueError as exc:
            raise GameError(" ".join(str(exc).split())[:500], "num_init_examples") from None
        except ExternalFailure as exc:
            raise NeedsModel(f"{game_name} cannot be created here: {exc}") from None
        config = family.config_type.model_validate(
            {**config.model_dump(), "player": "llm", "model": endpoint.spec, "base_url": endpoint.base_url}
        )

        def wrap(inner: Player[Any, Any], game_item: dict[str, Any]) -> Player[Any, Any]:
            player = Narrated(inner, family.protocol(config, game_item), game_api.guess("give up"), MAX_TURNS)
            narrated.append(player)
            return player

        return Plan(family, config, item, 0.0, models, wrap=wrap)

    try:
        made = await asyncio.to_thread(plan)
        run_id = start_run(request.app, store, made)
    except FormError as exc:
        raise NeedsModel(f"the model cannot be called: {exc}", "player") from None
    log.info("llm gameplay: run %s, %s %s, model %s", run_id, game_name, level, endpoint.spec)
    return StreamingResponse(
        # the model's name as the reference's messages say it (gpt-4o, not openai:gpt-4o)
        _stream(request, store, run_id, narrated, game_api.rule_text, endpoint.spec.split(":", 1)[-1]),
        media_type=MEDIA_TYPE,
        headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no", "X-Wason-Run": str(run_id)},
    )


def install(app: FastAPI) -> None:
    """Add the route (the runs it starts are the watch page's: stopped with the server, counted together)."""
    app.include_router(router)


__all__ = ["MAX_TURNS", "MEDIA_TYPE", "Narrated", "install", "router"]
