"""A language model playing any game through that game's text protocol."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from wason.core.game import Malformed, Move, ReplyFormat, TextProtocol
from wason.core.records import TRUNCATED_FINISH_REASONS, CallContext
from wason.models.base import ChatMessage, GenerationParams, ModelConfigError, Role, constraint_form
from wason.models.client import ModelClient


def reply_format_of(protocol: TextProtocol[Any, Any], observation: Any) -> ReplyFormat | None:
    """The form ``protocol`` asks of the reply to ``observation`` (None when it declares none)."""
    declare = getattr(protocol, "reply_format", None)
    found = declare(observation) if callable(declare) else None
    return found if isinstance(found, ReplyFormat) else None


def check_constrainable(
    protocol: TextProtocol[Any, Any], observation: Any, constraint: str | None
) -> ReplyFormat:
    """The reply format ``--constrain`` holds the reply to ``observation`` to; refused (before a run, on its
    first observation) when the protocol declares none, or the backend takes none, or takes only JSON schemas
    and the protocol has none.

    Raises:
        ModelConfigError: one line saying which.
    """
    fmt = reply_format_of(protocol, observation)
    name = getattr(protocol, "name", "game's")
    if fmt is None:
        raise ModelConfigError(
            f"--constrain: the {name} protocol declares no reply grammar; leave out --constrain"
        )
    if constraint is None:
        raise ModelConfigError(
            "--constrain: this model's backend takes neither grammars nor JSON schemas (Anthropic); use the "
            "embedded model, a llama.cpp or vLLM server, or an OpenAI-style API"
        )
    if constraint == "json_schema" and fmt.json_schema is None:
        raise ModelConfigError(
            f"--constrain: the {name} protocol has a grammar but no JSON schema, and this server takes "
            "JSON schemas only; serve the model with llama.cpp or vLLM (vllm:NAME, llamacpp:NAME)"
        )
    return fmt


class Conversation:
    """One episode's messages as its protocol writes them: the instructions (a user message where the protocol or
    ``system_as_user`` says so), the game's first message where the protocol opens with one, then each reply and
    the protocol's answer to it. :class:`LLMPlayer` sends them to a model; the text environments
    (:mod:`wason.env`) give them to a trainer's, so both see the same text.

    The protocol reads a reply by what it last asked (tests, a predicate, a quiz...): :meth:`prompt` asks it, so
    a reply is read after the prompt it answers.
    """

    def __init__(self, protocol: TextProtocol[Any, Any], *, system_as_user: bool = False) -> None:
        self.protocol = protocol
        # Some protocols' first message is the user's question, not a system prompt.
        as_user = system_as_user or getattr(protocol, "prompt_role", "system") == "user"
        role: Role = "user" if as_user else "system"
        # a protocol with no instructions of its own (its first user message is the whole prompt) sends none
        prompt = protocol.system_prompt()
        self.messages: list[ChatMessage] = [ChatMessage(role=role, content=prompt)] if prompt else []
        # a stateless protocol writes the whole conversation into each turn's prompt: every call is that
        # prompt alone (after the instructions), as a published harness that kept no chat did
        self._stateless = bool(getattr(protocol, "stateless", False))
        self._opening = list(self.messages)
        self._last_reply: str | None = None
        self._started = False

    def prompt(self, observation: Any) -> list[ChatMessage]:
        """The messages the model reads before its next reply, now that the game shows ``observation``: the last
        reply and the protocol's answer to it are added (or, for a stateless protocol, the prompt is remade)."""
        if self._last_reply is not None and self._stateless:
            self.messages = [
                *self._opening,
                ChatMessage(role="user", content=self.protocol.feedback(observation)),
            ]
        elif self._last_reply is not None:
            self.messages.append(ChatMessage(role="assistant", content=self._last_reply.strip()))
            self.messages.append(ChatMessage(role="user", content=self.protocol.feedback(observation)))
        elif not self._started:
            # a protocol whose first turn is a user message (the game's opening examples) says so
            first = getattr(self.protocol, "first_message", None)
            text = first(observation) if callable(first) else None
            if text is not None:
                self.messages.append(ChatMessage(role="user", content=str(text)))
        self._started = True
        self._last_reply = None
        return list(self.messages)

    def replied(self, text: str) -> None:
        """The model's reply to the last :meth:`prompt` (added to the messages with the answer to it)."""
        self._last_reply = text

    def read(self, text: str) -> Any:
        """The model's reply to the last :meth:`prompt`, kept and read by the protocol: its action, or
        :class:`~wason.core.game.Malformed` saying why it cannot be read."""
        self.replied(text)
        return self.protocol.parse(text)

    def transcript(self) -> list[ChatMessage]:
        """The messages with the last reply where no answer to it follows yet (the game's last move)."""
        if self._last_reply is None:
            return list(self.messages)
        return [*self.messages, ChatMessage(role="assistant", content=self._last_reply.strip())]


