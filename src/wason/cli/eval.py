"""``wason eval NAME`` (or ``--resume RUN``): run a benchmark and print its results table. The run itself is
played by :func:`wason.engine.play_run`; this module reads the flags, draws the progress and prints the results."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import dataclasses
import sys
import threading
import time
from collections.abc import Callable
from typing import Any

from pydantic import ValidationError
from rich.console import Console

from wason.cli.common import (
    UserError,
    _as_json,
    _db,
    _given,
    _json_text,
    _report,
    _verdict,
    _warn_truncated,
)
from wason.cli.console import err_console, say
from wason.cli.eval_flags import _add_model_flags, add_arguments  # noqa: F401 - the parser, kept apart (issue 39)
from wason.core import registry
from wason.core.family import Family, Item, RunSettings
from wason.core.runner import EpisodeResult
from wason.engine import (
    RunObserver,
    baselines_of,
    check_constrain,
    family_of,
    load_config,
    play_run,
    run_items,
    wants_baseline,
)
from wason.engine.progress import SUMMARY_EVERY, Standing, Tracker, duration
from wason.models.base import GenerationParams
from wason.models.spec import LOCAL_DEFAULT_MAX_TOKENS
from wason.store import Store, StoreError


def _params(args: argparse.Namespace) -> GenerationParams:
    from wason.models.spec import check_settings

    # the flag that sets each field, for error messages
    flags = {
        "temperature": "--temperature",
        "max_tokens": "--max-tokens",
        "top_p": "--top-p",
        "seed": "--model-seed",
        "stop": "--stop",
        "reasoning_effort": "--reasoning-effort",
        "extra_body": "--extra-body",
    }
    max_tokens = args.max_tokens
    if max_tokens is None and args.model.split(":", 1)[0] == "local":
        max_tokens = LOCAL_DEFAULT_MAX_TOKENS
    extra_body: Any = None
    if args.extra_body is not None:
        extra_body = _json_text(args.extra_body, "--extra-body")
        if not isinstance(extra_body, dict):
            raise UserError("--extra-body is a JSON object, e.g. '{\"top_k\": 20}'")
    try:
        params = GenerationParams(
            temperature=args.temperature,
            max_tokens=max_tokens,
            top_p=args.top_p,
            seed=args.model_seed,
            stop=tuple(args.stop) if args.stop else None,
            reasoning_effort=args.reasoning_effort,
            extra_body=extra_body,
            api="completions" if getattr(args, "completions", False) else None,
        )
    except ValidationError as exc:  # name the flag, not the field
        first = exc.errors()[0]
        field = str(first["loc"][0]) if first["loc"] else ""
        reason = str(first["msg"]).removeprefix("Value error, ")
        raise UserError(f"{flags.get(field, field)}: {reason}") from None
    if getattr(args, "player", "llm") == "llm":
        # settings the model's backend cannot send: one line now, not an error in every episode
        check_settings(args.model, params)
    return params


def _eval_config(args: argparse.Namespace, family: Family[Any]) -> RunSettings:
    fields = _given(args, family.config_type, play=False)
    config: RunSettings = family.config_type(
        **fields,
        player=args.player,
        model=args.model if args.player == "llm" else None,
        base_url=args.base_url,
        params=_params(args),
        timeout=args.timeout,
        retries=args.retries,
        retry_delay=args.retry_delay,
        concurrency=args.concurrency,
        use_cache=not args.no_cache,
        system_as_user=args.system_as_user,
        constrain=getattr(args, "constrain", None) is not None,
        limit=getattr(args, "limit", None),
    )
    return config


def _refuse_idle_n(family: Family[Any], config: RunSettings) -> None:
    """Refuse ``--n`` where it changes nothing the run plays: ``n`` sizes what a configuration generates (a
    generated split's rules, a level's games, the domains drawn), and a run that generates nothing (a published
    split) would ignore it. Found without naming a family: the configuration drawn with ``n`` = 1 and with
    ``n`` = 2 (small, quick draws) plays the same items exactly when ``n`` is ignored.

    Raises:
        UserError: ``n`` is ignored by this configuration; the line says what it plays and offers ``--limit``.
    """
    config_type = type(config)
    if "n" not in config_type.model_fields:
        return
    drawn = []
    for n in (1, 2):
        try:
            probe = config_type.model_validate({**config.model_dump(), "n": n, "limit": None})
            count = family.item_count(probe)
            drawn.append(count if count is not None else [key for key, _ in family.items(probe)])
        except (ValueError, OSError):  # a size the configuration refuses matters to it
            return
    if drawn[0] != drawn[1]:
        return
    flag = "--" + config_type.flag_names.get("n", "n").replace("_", "-")
    what = config_type.model_fields["n"].description or "how many items are generated"
    plays = ", ".join(
        f"{name} {','.join(map(str, value)) if isinstance(value, list) else value}"
        for name in config_type.label_fields
        if (value := getattr(config, name, None)) not in (None, "", [])
    )
    raise UserError(
        f"{flag} changes nothing in this run{f' ({plays})' if plays else ''}: it sets {what}, and this run "
        "generates none; to play the first N items, use --limit N"
    )


def run(args: argparse.Namespace, console: Console) -> int:
    store = Store(_db(args))
    as_json = _as_json(args)
    items: list[Item] | None = None
    run_id: int | None
    if args.resume is not None:
        if args.family is not None:
            raise UserError("--resume RUN finishes a stored run with its own settings; leave out the family")
        config = load_config(store, args.resume)
        if config.player not in ("llm", "solver"):
            raise UserError(
                f"run {args.resume} was played by {config.player}; only model and solver runs can be resumed "
                "(a game played by hand goes on with `wason play --session ID`)"
            )
        run_id = args.resume
        if getattr(args, "base_url", None):
            config = config.model_copy(update={"base_url": args.base_url})
        elif "***" in (config.base_url or ""):
            raise UserError(
                f"run {run_id}'s endpoint had a password, which is not stored: give it again with --base-url"
            )
        api_key = getattr(args, "api_key", None)
        # a run started with --no-baseline keeps it; --no-baseline here leaves the baseline out this time
        no_baseline = bool(getattr(args, "no_baseline", False)) or not wants_baseline(store.get_run(run_id))
        if config.player == "llm" and not no_baseline:
            _refuse_busy_baseline(store, run_id)
    else:
        if args.family is None:
            names = ", ".join(registry.names())
            raise UserError(f"name a task family ({names}) or --resume RUN; see `wason eval --help`")
        family = registry.get(args.family)
        config = family.prepare(_eval_config(args, family), store)
        if hasattr(args, "n"):
            _refuse_idle_n(family, config)
        # unknown rule ids and bad rules files fail here, before anything is written; drawing the items once
        # matters for generated rules and examples, which take seconds (with --limit, only those played)
        items = run_items(config)
        if items:
            check_constrain(config, items[0][1])
        run_id = None
        api_key = args.api_key
        no_baseline = bool(getattr(args, "no_baseline", False))
    if config.player == "solver" and getattr(args, "constrain", None) is not None:
        raise UserError("--constrain holds a model's replies to a format; the solver writes none")
    both = getattr(args, "constrain", None) == "both" and run_id is None
    quiet = as_json or bool(getattr(args, "quiet", False))
    progress = _Progress(console, store, quiet=quiet)
    try:
        played = asyncio.run(
            play_run(
                store,
                config,
                run_id=run_id,
                items=items,
                baseline=not no_baseline,
                both=both,
                api_key=api_key,
                observer=progress,
                group_writes=True,
            )
        )
    except KeyboardInterrupt:
        if progress.run is not None:  # the run marked itself interrupted; say how to finish it
            print(f"wason: interrupted; finish with `wason eval --resume {progress.run}`", file=sys.stderr)
        return 130
    if both:
        from wason.report.compare import print_comparison

        # the two runs compared in one table (--json: the comparison's JSON), the solver's row once
        print_comparison(
            store, played, fmt="table", as_json=as_json, baselines=not no_baseline, console=console
        )
        _warn_truncated(store, played)
        return max(_verdict(store, played_id) for played_id in played)
    (run_id,) = played
    runs = [run_id]
    if config.player == "llm" and not no_baseline:
        made = baselines_of(store, run_id)
        if made and store.get_run(made[-1]).status == "completed":
            runs.append(made[-1])
    _report(store, runs, console, as_json=as_json)
    if config.player == "llm":
        _warn_truncated(store, [run_id])
    return _verdict(store, run_id)


class _Progress(RunObserver):
    """A run as ``wason eval`` shows it: a header line, then live progress on standard error: episodes done
    and running, turns, model calls, tokens, retries and failures, pace and ETA (:mod:`wason.engine.progress`).

    On a terminal that is a bar, refreshed every second; otherwise (output to a file or a pipe) one line per
    episode and a summary line every 30 s. ``quiet`` (``--quiet``, ``--json``) shows none of it. Remembers the
    run, to say how to finish it when interrupted."""

    def __init__(self, console: Console, store: Store, *, quiet: bool, of_baseline: bool = False) -> None:
        self.console, self.store, self.quiet, self.of_baseline = console, store, quiet, of_baseline
        self.err = err_console()
        self.run: int | None = None
        self.tracker: Tracker | None = None
        self.bar: Any = None  # a rich Progress while a run plays on a terminal
        self.latest: Standing | None = None  # what the bar shows, read again every second
        self._stop = threading.Event()
        self._ticker: threading.Thread | None = None

    def baseline(self) -> RunObserver | None:
        """The solver baseline's progress, on standard error only (its row is in the table)."""
        return _Progress(self.console, self.store, quiet=self.quiet, of_baseline=True)

    def started(self, run_id: int, n_todo: int, *, resumed: bool) -> None:
        self.run = run_id
        config = load_config(self.store, run_id)
        if not self.quiet and not self.of_baseline:
            self.console.print(_header(config, run_id, self.store, n_todo, resumed=resumed))
        if self.quiet or n_todo == 0:
            return
        self.tracker = Tracker(self.store, run_id, n_todo, model=config.player == "llm")
        self._stop.clear()
        if self.err.is_terminal:
            from rich.live import Live

            self.latest = self.tracker.standing()
            self.bar = Live(
                get_renderable=self._view, console=self.err, refresh_per_second=4, transient=False
            )
            self.bar.start()
            self._tick(1.0, self._refresh)
        else:
            self._tick(SUMMARY_EVERY, lambda: self._say(f"{self._who()}: {self._standing().summary()}"))

    def _standing(self) -> Standing:
        assert self.tracker is not None
        return self.tracker.standing()

    def _refresh(self) -> None:
        if self.tracker is not None:
            self.latest = self.tracker.standing()

    def _view(self) -> Any:
        """The bar's two lines (:class:`_Bar`), as they stand now."""
        from rich.text import Text

        s, tracker = self.latest, self.tracker
        if s is None or tracker is None:
            return Text("")
        return _Bar(self._who(), s, time.monotonic() - tracker.started)

    def _who(self) -> str:
        return f"{'solver baseline ' if self.of_baseline else ''}run {self.run}"

    def _say(self, line: str) -> None:
        if not self.quiet and not say(line):  # standard error's reader left: the run goes on without it
            self.quiet = True

    def _tick(self, period: float, job: Callable[[], None]) -> None:
        def loop() -> None:
            while not self._stop.wait(period):
                with contextlib.suppress(Exception):  # a store briefly busy: the next tick reads again
                    job()

        self._ticker = threading.Thread(target=loop, name="wason-progress", daemon=True)
        self._ticker.start()

    def result(self, result: EpisodeResult) -> None:
        if self.tracker is None:
            return
        self.tracker.finished(result)
        if self.bar is not None and self.latest is not None:
            self.latest = dataclasses.replace(
                self.latest,
                done=self.tracker.done,
                correct=self.tracker.correct,
                errored=self.tracker.errored,
            )
        else:
            turns = len(self.store.list_turns(result.episode_id))
            self._say(f"{self._who()}: {self.tracker.episode_line(result, turns)}")

    def ended(self, run_id: int) -> None:
        self._stop.set()
        if self._ticker is not None:
            self._ticker.join(timeout=5)
            self._ticker = None
        if self.bar is not None:
            self._refresh()
            self.bar.stop()
            self.bar = None
        elif self.tracker is not None:
            standing = self._standing()
            ended = "played" if standing.done >= standing.todo else "stopped"
            self._say(f"{self._who()} {ended}: {standing.summary()}")
        self.tracker = None


