"""``wason export RUN... --format inspect``: runs as Inspect evaluation logs (``.eval``), one log per run, for
``inspect view`` and for analysis beside inspect_evals results.

Built with inspect_ai's own log classes (the optional extra ``wason[inspect]``), so a log is what inspect_ai
itself reads back. A run maps onto a log as follows:

- the log's task is the run's family, its model the run's model (``openai:gpt-4o`` as Inspect names it,
  ``openai/gpt-4o``; a solver or a person as ``wason/solver``, ``wason/human``), its task arguments the run's
  configuration, its generation settings the run's;
- a sample is an episode (its id: the episode's index, as in ``wason show RUN --episode N``). Its messages are
  the conversation as the player's model saw it (the whole request of its longest conversation, then its reply;
  the calls of a judge or a game master are events, not the conversation); for a solver or a person they are
  the episode's transcript (the player's moves as the assistant, the game's answers as the user). Every model
  call is also a model event of the sample, with its tokens, finish reason, retries and whether it came from
  the cache;
- its input is what tells it apart from the run's other samples: the first message of the game that differs
  between them (the examples a game opens with, the question asked, the first answer to a test), from its
  first line that differs; its target is what was hidden (the rule, the laws, the right
  answer) and the success score's answer what the player guessed, as the family declares them (a function
  ``inspect_sample(item, metrics)`` of its report modules);
- its scores: ``success`` (``C`` or ``I``, as Inspect's ``match`` scorers give) for an episode that ended with
  a verdict, and ``metrics``, the family's scalar metrics of the game; an errored episode has no score and
  carries its error, as an errored Inspect sample does;
- the plan's one step names the player (a model, the family's solver, a person, a scripted player), and only a
  model's run has generation settings (a solver's run keeps the defaults it was given, which it never used);
- its usage: the tokens of the calls the endpoint answered, by model (replies replayed from the cache cost
  nothing and are not counted, as in ``wason runs``).

Everything is exported, the hidden rule included (the sample's target and metadata): the store is yours; do not
publish a log of a benchmark whose items must stay secret.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from wason import __version__
from wason.core import registry
from wason.core.labels import run_label
from wason.core.records import TRUNCATED_FINISH_REASONS, EpisodeRow, RunRow, row_name
from wason.store import Store

if TYPE_CHECKING:
    from inspect_ai.log import EvalLog, EvalSample, EvalStatus
    from inspect_ai.model import ChatMessage, GenerateConfig, ModelUsage

__all__ = [
    "GENERATE_FIELDS",
    "INSPECT_MISSING",
    "eval_log",
    "export_inspect",
    "require_inspect",
    "target_and_answer",
]

INSPECT_MISSING = "Inspect logs need inspect_ai: pip install 'wason[inspect]'"

_TARGET_KEYS = ("rule", "answer", "expected")
"""Item keys that hold what the player had to find, the first found being the sample's target (for a family that
declares no ``inspect_sample``; a rule given as an object is its ``text``)."""

_ANSWER_KEYS = ("answer", "guess", "final_guess", "final_hypothesis", "theory")
"""Metrics that hold the player's final answer, the first found being the success score's answer (for a family
that declares no ``inspect_sample``)."""


def require_inspect() -> None:
    """Check that inspect_ai can be imported.

    Raises:
        ValueError: it is not installed; the message is one line with the pip command.
    """
    try:
        import inspect_ai.log  # noqa: F401
    except ImportError:
        raise ValueError(INSPECT_MISSING) from None


def _utc(moment: datetime | None) -> datetime | None:
    if moment is None:
        return None
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


def _iso(moment: datetime | None) -> str | None:
    at = _utc(moment)
    return None if at is None else at.isoformat()


def inspect_model(run: RunRow) -> str:
    """The run's model as Inspect names models (``provider/model``), or ``wason/PLAYER`` for a solver or a
    person."""
    if run.model:
        provider, _, name = run.model.partition(":")
        return f"{provider}/{name}" if name else provider
    return f"wason/{run.player}"


def _call_model(spec: str) -> str:
    provider, _, name = spec.partition(":")
    return f"{provider}/{name}" if name else spec


GENERATE_FIELDS = (
    ("temperature", "temperature"),
    ("max_tokens", "max_tokens"),
    ("top_p", "top_p"),
    ("seed", "seed"),
    ("stop", "stop_seqs"),
)
"""wason's generation settings (:class:`~wason.models.base.GenerationParams`) and Inspect's names for them
(:class:`inspect_ai.model.GenerateConfig`)."""


def _generate_config(params: Mapping[str, Any] | None) -> GenerateConfig:
    from inspect_ai.model import GenerateConfig

    params = params or {}
    settings: dict[str, Any] = {}
    for ours, theirs in GENERATE_FIELDS:
        if params.get(ours) is not None:
            settings[theirs] = params[ours]
    effort = params.get("reasoning_effort")
    if effort is not None:
        settings["reasoning_effort"] = effort
    try:
        return GenerateConfig(**settings)
    except ValueError:  # a setting Inspect has no value for (a reasoning effort of another provider)
        settings.pop("reasoning_effort", None)
        return GenerateConfig(**settings)


def _chat(message: Mapping[str, Any]) -> ChatMessage:
    from inspect_ai.model import ChatMessageAssistant, ChatMessageSystem, ChatMessageUser

    role, content = message.get("role"), message.get("content")
    text = content if isinstance(content, str) else json.dumps(content, ensure_ascii=False)
    if role == "system":
        return ChatMessageSystem(content=text)
    if role == "assistant":
        return ChatMessageAssistant(content=text)
    return ChatMessageUser(content=text)


def _stop_reason(finish_reason: str | None) -> Any:
    if finish_reason in TRUNCATED_FINISH_REASONS:
        return "max_tokens"
    if finish_reason in ("stop", "content_filter", "tool_calls"):
        return finish_reason
    return "unknown"


def _usage(calls: Sequence[Mapping[str, Any]]) -> dict[str, ModelUsage]:
    """Tokens of the calls the endpoint answered, by model (a replayed call cost nothing)."""
    from inspect_ai.model import ModelUsage

    totals: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for c in calls:
        if c["cached"]:
            continue
        spent = totals[_call_model(c["model"])]
        spent[0] += c["input_tokens"] or 0
        spent[1] += c["output_tokens"] or 0
    return {
        model: ModelUsage(input_tokens=i, output_tokens=o, total_tokens=i + o)
        for model, (i, o) in totals.items()
    }


def _player_calls(
    calls: Sequence[Mapping[str, Any]], turns: Sequence[Mapping[str, Any]]
) -> Sequence[Mapping[str, Any]]:
    """The calls whose reply is a turn's reply: the player's (a judge's or a game master's calls answer the game,
    not the player); all of them when none is (a reply stored otherwise)."""
    # by the reply alone: a call's turn is the game's turn when it was asked, which a move the game makes by
    # itself (a game master's opening) puts one before the turn the reply is stored with
    replies = {t["reply"] for t in turns if t.get("reply") is not None}
    mine = [c for c in calls if c["response"] is not None and c["response"] in replies]
    return mine or calls


def _conversation(calls: Sequence[Mapping[str, Any]]) -> list[ChatMessage]:
    """The episode's longest conversation as the model saw it, its reply last; the latest such when two are as
    long."""
    if not calls:
        return []
    last = max(calls, key=lambda c: (len(c["messages"]), c["id"]))
    messages = [_chat(m) for m in last["messages"]]
    if last["response"] is not None:
        from inspect_ai.model import ChatMessageAssistant

        messages.append(ChatMessageAssistant(content=last["response"], model=_call_model(last["model"])))
    return messages


def _transcript_messages(run: RunRow, episode: EpisodeRow, turns: Sequence[Mapping[str, Any]]) -> list[Any]:
    """A game played without a model (a solver, a person): its transcript as the family declares it, the
    player's moves as the assistant's messages and the game's answers as the user's."""
    from inspect_ai.model import ChatMessageAssistant, ChatMessageSystem, ChatMessageUser

    data = {
        "run": run.id,
        "index": episode.index,
        "rule": episode.item_key,
        "rule_text": episode.item.get("rule"),
        "item": episode.item,
        "status": episode.status,
        "success": episode.success,
        "error": episode.error,
        "metrics": episode.metrics,
        "turns": [{k: t[k] for k in ("index", "reply", "action", "observation", "feedback")} for t in turns],
    }
    try:
        transcript = registry.get(run.task).messages(data, run)
    except (KeyError, ValueError):  # a family this wason does not know (a plugin not installed)
        return [ChatMessageAssistant(content=json.dumps(t["action"])) for t in turns]
    out: list[Any] = []
    for m in transcript.messages:
        if m.role == "system":
            out.append(ChatMessageSystem(content=m.text))
        elif m.role == "player":
            out.append(ChatMessageAssistant(content=m.text))
        elif m.role == "game":
            out.append(ChatMessageUser(content=m.text))
    return out


def _events(calls: Sequence[Mapping[str, Any]]) -> list[Any]:
    from inspect_ai.event import ModelEvent
    from inspect_ai.model import ModelOutput, ModelUsage

    events = []
    for c in calls:
        model = _call_model(c["model"])
        output = ModelOutput.from_content(
            model=c["served_model"] or model,
            content=c["response"] or "",
            stop_reason=_stop_reason(c["finish_reason"]),
            error=c["error"],
        )
        i, o = c["input_tokens"] or 0, c["output_tokens"] or 0
        output.usage = ModelUsage(input_tokens=i, output_tokens=o, total_tokens=i + o)
        output.time = c["latency_s"]
        event = ModelEvent(
            model=model,
            input=[_chat(m) for m in c["messages"]],
            tools=[],
            tool_choice="none",
            config=_generate_config(c["params"]),
            output=output,
            retries=max((c["attempts"] or 0) - 1, 0),
            error=c["error"],
            cache="read" if c["cached"] else None,
            working_start=0.0,
            metadata={"call_id": c["id"], "turn": c["turn"], "parent_id": c["parent_id"]},
        )
        created = _utc(c["created_at"])
        if created is not None:
            event.timestamp = event.completed = created
        events.append(event)
    return events


def _target(item: Mapping[str, Any], public: Sequence[str] = ()) -> str:
    """The first of the item's :data:`_TARGET_KEYS`; else what the item hides (its keys a player may not see
    before the game ends, as JSON), so that every sample says what was hidden."""
    for key in _TARGET_KEYS:
        value = item.get(key)
        if isinstance(value, dict):
            value = value.get("text")
        if isinstance(value, str | int | float) and not isinstance(value, bool):
            return str(value)
    hidden = {k: v for k, v in item.items() if k not in public}
    return json.dumps(hidden, ensure_ascii=False, sort_keys=True, default=str) if hidden else ""


def target_and_answer(
    task: str, item: Mapping[str, Any], metrics: Mapping[str, Any] | None
) -> tuple[str, str | None]:
    """What was hidden in ``item`` and what the player guessed (from an episode's ``metrics``; None before
    the game ends), as family ``task`` declares them (``inspect_sample``), else from the item's and the metrics'
    usual keys."""
    public: list[str] = []
    try:
        family = registry.get(task)
        hook = family.report_hook("inspect_sample")
        public = family.public(item)
    except (KeyError, ValueError):  # a family this wason does not know (a plugin not installed)
        hook = None
    if hook is not None:
        target, answer = hook(item, metrics)
        return str(target or ""), None if answer is None else str(answer)
    scalars = _scalar_metrics(metrics)
    answer = next((scalars[k] for k in _ANSWER_KEYS if scalars.get(k) is not None), None)
    return _target(item, public), None if answer is None else str(answer)


MAX_INPUT_MESSAGES = 6
"""The most game messages a sample's input joins to tell it apart from the run's samples of other items."""


def _inputs(conversations: Sequence[Sequence[Any]], keys: Sequence[str]) -> list[str]:
    """Each sample's input: the game's messages (the prompt, ``system`` or ``user``, and the game's answers)
    from the first place where the run's samples differ, as many as tell it apart from every sample of another
    item (at most :data:`MAX_INPUT_MESSAGES`), and from the first line that differs among them; so that no two
    samples of a run look alike where their items differ (a sample without such a message: its item key)."""
    texts = [[m.text for m in c if m.role in ("system", "user")] for c in conversations]
    place = 0
    if len(texts) > 1:
        longest = max(len(t) for t in texts)
        place = next((p for p in range(longest) if len({t[p] if p < len(t) else None for t in texts}) > 1), 0)
    chosen: list[list[str] | None] = []
    for i, mine in enumerate(texts):
        if not mine:
            chosen.append(None)
            continue
        first = min(place, len(mine) - 1)
        others = [t for j, t in enumerate(texts) if keys[j] != keys[i]]
        stop = first + 1
        while stop < min(len(mine), first + MAX_INPUT_MESSAGES) and any(
            t[first:stop] == mine[first:stop] for t in others
        ):
            stop += 1
        chosen.append(mine[first:stop])
    heads = [c[0] for c in chosen if c]
    shared = 0
    if len(set(heads)) > 1:  # leave out the lines they all open with (the same instructions)
        split = [h.split("\n") for h in heads]
        while (
            all(len(lines) > shared + 1 for lines in split) and len({lines[shared] for lines in split}) == 1
        ):
            shared += 1
    out = []
    for parts, key in zip(chosen, keys, strict=True):
        if not parts:
            out.append(key)
            continue
        head = "\n".join(parts[0].split("\n")[shared:]).strip() or parts[0]
        out.append("\n".join([head, *parts[1:]]))
    return out


def _plan(run: RunRow) -> Any:
    """The plan's one step: who played (a model through the family's protocol, the family's solver, a person,
    a scripted player), with the model's generation settings only for a model."""
    from inspect_ai.log import EvalPlan, EvalPlanStep

    kind = run.player.split(":", 1)[0] if run.player.startswith("human:") else run.player
    params: dict[str, Any] = {"player": run.player, "label": row_name(run), "family": run.task}
    if run.player == "llm":
        params["model"] = inspect_model(run)
    step = EvalPlanStep(solver=f"wason/{kind}", params=params)
    return EvalPlan(name="wason", steps=[step], config=_generate_config(_model_params(run)))


