"""``wason runs``: the runs in the store, filtered, as a table that fits 80 columns or as JSON; and
``wason runs --delete``."""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from rich import box
from rich.console import Console, ConsoleOptions, RenderResult
from rich.table import Table
from rich.text import Text

from wason.core import registry
from wason.core.labels import played, played_settings
from wason.core.records import Rate, RunRow, player_name
from wason.engine import baselines_of
from wason.store import RunBusy, Store, StoreError

__all__ = [
    "RUN_STATUSES",
    "RunFilter",
    "RunLine",
    "RunsTable",
    "delete_command",
    "key_setting",
    "run_lines",
    "runs_json",
    "runs_table",
]

RUN_STATUSES = ("running", "completed", "incomplete", "interrupted", "failed")
"""What a run's status can be: playing now, every episode completed, ended with some episodes errored,
stopped before its end (Ctrl-C, a killed process: ``wason eval --resume RUN`` finishes it), failed."""


def key_setting(run: RunRow) -> tuple[str | None, str | None]:
    """The fields naming what a run plays (its family's ``label_fields``, joined with ``,``) and their values as
    its label shows them (``L1,L2,L3``; several fields joined with ``:``), or ``(None, None)``."""
    settings = played_settings(run)
    if not settings:
        return None, None
    return ",".join(n for n, _ in settings), ":".join(t for _, t in settings)


def _aware(moment: datetime | None) -> datetime | None:
    # SQLite gives back naive datetimes; the store writes them in UTC
    if moment is None or moment.tzinfo is not None:
        return moment
    return moment.replace(tzinfo=UTC)


def _parse_date(flag: str, text: str | None) -> datetime | None:
    if text is None:
        return None
    try:
        moment = datetime.fromisoformat(text.strip())
    except ValueError:
        raise ValueError(
            f"{flag} {text!r}: not a date (give YYYY-MM-DD or YYYY-MM-DDTHH:MM, in UTC unless it has an offset)"
        ) from None
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


@dataclass(frozen=True)
class RunFilter:
    """Which runs ``wason runs`` lists; every field left None lets every run through.

    Attributes:
        family: the family's name.
        model: text the run's model or player contains (case-insensitive).
        status: one of :data:`RUN_STATUSES`.
        since: created at or after this moment.
        until: created before this moment.
    """

    family: str | None = None
    model: str | None = None
    status: str | None = None
    since: datetime | None = None
    until: datetime | None = None

    @classmethod
    def parse(
        cls,
        *,
        family: str | None = None,
        model: str | None = None,
        status: str | None = None,
        since: str | None = None,
        until: str | None = None,
    ) -> RunFilter:
        """The filter of the command line's flags; dates are ISO dates or date-times (UTC unless they carry an
        offset).

        Raises:
            ValueError: an unknown family or status, or a date that cannot be read; one line naming the flag.
        """
        if family is not None and family not in registry.names():
            raise ValueError(f"--family {family!r}: no such family (families: {', '.join(registry.names())})")
        if status is not None and status not in RUN_STATUSES:
            raise ValueError(f"--status {status!r}: no such status (statuses: {', '.join(RUN_STATUSES)})")
        return cls(
            family=family,
            model=model or None,
            status=status,
            since=_parse_date("--since", since),
            until=_parse_date("--until", until),
        )

    def select(self, store: Store) -> list[RunRow]:
        """The runs of the store this filter lets through, oldest first."""
        found = store.find_runs(task=self.family, text=self.model, since=self.since, until=self.until)
        # a run's status "interrupted" is read from its lease, not stored: filter after reading
        return [r for r in found if self.status is None or r.status == self.status]