_BAR_WORDS = 62
"""The columns the first line of the live bar keeps for its words after the bar."""


@dataclasses.dataclass(frozen=True)
class _Bar:
    """The live bar of a run on a terminal, two lines whatever its width (each cut with an ellipsis, never
    wrapped): the episodes' bar with the counts, the time taken and the ETA; then how the episodes ended, the
    turns, model calls and tokens. The bar itself takes what the terminal leaves the words, 4 to 24 columns."""

    who: str
    standing: Standing
    elapsed: float

    def __rich_console__(self, console: Console, options: Any) -> Any:
        from rich.progress_bar import ProgressBar
        from rich.table import Table
        from rich.text import Text

        s = self.standing
        head = f"{self.who}:"
        tail = (
            f"{s.done:,}/{s.todo:,} episodes, {s.running:,} running, {duration(self.elapsed)}, {s.eta_text()}"
        )
        width = options.max_width
        # the bar's width depends on the terminal's alone, so it does not jump as the words change: what the
        # longest usual words leave ("4,120/13,800 episodes, 8 running, 1 h 6 min, ETA 2 h 36 min")
        bar = max(4, min(24, width - len(head) - 2 - _BAR_WORDS))
        line = Table.grid(padding=(0, 1))
        # the run's name and the bar keep their widths; the words after them are cut to what is left
        line.add_column(width=len(head), no_wrap=True)
        line.add_column(width=bar, no_wrap=True)
        line.add_column(width=max(1, width - len(head) - bar - 2), no_wrap=True, overflow="ellipsis")
        line.add_row(
            Text(head, no_wrap=True, overflow="ellipsis"),
            ProgressBar(total=max(s.todo, 1), completed=s.done, width=bar),
            Text(tail, no_wrap=True, overflow="ellipsis"),
        )
        yield line
        yield Text(
            f"  {s.correct:,} correct, {s.errored:,} errored; {s.turns:,} turns; {s.calls_text()}",
            no_wrap=True,
            overflow="ellipsis",
        )