def _model_params(run: RunRow) -> Mapping[str, Any] | None:
    """The run's generation settings, for a model's run only: a solver, a person or a scripted player asks no
    model, and the defaults its configuration carries were never used."""
    return run.config.get("params") if run.player == "llm" else None


def _scalar_metrics(metrics: Mapping[str, Any] | None) -> dict[str, str | int | float | bool | None]:
    return {k: v for k, v in (metrics or {}).items() if v is None or isinstance(v, str | int | float | bool)}


def _messages(
    run: RunRow, episode: EpisodeRow, turns: Sequence[Mapping[str, Any]], calls: Sequence[Mapping[str, Any]]
) -> list[Any]:
    """The sample's conversation: the player's model's (:func:`_conversation`), or the transcript of a game
    played without a model."""
    if calls and run.player == "llm":
        return _conversation(_player_calls(calls, turns))
    if calls and not turns:
        return _conversation(calls)
    return _transcript_messages(run, episode, turns)


def _sample(
    run: RunRow,
    episode: EpisodeRow,
    turns: Sequence[Mapping[str, Any]],
    calls: Sequence[Mapping[str, Any]],
    messages: list[Any],
    sample_input: str,
) -> EvalSample:
    from inspect_ai.log import EvalError, EvalSample
    from inspect_ai.model import ModelOutput
    from inspect_ai.scorer import CORRECT, INCORRECT, Score

    last = next((m for m in reversed(messages) if m.role == "assistant"), None)
    model = inspect_model(run)
    output = ModelOutput.from_content(model=model, content=last.text if last is not None else "")
    scores: dict[str, Score] = {}
    scalars = _scalar_metrics(episode.metrics)
    target, answer = target_and_answer(run.task, episode.item, episode.metrics)
    if episode.success is not None:
        scores["success"] = Score(
            value=CORRECT if episode.success else INCORRECT,
            answer=answer,
            explanation="the game was won" if episode.success else "the game was not won",
        )
    if scalars:
        scores["metrics"] = Score(value=scalars, explanation="the family's metrics of the game")
    started, finished = _utc(episode.started_at), _utc(episode.finished_at)
    error = None
    if episode.status == "errored":
        reason = episode.error or "the episode errored"
        error = EvalError(message=reason, traceback=reason, traceback_ansi=reason)
    return EvalSample(
        id=episode.index,
        epoch=1,
        input=sample_input,
        target=target,
        messages=messages,
        output=output,
        scores=scores or None,
        metadata={
            "run_id": run.id,
            "episode": episode.index,
            "episode_id": episode.id,
            "item_key": episode.item_key,
            "item": episode.item,
            "status": episode.status,
            "error": episode.error,
            "seed": run.config.get("seed"),
            "trial": episode.item.get("trial"),
            "turns": len(turns),
            "calls": len(calls),
            "cached_calls": sum(bool(c["cached"]) for c in calls),
            "truncated": sum(c["finish_reason"] in TRUNCATED_FINISH_REASONS for c in calls),
            "metrics": episode.metrics,
            "answer": answer,
        },
        events=_events(calls),
        model_usage=_usage(calls),
        started_at=started.isoformat() if started else None,
        completed_at=finished.isoformat() if finished else None,
        total_time=(finished - started).total_seconds() if started and finished else None,
        error=error,
    )


