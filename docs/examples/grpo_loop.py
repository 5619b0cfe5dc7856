"""A GRPO-style loop over wason's vector environment, against any OpenAI-compatible endpoint.

Each step draws one secret per group and plays it G times at once (``VectorTextEnv``: G resets with one seed are G
identical games), samples every reply from the endpoint, and turns the group's episode rewards into
group-relative advantages, ``(R - mean(R)) / (std(R) + eps)``: what a GRPO trainer weights each trajectory's
token log-probabilities with. The policy update itself is your trainer's (TRL, verl, prime-rl, ...); this script
prints what it would receive: the trajectories (chat messages), their rewards and advantages.

    python docs/examples/grpo_loop.py --base-url http://127.0.0.1:8000/v1 --model smollm2 \\
        [--family wilt] [--group 4] [--steps 2] [--max-turns 6] [--shaping '{"format_error": -0.1}']

Serve the bundled model first, for instance: ``python -m llama_cpp.server --model "$(python -c 'from
wason.models.local import find_embedded_gguf; print(find_embedded_gguf())')" --model_alias smollm2 --host 127.0.0.1
--port 8000``.
The key, if the endpoint needs one, is read from ``OPENAI_API_KEY``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
from typing import Any

import httpx

import wason.env


async def sample(
    client: httpx.AsyncClient, model: str, messages: list[dict[str, str]], temperature: float
) -> str:
    """One reply from the endpoint (an empty one when it sends none)."""
    body = {"model": model, "messages": messages, "temperature": temperature, "max_tokens": 256}
    answer = await client.post("/chat/completions", json=body)
    answer.raise_for_status()
    content = answer.json()["choices"][0]["message"].get("content")
    return str(content or "")


def advantages(rewards: list[float], eps: float = 1e-6) -> list[float]:
    """Group-relative advantages: each reward against the group's mean, in units of its spread."""
    mean = statistics.fmean(rewards)
    spread = statistics.pstdev(rewards)
    return [(r - mean) / (spread + eps) for r in rewards]


async def rollout_group(
    env: wason.env.VectorTextEnv, client: httpx.AsyncClient, args: argparse.Namespace, seed: int
) -> list[dict[str, Any]]:
    """G games of one secret, stepped together until every one is over."""
    env.reset(seed=[seed] * env.num_envs)
    rewards = [0.0] * env.num_envs
    done = [False] * env.num_envs
    infos: list[dict[str, Any]] = [{} for _ in range(env.num_envs)]
    while not all(done):
        live = [i for i in range(env.num_envs) if not done[i]]
        texts = await asyncio.gather(
            *(sample(client, args.model, env.envs[i].messages, args.temperature) for i in live)
        )
        replies = [""] * env.num_envs
        for i, text in zip(live, texts, strict=True):
            replies[i] = text
        _, step_rewards, terminated, truncated, step_infos = env.step(replies)
        for i in live:
            rewards[i] += step_rewards[i]
            done[i] = terminated[i] or truncated[i]
            infos[i] = step_infos[i]
    return [
        {"messages": env.envs[i].messages, "reward": rewards[i], "success": infos[i].get("success")}
        for i in range(env.num_envs)
    ]


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base-url", default="http://127.0.0.1:8000/v1")
    parser.add_argument("--model", default="smollm2")
    parser.add_argument("--family", default="wilt")
    parser.add_argument("--config", default="{}", help="the family's settings, as JSON")
    parser.add_argument("--group", type=int, default=4, help="rollouts per secret (G)")
    parser.add_argument("--steps", type=int, default=2, help="groups (secrets) to play")
    parser.add_argument("--max-turns", type=int, default=6, help="replies before a game is cut off")
    parser.add_argument("--temperature", type=float, default=1.0)
    parser.add_argument("--shaping", default="{}", help="reward weights, as JSON (docs/training.md)")
    args = parser.parse_args()

    env = wason.env.VectorTextEnv(
        args.family,
        args.group,
        json.loads(args.config),
        max_turns=args.max_turns,
        shaping=json.loads(args.shaping),
    )
    headers = (
        {"Authorization": f"Bearer {os.environ['OPENAI_API_KEY']}"} if "OPENAI_API_KEY" in os.environ else {}
    )
    async with httpx.AsyncClient(base_url=args.base_url, headers=headers, timeout=None) as client:
        for step in range(args.steps):
            group = await rollout_group(env, client, args, seed=step)
            rewards = [t["reward"] for t in group]
            for t, a in zip(group, advantages(rewards), strict=True):
                t["advantage"] = a
            # here a trainer computes the policy-gradient loss: sum over trajectories of advantage x log-prob
            print(
                json.dumps(
                    {
                        "step": step,
                        "seed": step,
                        "rewards": rewards,
                        "advantages": [round(t["advantage"], 4) for t in group],
                        "turns": [sum(m["role"] == "assistant" for m in t["messages"]) for t in group],
                    }
                )
            )
    env.close()


if __name__ == "__main__":
    asyncio.run(main())