def _refuse_busy_baseline(store: Store, run_id: int) -> None:
    """Refuse, before any request, to resume a run whose unfinished solver baseline another process is playing
    (the baseline is played after the run: it would be refused only then)."""
    for baseline in baselines_of(store, run_id):
        if (holder := store.get_run(baseline).owner) is not None:
            raise StoreError(
                f"run {run_id}'s solver baseline (run {baseline}) is being worked on by {holder}; wait for it to "
                f"finish or stop it, then `wason eval --resume {run_id}`"
            )


def _header(config: RunSettings, run_id: int, store: Store, n_todo: int, *, resumed: bool) -> str:
    from wason.models.spec import describe_params

    n = len(store.list_episodes(run_id))  # the stored episodes: no need to rebuild a generated split
    shown = describe_params(config.params)
    verb = "Resuming" if resumed else "Running"
    held = ", replies constrained to the protocol's format" if config.constrain else ""
    who = (
        f"{config.model} ({shown or 'model defaults'}{held})"
        if config.player == "llm"
        else f"the {config.player}"
    )
    what = family_of(config).describe(config, n, n_todo, who)
    if config.limit is not None:
        what += f"; the first {config.limit} item{'s' if config.limit > 1 else ''} (--limit)"
    return f"{verb} run {run_id}: {what}; store {store.url}"