_STATUS: dict[str, EvalStatus] = {
    "completed": "success",
    "incomplete": "success",
    "failed": "error",
    "interrupted": "cancelled",
}


def _results(samples: Sequence[EvalSample], run: RunRow, store: Store) -> Any:
    from inspect_ai.log import EvalMetric, EvalResults, EvalScore

    from wason.metrics.rates import wilson_interval

    scored = [s for s in samples if s.scores and "success" in s.scores]
    wins = sum(s.scores is not None and s.scores["success"].value == "C" for s in scored)
    metrics: dict[str, EvalMetric] = {}
    if scored:
        n = len(scored)
        rate = wins / n
        metrics["accuracy"] = EvalMetric(name="accuracy", value=rate)
        metrics["stderr"] = EvalMetric(name="stderr", value=(rate * (1 - rate) / n) ** 0.5)
        low, high = wilson_interval(wins, n)
        metrics["wilson_low"] = EvalMetric(name="wilson_low", value=low)
        metrics["wilson_high"] = EvalMetric(name="wilson_high", value=high)
    scores = [
        EvalScore(
            name="success",
            scorer="success",
            scored_samples=len(scored),
            unscored_samples=len(samples) - len(scored),
            metrics=metrics,
        )
    ]
    family_scores = _family_scores(run, store)
    if family_scores:
        scores.append(
            EvalScore(
                name=run.task,
                scorer=run.task,
                metrics={
                    name: EvalMetric(name=name, value=value)
                    for name, value in family_scores.items()
                    if value is not None
                },
                metadata={"about": "the family's own scores of the run, as `wason show RUN` gives them"},
            )
        )
    done = sum(s.error is None and s.completed_at is not None for s in samples)
    return EvalResults(total_samples=len(samples), completed_samples=done, scores=scores)