@dataclass(frozen=True)
class RunLine:
    """One run as ``wason runs`` shows it."""

    run: RunRow
    episodes: dict[str, int]
    calls: dict[str, int]

    @property
    def who(self) -> str:
        return player_name(self.run)

    @property
    def what(self) -> str:
        """``family:split`` (or the family's key setting)."""
        what = played(self.run)
        return f"{self.run.task}:{what}" if what else self.run.task

    @property
    def duration_s(self) -> float | None:
        return seconds_between(self.run.created_at, self.run.finished_at)

    @property
    def accuracy(self) -> Rate:
        """Successes over the episodes that ended (an errored episode counts as a failure)."""
        ended = self.episodes["completed"] + self.episodes["errored"]
        return Rate.of(min(self.episodes["succeeded"], ended), ended)

    @property
    def params(self) -> dict[str, Any]:
        """The key settings: temperature and max_tokens when set, trials when more than one."""
        out: dict[str, Any] = {}
        # a player that is not a model is given no generation settings (they are the defaults, unused)
        params = (self.run.config.get("params") or {}) if self.run.player == "llm" else {}
        for name in ("temperature", "max_tokens", "reasoning_effort"):
            if params.get(name) is not None:
                out[name] = params[name]
        trials = self.run.config.get("trials")
        if isinstance(trials, int) and trials > 1:
            out["trials"] = trials
        return out


def run_lines(store: Store, wanted: RunFilter | None = None) -> list[RunLine]:
    """The runs a filter lets through, with their episode and call counts (three queries in all)."""
    chosen = (wanted or RunFilter()).select(store)
    ids = [r.id for r in chosen]
    episodes = store.episode_counts(ids)
    calls = store.call_totals_of(ids)
    return [RunLine(r, episodes[r.id], calls[r.id]) for r in chosen]


def runs_json(store: Store, wanted: RunFilter | None = None) -> list[dict[str, Any]]:
    """``wason runs --json``: one object per run, numbers as numbers (the accuracy as a :class:`Rate`)."""
    out = []
    for line in run_lines(store, wanted):
        run = line.run
        created, finished = _aware(run.created_at), _aware(run.finished_at)
        setting, value = key_setting(run)
        out.append(
            {
                "id": run.id,
                "family": run.task,
                "split": value,
                "split_setting": setting,
                "player": run.player,
                "model": run.model,
                "status": run.status,
                "created_at": created.isoformat() if created else None,
                "finished_at": finished.isoformat() if finished else None,
                "duration_s": line.duration_s,
                "episodes": line.episodes["total"],
                "finished": line.episodes["completed"],
                "errored": line.episodes["errored"],
                "accuracy": line.accuracy.model_dump(mode="json"),
                "calls": line.calls["calls"] + line.calls["cached_calls"],
                "tokens": {"in": line.calls["input_tokens"], "out": line.calls["output_tokens"]},
                "params": line.params,
                "baseline_for": run.config.get("baseline_for"),
            }
        )
    return out


def seconds_between(start: datetime | None, end: datetime | None) -> float | None:
    """The seconds from ``start`` to ``end`` (None when either is unknown); a naive time is UTC (SQLite's)."""
    start, end = _aware(start), _aware(end)
    return None if start is None or end is None else (end - start).total_seconds()


def took_text(seconds: float | None, status: str = "") -> str:
    """A duration as the runs lists write it: ``4.2s``, ``37s``, ``3m05s``, ``2h04m``; none: ``running`` for a
    run still running, else ``-``."""
    if seconds is None:
        return "running" if status == "running" else "-"
    whole = round(seconds)
    if whole < 60:
        return f"{seconds:.1f}s" if seconds < 10 else f"{whole}s"
    if whole < 3600:
        return f"{whole // 60}m{whole % 60:02d}s"
    return f"{whole // 3600}h{whole % 3600 // 60:02d}m"


def count_text(n: int) -> str:
    """A token count as the runs lists write it: ``950``, ``12.3k``, ``123k``, ``1.2M``."""
    if n < 10_000:
        return str(n)
    if n < 1_000_000:
        return f"{n / 1000:.1f}k" if n < 100_000 else f"{n // 1000}k"
    return f"{n / 1_000_000:.1f}M"


_PARAM_SHORT = {"temperature": "T", "max_tokens": "max", "reasoning_effort": "effort", "trials": "trials"}


