"""Nothing anyone can read from the server names the rule of a game that is not over: for every registered
family, small runs of games left at their start, part-way and not yet begun (and a guess-the-rule game and a
session started over the API), every page, event stream, API answer and error message is scanned for each
game's hidden part: its item key, the values of its item's hidden keys that the game has not shown the player,
and the seeds that drew it."""

from __future__ import annotations

import contextlib
import html
import json
import re
from typing import Any

import httpx
import pytest

from wason.core import registry, session
from wason.core.family import EpisodeContext, Family, RunSettings
from wason.core.leaks import leaves
from wason.core.public import public_config
from wason.core.session import to_json
from wason.store import Store

SEED = 7305193
"""A seed no page shows by chance."""
GTR_SEED = 6047281

# configurations whose items are drawn by the seed, per family the test knows (others: their play defaults with
# the seed set, where they have one)
DRAWN: dict[str, dict[str, Any]] = {
    "wilt": {"split": "generated", "n": 3},
    "lists": {"split": "generated", "n": 3, "judges": ["predicate", "quiz"]},
    "aiw": {"variations": "generated", "n": 1, "trials": 1},
    "picnic": {"n": 3, "level": ["L1"]},
    "code-functions": {"n": 3, "judges": ["predicate", "quiz"]},
    "math": {"n": 3, "judges": ["expression", "quiz"]},
    "dynamic-picnic": {},
    "lab": {"n": 3},
}
MIN_TEXT = 8
"""Hidden strings shorter than this are not looked for (``L1``, ``7``: they appear everywhere by chance)."""
MIN_NUMBER = 100_000
"""Hidden numbers smaller than this are not looked for either."""


def _config(family: Family[Any], player: str) -> RunSettings:
    fields = family.config_type.with_play_defaults(DRAWN.get(family.name, {}))
    if "seed" in family.config_type.model_fields:
        fields["seed"] = SEED
    config: RunSettings = family.config_type.model_validate({**fields, "player": player})
    return config


async def _shown(store: Store, family: Family[Any], episode_id: int) -> str:
    """What the game has shown its player so far (a game shows examples of its rule, a player writes guesses):
    no secret, of this game or of another that happens to share a value with it."""
    episode = store.get_episode(episode_id)
    config = family.config_type.model_validate(store.get_run(episode.run_id).config)
    first = family.game(config, episode.item, EpisodeContext()).start()
    shown = [
        json.dumps(to_json(first)),
        json.dumps(public_config(family, store.get_run(episode.run_id).config)),
        family.web_form(config, episode.item, first, 0).prompt,
        json.dumps({k: episode.item[k] for k in family.public(episode.item) if k in episode.item}),
    ]
    for turn in store.list_turns(episode_id):
        shown += [json.dumps(turn["observation"]), str(turn["feedback"] or ""), json.dumps(turn["action"])]
    if episode.status in ("completed", "errored"):  # over: all of it may be shown
        shown.append(json.dumps(episode.item))
    return "\n".join(shown)


def _secrets(store: Store, family: Family[Any], episode_id: int, seen: str) -> dict[str, str]:
    """What must not be shown of an episode that is not over: ``{text: what it is}``."""
    episode = store.get_episode(episode_id)
    out: dict[str, str] = {}
    if len(episode.item_key) >= 5:
        out[episode.item_key] = "the item key"
    hidden = {k: v for k, v in episode.item.items() if k not in family.public(episode.item)}
    for text in leaves(hidden, min_text=MIN_TEXT, min_number=MIN_NUMBER):
        if text not in seen and json.dumps(text)[1:-1] not in seen:
            out[text] = "a hidden value of the item"
    run_config = store.get_run(episode.run_id).config
    shown_config = public_config(family, run_config)
    for name, value in run_config.items():
        if name not in shown_config and isinstance(value, int) and abs(value) >= MIN_NUMBER:
            out[str(value)] = f"the configuration's {name}"
    return out


def _forms(text: str) -> list[str]:
    """A response as it may spell a secret: raw, HTML entities undone, JSON escapes undone."""
    unescaped = html.unescape(text)
    out = [text, unescaped]
    with contextlib.suppress(UnicodeDecodeError):
        out.append(unescaped.encode("utf-8", "backslashreplace").decode("unicode_escape"))
    return out


async def _ongoing_run(store: Store, family: Family[Any], player: str, n: int) -> list[int]:
    """A run of ``n`` items: the first not begun, the second begun, the rest one move in where a move does not
    end the game. Its episode ids."""
    config = _config(family, player)
    items = family.items(config)[:n]
    run_id = store.create_run(
        task=family.name, player=player, model=None, config=config.model_dump(mode="json"), items=items
    )
    ids = []
    for i, episode in enumerate(store.list_episodes(run_id)):
        ids.append(episode.id)
        if i == 0:
            continue
        live = session.begin(store, episode)
        if i < 2:
            continue
        move = await _first_move(family, config, episode.item, live.observation)
        if move is not None:
            probe = family.game(config, episode.item, EpisodeContext())
            probe.start()
            probe.step(move)
            if not probe.done:  # one move in, still on
                await session.step(store, episode.id, family.actions.encode(move))
    return ids


async def _first_move(
    family: Family[Any], config: RunSettings, item: dict[str, Any], observation: Any
) -> Any:
    solver = family.solver(config, item)
    if solver is not None:
        return (await solver.act(observation)).action
    actions = family.sample_actions(config, item) or []
    return actions[0] if actions else None