def _family_scores(run: RunRow, store: Store) -> dict[str, float | None]:
    try:
        family = registry.get(run.task)
        scores = family.scores(store, run.id)
    except (KeyError, ValueError):  # a family this wason does not know (a plugin not installed)
        return {}
    out: dict[str, float | None] = {}
    for s in scores:
        key = re.sub(r"[^A-Za-z0-9_]+", "_", s.name.lower()).strip("_") or "score"
        if s.kind == "rate":
            out[key] = (s.k or 0) / s.n if s.n else None
        else:
            out[key] = s.value
    return out


def eval_log(store: Store, run_id: int) -> EvalLog:
    """One run as an Inspect :class:`~inspect_ai.log.EvalLog` (samples = its episodes).

    Raises:
        StoreError: an unknown run.
        ValueError: inspect_ai is not installed (``pip install 'wason[inspect]'``).
    """
    require_inspect()
    from inspect_ai.log import EvalConfig, EvalDataset, EvalError, EvalLog, EvalSpec, EvalStats

    run = store.get_run(run_id)
    episodes = store.export_episodes([run_id])
    turns: dict[int, list[dict[str, Any]]] = defaultdict(list)
    for t in store.export_turns([run_id]):
        turns[t["episode_id"]].append(t)
    all_calls = store.list_calls(run_id=run_id)
    calls: dict[int | None, list[dict[str, Any]]] = defaultdict(list)
    for c in all_calls:
        calls[c["episode_id"]].append(c)
    conversations = [_messages(run, e, turns[e.id], calls[e.id]) for e in episodes]
    inputs = _inputs(conversations, [e.item_key for e in episodes])
    samples = [
        _sample(run, e, turns[e.id], calls[e.id], messages, given)
        for e, messages, given in zip(episodes, conversations, inputs, strict=True)
    ]
    ended = [at for e in episodes if (at := _utc(e.finished_at)) is not None]
    # a run with errored episodes has no finishing time of its own: its last episode's end stands for it
    finished = _utc(run.finished_at) or (max(ended) if ended else None)
    cfg = run.config
    status = _STATUS.get(run.status, "started")
    spec = EvalSpec(
        eval_id=f"wason-{run.id}-{int((_utc(run.created_at) or datetime.now(UTC)).timestamp())}",
        run_id=f"wason-run-{run.id}",
        created=_iso(run.created_at) or datetime.now(UTC).isoformat(),
        task=run.task,
        task_id=f"wason-run-{run.id}",
        task_display_name=run_label(run),
        task_args=cfg,
        solver=run.player,
        dataset=EvalDataset(name=run_label(run), samples=len(samples), sample_ids=[s.id for s in samples]),
        model=inspect_model(run),
        model_generate_config=_generate_config(_model_params(run)),
        model_base_url=cfg.get("base_url"),
        config=EvalConfig(epochs=1),
        packages={"wason": __version__},
        metadata={
            "wason_run": run.id,
            "status": run.status,
            "player": run.player,
            "model": run.model,
            "baseline_for": cfg.get("baseline_for"),
            "sweep": run.sweep,
            "cell": run.cell,
        },
    )
    error = None
    if run.status == "failed":
        reason = "the run failed (see `wason show RUN`)"
        error = EvalError(message=reason, traceback=reason, traceback_ansi=reason)
    return EvalLog(
        status=status,
        eval=spec,
        plan=_plan(run),
        results=_results(samples, run, store),
        stats=EvalStats(
            started_at=_iso(run.created_at) or "",
            completed_at=_iso(finished) or "",
            model_usage=_usage(all_calls),
        ),
        error=error,
        samples=samples,
    )


