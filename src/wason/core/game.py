"""The engine's contracts: a game is pure logic over structured actions; a player chooses actions.

A game never sees text. A *protocol* (see :class:`TextProtocol`) turns a game into text for a language model:
the system prompt, a parser from the model's reply to an action, and a renderer from observations to feedback.
The same game is therefore played by an LLM (through its protocol), a person, a solver or a script.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Generic, Protocol, TypeVar, runtime_checkable

from pydantic import BaseModel

from wason.failures import ExternalFailure

__all__ = [
    "VOID",
    "ExternalFailure",
    "Game",
    "Malformed",
    "Move",
    "Outcome",
    "Player",
    "PlayerLeft",
    "Settles",
    "TextProtocol",
]

A = TypeVar("A")
A_in = TypeVar("A_in", contravariant=True)
O_out = TypeVar("O_out", covariant=True)
A_co = TypeVar("A_co", covariant=True)
O_contra = TypeVar("O_contra", contravariant=True)


@dataclass(frozen=True)
class Malformed:
    """A move the player made that could not be read as any action (e.g. a reply without the marker).

    Games decide what it costs (usually a counted format error). ``truncated`` marks a reply the endpoint cut off
    at the token limit: games count it apart from format errors (metrics key ``truncated``), so a model that runs
    out of tokens is not reported as one that cannot follow the format.
    """

    reason: str
    truncated: bool = False


class PlayerLeft(ExternalFailure):
    """A person closed the input or gave up; the episode ends as errored and can be resumed."""

    what = "player left"


VOID = "void"
"""The metrics key of an episode that was no game (its item was rejected before play, e.g. a rule whose examples
could not be validated): its value says why. Such episodes count in no rate; tables count them apart."""


class Outcome(BaseModel):
    """What an episode produced: whether it succeeded and the metrics its task family defines (a non-empty
    ``metrics[VOID]`` marks an episode that was no game)."""

    success: bool
    metrics: dict[str, Any]


class Game(Protocol[A_in, O_out]):
    """One episode of a task: pure, deterministic logic over structured actions.

    Optional member: ``automatic_action() -> action | None``, an action the game takes by itself before the
    player's next move (a game master preparing the opening examples with a model). The runner applies it
    through the session like any move (stored as a turn with no reply, settled like any action), so the
    player's first prompt already shows what it produced.
    """

    @property
    def done(self) -> bool:
        """True once the episode has ended; no further actions are accepted."""
        ...

    def start(self) -> O_out:
        """Return the first observation."""
        ...

    def step(self, action: A_in | Malformed) -> O_out:
        """Apply one action and return what the player observes next."""
        ...

    def outcome(self) -> Outcome:
        """The episode's result; only meaningful once :attr:`done` is true."""
        ...


@runtime_checkable
class Settles(Protocol):
    """A game that needs outside work before it can apply an action: an LLM labeller or judge.

    The session awaits :meth:`settle` with each action before calling ``step`` with it, so ``step`` stays pure
    and synchronous while the game's oracles (injected by whoever builds the game) may call a model. What the
    oracles said is returned as a JSON record and stored with the turn; :meth:`settled` puts it back when a
    stored game is restored, so restoring never asks a model again. An :class:`ExternalFailure` raised by
    ``settle`` ends the episode as errored, like a failed player call.
    """

    async def settle(self, action: Any) -> dict[str, Any] | None:
        """Do the outside work ``action`` needs (e.g. label its test lists); called before ``step(action)``."""
        ...

    def settled(self, action: Any, record: dict[str, Any]) -> None:
        """Restore the outside work for ``action`` from the record :meth:`settle` returned."""
        ...


@dataclass(frozen=True)
class ReplyFormat:
    """The form a reply must take, for ``--constrain`` (format-constrained play): the backend makes the model's
    reply fit it, so that what remains wrong is reasoning, not format.

    Attributes:
        grammar: the reply's grammar in GBNF (llama.cpp's notation, also read by vLLM): free reasoning text,
            then the action in the form the protocol's parser reads.
        description: the form in words, for reports (``a line of reasoning, then a test case or a final guess``).
        json_schema: the same reply as a JSON object, for backends that take JSON schemas (OpenAI); None when
            the protocol has none.
        from_json: turns a reply in ``json_schema`` form into the protocol's text (then parsed as usual).
    """

    grammar: str
    description: str
    json_schema: Mapping[str, Any] | None = None
    from_json: Callable[[Mapping[str, Any]], str] | None = None


class TextProtocol(Protocol[A_co, O_contra]):
    """Turns a game into a conversation for a language model.

    Optional members a protocol may have: ``name``, how error messages name it (``--constrain: the NAME protocol
    declares no reply grammar``); ``prompt_role = "user"`` sends :meth:`system_prompt` as the first user
    message; ``first_message(observation) -> str | None`` is a user message sent after the system prompt before
    the model's first reply (a published protocol whose first turn shows the opening examples);
    ``stateless = True`` sends each turn's prompt alone (it holds the conversation so far) instead of a growing
    chat; ``reply_format(observation) -> ReplyFormat | None`` declares the form of the reply to the observation
    (:class:`ReplyFormat`), which ``--constrain`` holds the model to.
    """

    def system_prompt(self) -> str:
        """The instructions sent before the first turn."""
        ...

    def parse(self, reply: str) -> A_co | Malformed:
        """Read the model's reply as an action, or say why it cannot be read."""
        ...

    def feedback(self, observation: O_contra) -> str:
        """The text the model reads after an action."""
        ...


EPISODE_METRICS = "episode_metrics"
"""Key of :attr:`Move.meta` under which a player reports values about its episode (a dict): when the move ends
the episode they are stored with the episode's metrics under :data:`PLAYER_METRICS`."""

PLAYER_METRICS = "player"
"""Key of an episode's metrics holding what its player reported (apart from the game's own metrics, which the
actions alone determine)."""


@dataclass
class Move(Generic[A]):
    """A player's move: the action, plus the raw text it came from when the player writes text, and what the
    player says about it (``meta``; ``meta[EPISODE_METRICS]`` is stored with the episode when the move ends it).
    """

    action: A | Malformed
    reply: str | None = None
    meta: dict[str, Any] = field(default_factory=dict)


class Player(Protocol[A_co, O_contra]):
    """Anything that plays: a model through a protocol, a person, a solver, a script."""

    async def act(self, observation: O_contra) -> Move[Any]:
        """Choose the next move after seeing ``observation``."""
        ...
