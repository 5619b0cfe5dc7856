"""Every family as a verifiers environment: ``vf.load_environment("wason", family=NAME)`` (docs/training.md).

``pip install 'wason[verifiers]'`` installs verifiers 0.3.1, the last release with the in-process multi-turn API
(``vf.MultiTurnEnv``; 0.4 runs each rollout through a harness program it prepares with ``uv`` at rollout time,
downloading uv and the program's dependencies). :func:`load_environment` gives a :class:`WasonEnv`: its dataset
holds one seeded game per row (the opening messages, and the family, configuration and seed in ``info``); a
rollout plays it through wason's own text environment (:class:`~wason.env.text.AsyncTextEnv`), so the model reads
exactly what ``wason eval`` sends: each turn's prompt is the environment's conversation, the protocol's answer
after each reply, until the game is over. The rubric's reward is the episode's reward (the code verdict, plus
the shaping asked for); its metrics are the verdict and the unreadable replies. A family's LLM judge or game
master is asked through wason's async model client, named as under ``wason eval`` (``judge_model=...``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import verifiers as vf
from datasets import Dataset
from verifiers.clients import OpenAIChatCompletionsClient

from wason.env.text import MAX_TURNS, AsyncTextEnv, TextEnv

__all__ = ["MAX_GAMES", "ChatClient", "WasonEnv", "load_environment"]

MAX_GAMES = 100_000
"""The most games (dataset rows) one environment holds."""

_ENV = "wason_env"  # where a rollout's state keeps its game


async def _reward(state: Mapping[str, Any], **_: Any) -> float:
    """The episode's reward: the code verdict (and the shaping asked for), as the text environment paid it."""
    return float(state.get("wason_reward", 0.0))


async def success(state: Mapping[str, Any], **_: Any) -> float:
    """The code verdict: 1 for a game won, 0 otherwise (a metric: weight 0)."""
    return 1.0 if state.get("wason_success") else 0.0


async def format_errors(state: Mapping[str, Any], **_: Any) -> float:
    """The replies the protocol could not read (a metric)."""
    return float(state.get("wason_format_errors", 0))


_reward.__name__ = "wason_reward"


class WasonEnv(vf.MultiTurnEnv):  # type: ignore[misc]  # verifiers is untyped
    """One family's seeded games as a verifiers multi-turn environment (see the module).

    Args:
        family: the family's registered name.
        config: its run configuration's fields, as ``wason eval NAME``'s flags.
        games: dataset rows; row ``i`` is the game the item seed ``seed + i`` draws.
        seed: the first row's seed.
        shaping: the reward's weights (:class:`~wason.env.rewards.Shaping`'s fields).
        max_turns: truncate a game after this many replies (default: the game's own end).
    """

    def __init__(
        self,
        family: str,
        config: Mapping[str, Any] | None = None,
        *,
        games: int = 10,
        seed: int = 0,
        shaping: Mapping[str, float] | None = None,
        max_turns: int | None = None,
        **kwargs: Any,
    ) -> None:
        if not 1 <= games <= MAX_GAMES:
            raise ValueError(f"games: from 1 to {MAX_GAMES:,}, not {games}")
        self.family = family
        self.game_config = dict(config or {})
        self.shaping = dict(shaping or {})
        self.game_max_turns = max_turns
        # the openings, drawn by the plain environment (its own loop: this may run inside an event loop); a bad
        # family, configuration or shaping is refused here, in one line
        probe = TextEnv(family, self.game_config, shaping=self.shaping, max_turns=max_turns)
        rows = []
        try:
            for s in range(seed, seed + games):
                probe.reset(seed=s)
                rows.append(
                    {
                        "prompt": probe.messages,
                        "answer": "",
                        "info": {"family": probe.family.name, "seed": s},
                    }
                )
        finally:
            probe.close()
        dataset = Dataset.from_list(rows)
        rubric = vf.Rubric(funcs=[_reward, success, format_errors], weights=[1.0, 0.0, 0.0])
        super().__init__(
            dataset=dataset,
            eval_dataset=dataset,
            rubric=rubric,
            # the game cuts an episode off itself (max_turns, or MAX_TURNS): verifiers' own limit, one reply later,
            # would stop a rollout before its last reply is played
            max_turns=(max_turns or MAX_TURNS) + 1,
            **kwargs,
        )

    def _game(self) -> AsyncTextEnv:
        return AsyncTextEnv(
            self.family, self.game_config, shaping=self.shaping, max_turns=self.game_max_turns
        )

    async def setup_state(self, state: Any, **kwargs: Any) -> Any:
        env = self._game()
        await env.reset(seed=int(state["info"]["seed"]))
        state[_ENV] = env
        state["wason_reward"] = 0.0
        return state

    async def get_prompt_messages(self, state: Any) -> Any:
        """The next prompt: the conversation as wason sends it, after the last reply is played (a protocol whose
        prompt is remade each turn is remade here too)."""
        env: AsyncTextEnv = state[_ENV]
        if not state["trajectory"]:
            return _messages(env.messages)
        completion = state["trajectory"][-1]["completion"]
        reply = _text(completion)
        result = await env.step(reply)
        state["wason_reward"] = float(result.info["episode_reward"])
        state["wason_format_errors"] = int(result.info["format_errors"])
        if result.terminated or result.truncated:
            state["wason_success"] = bool(result.info.get("success"))
            state["wason_info"] = {k: v for k, v in result.info.items() if k != "observation"}
            state["final_env_response"] = []  # over: no answer follows the last reply
        return _messages(env.messages)

    @vf.cleanup  # type: ignore[untyped-decorator]
    async def close_game(self, state: Any) -> None:
        """The game's own model client (an LLM judge's), closed however the rollout ended."""
        env = state.pop(_ENV, None)
        if env is not None:
            await env.aclose()

    async def env_response(self, messages: Any, state: Any, **kwargs: Any) -> Any:
        """Unused: :meth:`get_prompt_messages` takes the environment's whole conversation."""
        return []