class LLMPlayer:
    """Holds one episode's conversation and turns each reply into an action.

    Args:
        client: the model, with retries, cache and recording.
        protocol: the game's text protocol.
        params: generation parameters, sent and recorded with every call.
        context: the episode's identity for the record and the cache key (its ``turn`` is filled in per call).
        system_as_user: send the instructions as the first user message, for models that refuse system
            messages (the reference did this for o1 models).
        constrain: hold every reply to the protocol's reply format (``--constrain``): its grammar, or its JSON
            schema for backends that take schemas (the JSON reply is turned into the protocol's text before it
            is parsed; the record keeps the JSON).
    """

    def __init__(
        self,
        client: ModelClient,
        protocol: TextProtocol[Any, Any],
        params: GenerationParams,
        context: CallContext | None = None,
        *,
        system_as_user: bool = False,
        constrain: bool = False,
    ) -> None:
        self.client = client
        self.constrain = constrain
        self._constraint = constraint_form(client.model) if constrain else None
        self.protocol = protocol
        self.params = params
        self.context = context or CallContext()
        self.conversation = Conversation(protocol, system_as_user=system_as_user)
        self._turn = 0

    @property
    def messages(self) -> list[ChatMessage]:
        """The conversation as the next call sends it (the last reply is added with the answer to it)."""
        return self.conversation.messages

    async def act(self, observation: Any) -> Move[Any]:
        messages = self.conversation.prompt(observation)
        ctx = CallContext(
            run_id=self.context.run_id,
            episode_id=self.context.episode_id,
            turn=self._turn,
            sample=self.context.sample,
        )
        params, fmt = self._constrained(observation)
        response = await self.client.complete(messages, params, ctx)
        self._turn += 1
        self.conversation.replied(response.text)
        text = response.text
        read = _from_json(fmt, text) if fmt is not None and params.json_schema is not None else text
        # a reply that is not the schema's JSON is unreadable like any other (and truncated when it was cut off)
        action = read if isinstance(read, Malformed) else self.protocol.parse(read)
        text = read if isinstance(read, str) else text
        if isinstance(action, Malformed) and response.finish_reason in TRUNCATED_FINISH_REASONS:
            # the model ran out of tokens before it could finish the reply: not a format error of its own
            limit = self.params.max_tokens
            where = f" ({limit} tokens)" if limit else ""
            action = Malformed(
                f"the reply was cut off at the token limit{where}: {action.reason}", truncated=True
            )
        return Move(action=action, reply=text)

    def _constrained(self, observation: Any) -> tuple[GenerationParams, ReplyFormat | None]:
        """This turn's parameters: the run's, with the protocol's reply grammar or schema under ``constrain``."""
        if not self.constrain:
            return self.params, None
        fmt = check_constrainable(self.protocol, observation, self._constraint)
        if self._constraint == "json_schema":
            return self.params.model_copy(update={"json_schema": dict(fmt.json_schema or {})}), fmt
        return self.params.model_copy(update={"grammar": fmt.grammar}), fmt


def _from_json(fmt: ReplyFormat, reply: str) -> str | Malformed:
    """A reply in the format's JSON form, as the protocol's text (or why it is not of that form)."""
    try:
        data = json.loads(reply)
    except json.JSONDecodeError as err:
        return Malformed(f"the reply is not the JSON the reply schema asks for: {err.msg}")
    if not isinstance(data, Mapping) or fmt.from_json is None:
        return Malformed("the reply is not a JSON object of the reply schema")
    try:
        return fmt.from_json(data)
    except (KeyError, TypeError, ValueError) as err:
        return Malformed(f"the reply lacks a field of the reply schema: {err}")