_COLUMNS = ("id", "run", "by", "status", "created", "took", "eps", "acc", "tok", "params")
_RIGHT = frozenset({"id", "took", "eps", "acc"})
_LEGEND = (
    "by: model or player; took: finished - created; eps: episodes finished/total; acc: successes of the "
    "episodes ended, percent [95% Wilson interval] over k/n; tok: tokens spent in, out (k thousands, M "
    "millions); T temperature, max max_tokens; times UTC"
)


class RunsTable:
    """The runs listing as rich renders it: laid out for the width it is given (80 columns and up: nothing is
    cut; the created time, tokens, settings and the long names wrap onto more lines where they must, a model's or
    run's name after its ``:``, ``/`` or ``-`` rather than in the middle of a word)."""

    def __init__(self, title: str, rows: list[tuple[str, ...]], caption: str) -> None:
        self.title, self.rows, self.caption = title, rows, caption

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        # the title on a line of its own: a long store URL over a narrow table would otherwise wrap
        yield Text(self.title, style="table.title", overflow="fold")
        yield self.table(options.max_width)

    def table(self, width: int) -> Table:
        """The table laid out for ``width`` columns."""
        widths = self._widths(width)
        table = Table(
            box=box.SIMPLE_HEAD,
            padding=(0, 0),
            show_edge=False,
            caption=self.caption,
            caption_justify="left",
        )
        for name in _COLUMNS:
            table.add_column(
                name,
                justify="right" if name in _RIGHT else "left",
                overflow="fold",
                width=widths.get(name),
            )
        names = {_COLUMNS.index("run"), _COLUMNS.index("by")}
        for row in self.rows:
            cells = [
                _wrap_name(cell, widths[_COLUMNS[i]]) if i in names and _COLUMNS[i] in widths else cell
                for i, cell in enumerate(row)
            ]
            table.add_row(*cells)
        return table

    def _widths(self, width: int) -> dict[str, int]:
        natural = {  # a cell of several lines (a rate over its counts) is as wide as its longest line
            name: max([len(name), *(len(part) for row in self.rows for part in row[i].split("\n"))])
            for i, name in enumerate(_COLUMNS)
        }
        room = width - (len(_COLUMNS) - 1)  # one space between columns
        if sum(natural.values()) <= room:
            return {}

        def longest_word(i: int) -> int:
            return max([len(_COLUMNS[i]), *(len(w) for row in self.rows for w in row[i].split())])

        narrow = dict(natural)
        for name in ("created", "tok", "params"):  # these wrap at their spaces
            narrow[name] = longest_word(_COLUMNS.index(name))
        left = room - sum(v for k, v in narrow.items() if k not in {"run", "by"})
        want = natural["run"] + natural["by"]
        if want > left:
            # the run's name is short and read first: it keeps up to 12 columns, the player or model takes the rest
            run = min(natural["run"], max(left // 3, 12))
            narrow["run"], narrow["by"] = run, max(4, left - run)
        return narrow


_NAME_BREAK = re.compile(r"(?<=[:/\-_ ])")


def _wrap_name(text: str, width: int) -> str:
    """A name in lines of at most ``width``, broken after ``:``, ``/``, ``-``, ``_`` or a space where it can be
    (``local:`` / ``smollm2-135m``); only a part longer than the width is cut, by the table's own folding."""
    lines: list[str] = []
    for line in text.split("\n"):
        current = ""
        for part in _NAME_BREAK.split(line):
            if current and len(current) + len(part.rstrip()) > width:
                lines.append(current.rstrip())
                current = ""
            current += part
        lines.append(current.rstrip())
    return "\n".join(lines)


def runs_table(store: Store, wanted: RunFilter | None = None) -> RunsTable:
    """``wason runs``: a table that fits 80 columns (headers abbreviated, explained in the caption; long cells
    wrap, nothing is cut)."""
    rows: list[tuple[str, ...]] = []
    for line in run_lines(store, wanted):
        run = line.run
        created = _aware(run.created_at)
        tokens = f"{count_text(line.calls['input_tokens'])} {count_text(line.calls['output_tokens'])}"
        baseline = run.config.get("baseline_for")
        rows.append(
            (
                str(run.id),
                line.what,
                line.who + (f" (baseline of {baseline})" if baseline is not None else ""),
                run.status,
                created.strftime("%Y-%m-%d %H:%M") if created else "-",
                took_text(line.duration_s, line.run.status),
                f"{line.episodes['completed']}/{line.episodes['total']}",
                line.accuracy.text("\n"),
                tokens if line.calls["calls"] or line.calls["cached_calls"] else "-",
                " ".join(f"{_PARAM_SHORT[k]}={v}" for k, v in line.params.items()),
            )
        )
    caption = _LEGEND if rows else "no runs match" if wanted not in (None, RunFilter()) else "no runs yet"
    return RunsTable(f"Runs in {store.url}", rows, caption)


# -- delete -----------------------------------------------------------------------------------------------
def _describe(line: RunLine) -> str:
    return (
        f"{line.what} by {line.who}, {line.episodes['total']} episodes, "
        f"{line.calls['calls'] + line.calls['cached_calls']} calls"
    )


def delete_command(
    store: Store,
    run_ids: Sequence[int],
    *,
    yes: bool = False,
    write: Callable[[str], None] = print,
    read: Callable[[str], str] = input,
    interactive: bool | None = None,
) -> int:
    """``wason runs --delete RUN...``: delete runs with their episodes, turns and model calls, and the solver
    baseline runs made for them, each run in its own transaction.

    Deleting a run's model calls also removes their replies from the cache (a call's record is its cache
    entry): running the same evaluation again calls the model again.

    Args:
        yes: delete without asking.
        write: where the lines go.
        read: how the question is asked (``input``).
        interactive: whether to ask; by default when standard input is a terminal.

    Returns:
        0 when the runs were deleted, 1 when the question was answered no.

    Raises:
        StoreError: an unknown run, or a run a live process is working on; nothing is deleted.
        ValueError: not asked (standard input is not a terminal) and ``yes`` not given; nothing is deleted.
    """
    wanted = list(dict.fromkeys(run_ids))
    for run_id in wanted:
        store.get_run(run_id)  # an unknown run is one line before anything is deleted
    baselines: dict[int, list[int]] = {}
    for run_id in wanted:
        baselines[run_id] = [b for b in baselines_of(store, run_id) if b not in wanted]
    every = list(dict.fromkeys([*wanted, *(b for r in wanted for b in baselines[r])]))
    lines = {line.run.id: line for line in _lines_of(store, every)}
    for run_id in every:
        owner = lines[run_id].run.owner
        if owner is not None:
            raise StoreError(
                f"run {run_id} is being worked on by {owner}; stop it first (nothing was deleted)"
            )
    parts = []
    for run_id in wanted:
        text = f"run {run_id} ({_describe(lines[run_id])})"
        made = baselines[run_id]
        if made:
            text += f" and its baseline run{'s' if len(made) > 1 else ''} {', '.join(map(str, made))}"
        parts.append(text)
    question = f"delete {'; '.join(parts)}?"
    if not yes:
        asking = sys.stdin.isatty() if interactive is None else interactive
        if not asking:
            raise ValueError(
                f"{question[:-1]}: add --yes to delete without asking (standard input is "
                "not a terminal); nothing was deleted"
            )
        answer = read(f"{question} [y/N] ").strip().lower()
        if answer not in {"y", "yes"}:
            write("nothing was deleted")
            return 1
    for run_id in every:
        try:
            gone = store.delete_run(run_id)
        except RunBusy as exc:
            raise StoreError(
                f"run {run_id} is being worked on by {exc.holder}; stop it first (runs before it in the list "
                "were deleted)"
            ) from None
        cached = " (and their cached replies)" if gone["calls"] else ""
        write(
            f"deleted run {run_id}: {gone['episodes']} episodes, {gone['turns']} turns, {gone['calls']} model "
            f"calls{cached}"
        )
    return 0


def _lines_of(store: Store, run_ids: list[int]) -> list[RunLine]:
    chosen = [store.get_run(r) for r in run_ids]
    episodes = store.episode_counts(run_ids)
    calls = store.call_totals_of(run_ids)
    return [RunLine(r, episodes[r.id], calls[r.id]) for r in chosen]