_ROLES = {"system": vf.SystemMessage, "user": vf.UserMessage, "assistant": vf.AssistantMessage}


def _messages(messages: list[dict[str, str]]) -> list[Any]:
    """OpenAI-style messages as verifiers' message types."""
    return [_ROLES[m["role"]](content=m["content"]) for m in messages]


class ChatClient(OpenAIChatCompletionsClient):  # type: ignore[misc]  # verifiers is untyped
    """verifiers' OpenAI chat client as llama.cpp's server reads it: ``env.evaluate(client=ChatClient(
    vf.ClientConfig(api_base_url=URL, ...)), ...)``. verifiers' own sends null fields on every assistant message
    (``"tool_calls": null``, ``"reasoning_content": null``), which that server refuses (500: "Input should be a
    valid list"), and sends a token limit only as ``max_completion_tokens``, which that server ignores (a reply
    then runs on to the end of the context): this one leaves the nulls out and sends ``max_tokens`` too."""

    async def to_native_prompt(self, messages: Any) -> tuple[list[dict[str, Any]], dict[str, Any]]:
        native, extra = await super().to_native_prompt(messages)
        return [{k: v for k, v in dict(m).items() if v is not None} for m in native], extra

    async def get_native_response(
        self, prompt: Any, model: str, sampling_args: Any, tools: Any = None, **kwargs: Any
    ) -> Any:
        args = dict(sampling_args or {})
        if args.get("max_tokens") is not None:
            args["extra_body"] = {**dict(args.get("extra_body") or {}), "max_tokens": args["max_tokens"]}
        return await super().get_native_response(prompt, model, args, tools, **kwargs)


def _text(completion: Any) -> str:
    """The text of the model's last message."""
    messages = completion if isinstance(completion, list) else [completion]
    for message in reversed(messages):
        content = (
            message.get("content") if isinstance(message, Mapping) else getattr(message, "content", None)
        )
        if content is not None:
            if isinstance(content, list):  # content parts
                return "".join(str(p.get("text", "")) for p in content if isinstance(p, Mapping))
            return str(content)
    return ""


def load_environment(
    family: str,
    config: Mapping[str, Any] | None = None,
    *,
    games: int = 10,
    seed: int = 0,
    shaping: Mapping[str, float] | None = None,
    max_turns: int | None = None,
    **fields: Any,
) -> WasonEnv:
    """The verifiers environment of ``family`` (``vf.load_environment("wason", family=..., ...)``, ``vf-eval wason
    -a '{"family": NAME}'``): ``config`` and any other keyword are the family's settings."""
    return WasonEnv(
        family, {**dict(config or {}), **fields}, games=games, seed=seed, shaping=shaping, max_turns=max_turns
    )