async def _pages(
    client: httpx.AsyncClient, family: str, runs: list[int], episodes: list[int]
) -> dict[str, str]:
    """Every response a reader can get about these runs and episodes: ``{what was asked: body}``."""
    got: dict[str, str] = {}

    async def get(url: str) -> httpx.Response:
        r = await client.get(url, headers={"accept": "text/html"})
        assert r.status_code < 500, (url, r.status_code, r.text[:300])
        got[f"GET {url}"] = r.text
        return r

    async def post(url: str, body: dict[str, Any]) -> None:
        r = await client.post(url, json=body)
        assert r.status_code < 500, (url, r.status_code, r.text[:300])
        got[f"POST {url} {json.dumps(body)}"] = r.text

    for url in ("/", "/runs", f"/runs?family={family}", f"/watch?family={family}", f"/play?family={family}"):
        await get(url)
    await get(f"/compare?runs={','.join(map(str, runs))}")
    for run_id in runs:
        page = await get(f"/runs/{run_id}")
        for plot in sorted(set(re.findall(rf"/runs/{run_id}/plots/[^\"'<> ]+", page.text))):
            got[f"GET {plot}"] = (await client.get(plot)).content.decode("latin-1")
        await get(f"/watch/{run_id}")
        await get(f"/watch/{run_id}/events")
    for episode_id in episodes:
        for url in (
            f"/api/sessions/{episode_id}",
            f"/api/sessions/{episode_id}/summary",
            f"/play/{episode_id}",
            f"/guess-the-rule/game/{episode_id}",
            f"/guess-the-rule/game/{episode_id}?include_rule=true",
            f"/guess-the-rule/game/{episode_id}/examples?n_examples=0",
        ):
            await get(url)
        # refused moves (a move that is read would be a move of the game, which may end it)
        await post(f"/api/sessions/{episode_id}/step", {"action": {"type": "NoSuchMove"}})
        await post(f"/api/sessions/{episode_id}/step", {"action": {"type": "NoSuchMove"}, "text": "both"})
    for run_id in runs:
        for e in await _episodes_of(client, run_id):
            await get(f"/runs/{run_id}/episodes/{e}")
    return got


async def _episodes_of(client: httpx.AsyncClient, run_id: int) -> list[int]:
    page = (await client.get(f"/runs/{run_id}")).text
    return sorted({int(i) for i in re.findall(rf"/runs/{run_id}/episodes/(\d+)", page)})


@pytest.mark.parametrize("name", sorted(registry.names()))
async def test_no_response_names_a_game_not_over(name: str, store: Store, client: httpx.AsyncClient) -> None:
    family = registry.get(name)
    # pages shown before any game exists say nothing of one: what they hold is no secret (a pool's name, a level)
    control = ""
    for url in ("/", "/runs", f"/watch?family={name}", f"/play?family={name}"):
        control += (await client.get(url)).text
    runs: list[int] = []
    episodes: list[int] = []
    for player, n in (("session", 3), ("human:ada", 2)):
        ids = await _ongoing_run(store, family, player, n)
        runs.append(store.get_episode(ids[0]).run_id)
        episodes += ids
    api = family.game_api()
    if api is not None:  # a game of the published routes, with a seed the client chose
        body = {"game_name": api.game_name, "difficulty": "L1", "num_init_examples": 1, "seed": GTR_SEED}
        created = await client.post("/guess-the-rule/game", json=body)
        assert created.status_code == 200, created.text
        gid = int(created.json()["game_uuid"])
        episodes.append(gid)
        runs.append(store.get_episode(gid).run_id)
    started = await client.post("/api/sessions", json={"family": name, "config": DRAWN.get(name, {})})
    if started.status_code == 201:  # a session the server drew at random
        episodes.append(started.json()["session"])
        runs.append(started.json()["run"])
    ongoing = [e for e in episodes if store.get_episode(e).status not in ("completed", "errored")]
    seen = "\n".join([await _shown(store, family, e) for e in episodes])
    secrets: dict[str, str] = {}
    for episode_id in ongoing:
        secrets.update(_secrets(store, family, episode_id, seen))
    secrets = {k: v for k, v in secrets.items() if not any(k in form for form in _forms(control))}
    if api is not None:
        secrets[str(GTR_SEED)] = "the seed the published route drew its game with"
    assert secrets, f"{name}: nothing hidden to look for"
    pages = await _pages(client, name, runs, episodes)
    leaks = [
        f"{what} ({secret!r}) in {url}"
        for url, body in pages.items()
        for secret, what in secrets.items()
        if any(secret in form for form in _forms(body))
    ]
    assert not leaks, "\n".join(leaks[:20])
    # nor do the filters and the search of the run pages answer anything about them: a hidden text matches no
    # game that is not over (its item key, its model calls' messages)
    for secret in sorted(secrets)[:3]:
        words = " ".join(secret.split()[:12])[:200]
        for run_id in runs:
            for query in ({"item": secret[:100]}, {"q": words}):
                r = await client.get(f"/runs/{run_id}", params=query)
                assert r.status_code < 500, (run_id, query, r.text[-300:])
                found = re.findall(r'<tr data-episode="\d+" data-status="(\w+)"', r.text)
                assert not {"pending", "running"} & set(found), (name, run_id, query, found)
        r = await client.get("/search", params={"q": words})
        assert r.status_code < 500
        for run_id, index in re.findall(r'href="/runs/(\d+)/episodes/(\d+)', r.text):
            status = next(e.status for e in store.list_episodes(int(run_id)) if e.index == int(index))
            assert status in ("completed", "errored"), (name, words, run_id, index)