def log_name(run: RunRow) -> str:
    """The log's file name, as Inspect names its logs: ``TIME_TASK_ID.eval`` (``:`` left out, as it does)."""
    created = (_utc(run.created_at) or datetime.now(UTC)).strftime("%Y-%m-%dT%H-%M-%S+00-00")
    task = re.sub(r"[^A-Za-z0-9-]+", "-", run.task).strip("-") or "run"
    return f"{created}_{task}_wason-run-{run.id}.eval"


def export_inspect(store: Store, run_ids: Sequence[int], directory: Path | str) -> list[Path]:
    """Write each run given as an Inspect log (``.eval``) into ``directory`` (made if missing); returns the
    files written, in the order of the runs. A log of the same run written before is replaced.

    Example:
        >>> export_inspect(Store("results.db"), [3], "logs")  # doctest: +SKIP
        [PosixPath('logs/2026-11-28T12-00-00+00-00_wilt_wason-run-3.eval')]

    Raises:
        StoreError: an unknown run (nothing is written).
        ValueError: inspect_ai is not installed (``pip install 'wason[inspect]'``; nothing is written).
    """
    require_inspect()
    from inspect_ai.log import write_eval_log

    ids = list(dict.fromkeys(run_ids))
    runs = [store.get_run(r) for r in ids]  # an unknown run is one line, before anything is written
    out = Path(directory)
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for run in runs:
        for old in out.glob(f"*_wason-run-{run.id}.eval"):
            old.unlink()
        path = out / log_name(run)
        write_eval_log(eval_log(store, run.id), str(path), format="eval")
        written.append(path)
    return written
