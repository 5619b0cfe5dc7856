"""Browse and compare runs: the home page, the runs list, a run, an episode, runs side by side.

The same context builders serve ``wason serve`` (links from ``/``) and the static ``wason report`` (relative links
to ``.html`` files, see :mod:`wason.server.web.report`): only :class:`Links` differs. Pages reach families through
the registry and the :class:`wason.core.Family` interface, so they show every family alike.

A game that is not over (an episode pending or running) keeps its hidden item out of every page, and a run with
such a game keeps the configuration fields that draw its items (:mod:`wason.core.public`): reports are drawn
from a :class:`PublicReader`, which hands families only the public keys of such episodes' items
(:meth:`Family.public`) and the public part of such runs' configurations, their transcripts are the turns so far
(what the player saw), and their model calls are listed without their messages (a judge's or a game master's
prompt holds the rule).
"""

from __future__ import annotations

import asyncio
import collections
import dataclasses
import json
import shutil
import tempfile
import threading
import typing
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import date
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar
from urllib.parse import urlencode

import sqlalchemy as sa
from fastapi import APIRouter, Request
from fastapi.responses import FileResponse, HTMLResponse, Response

from wason.core import registry
from wason.core.family import Family
from wason.core.labels import run_label
from wason.core.public import GAME_OVER, HIDDEN, public_episode, public_run
from wason.core.records import EpisodeRow, Rate, RunRow, calls_note, rate_text
from wason.core.results import Transcript, end_reason_text, yes_no
from wason.engine import baselines_of
from wason.report.plots import figures_of, write_plots
from wason.report.render import results_html
from wason.report.runs import count_text, seconds_between, took_text
from wason.report.tables import episode_json, results_of
from wason.server import offload
from wason.server.web.pages import render
from wason.store import Store, StoreError
from wason.store.db import episodes
from wason.store.search import MAX_QUERY_CHARS, action_values, check_query, snippet

if TYPE_CHECKING:
    from wason.report.compare import Comparison

router = APIRouter()
T = TypeVar("T")

FINISHED = GAME_OVER
"""Episode statuses of a game that is over: its whole item may be shown."""

RUN_STATUSES = ("running", "completed", "incomplete", "interrupted", "failed")
SORT_KEYS = ("id", "family", "who", "status", "created", "duration", "episodes", "accuracy", "tokens")
PER_PAGE = 100
CONSOLE_WIDTH = 150


class PageError(Exception):
    """A request a page cannot answer: one line for the user, with its HTTP status."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


# -- links ------------------------------------------------------------------------------------------------
@dataclasses.dataclass(frozen=True)
class Links:
    """Where pages link to. On the server: absolute paths from ``root`` (``/``). In a static report: files
    relative to the page (``root`` is ``./`` or ``../``...), ``.html`` added, and only to runs it holds."""

    root: str = "/"
    static_report: bool = False
    runs_held: frozenset[int] | None = None

    def _page(self, path: str) -> str:
        return f"{self.root}{path}.html" if self.static_report else f"{self.root}{path}"

    def home(self) -> str:
        return f"{self.root}index.html" if self.static_report else self.root

    def runs(self, **query: Any) -> str:
        if self.static_report:
            return self.home()
        params = {k: v for k, v in query.items() if v not in (None, "")}
        return f"{self.root}runs" + (f"?{urlencode(params)}" if params else "")

    def run(self, run_id: int) -> str | None:
        if self.runs_held is not None and run_id not in self.runs_held:
            return None
        return self._page(f"runs/{run_id}")

    def episode(self, run_id: int, index: int) -> str | None:
        if self.runs_held is not None and run_id not in self.runs_held:
            return None
        return self._page(f"runs/{run_id}/episodes/{index}")

    def compare(self, run_ids: Sequence[int]) -> str:
        if self.static_report:
            return f"{self.root}compare.html"
        return f"{self.root}compare?{urlencode({'runs': ','.join(map(str, run_ids))})}"

    def plot(self, run_id: int, name: str) -> str:
        return f"{self.root}runs/{run_id}/plots/{name}"


# -- what a page may show of a game that is not over --------------------------------------------------------
def unfinished_runs(store: Store, run_ids: Iterable[int] | None = None) -> set[int]:
    """The runs (of ``run_ids``, default all) with a game that is not over - one query."""
    e = episodes.c
    query = sa.select(e.run_id).where(e.status.not_in(sorted(GAME_OVER))).group_by(e.run_id)
    if run_ids is not None:
        query = query.where(e.run_id.in_(list(run_ids)))
    with store.engine.connect() as c:
        return {int(r[0]) for r in c.execute(query)}


def shown_run(store: Store, run: RunRow) -> RunRow:
    """``run`` as a page shows it: its configuration reduced while one of its games is not over."""
    return public_run(run, _family_or_none(run.task), over=not unfinished_runs(store, [run.id]))


class PublicReader:
    """The store as reports read it (:class:`wason.core.family.RunReader`), with the episodes whose game is not
    over reduced to the public keys of their items and their item key hidden, and the runs with such games
    reduced to the public part of their configuration; with ``finished_only`` such episodes are left out (for
    reports that need every episode's hidden part)."""

    def __init__(self, store: Store, *, finished_only: bool = False) -> None:
        self.store = store
        self.url = store.url
        self.finished_only = finished_only

    def get_run(self, run_id: int) -> RunRow:
        return shown_run(self.store, self.store.get_run(run_id))

    def list_runs(self) -> list[RunRow]:
        unfinished = unfinished_runs(self.store)
        return [
            public_run(r, _family_or_none(r.task), over=r.id not in unfinished)
            for r in self.store.list_runs()
        ]

    def baselines_of(self, run_id: int, *, completed_only: bool = False) -> list[int]:
        return self.store.baselines_of(run_id, completed_only=completed_only)

    def list_episodes(self, run_id: int) -> list[EpisodeRow]:
        episodes = self.store.list_episodes(run_id)
        if self.finished_only:
            return [e for e in episodes if e.status in FINISHED]
        family = _family_or_none(self.store.get_run(run_id).task)
        return [public_episode(e, family) for e in episodes]

    def list_turns(self, episode_id: int) -> list[dict[str, Any]]:
        return self.store.list_turns(episode_id)

    def call_totals(self, run_id: int) -> dict[str, int]:
        return self.store.call_totals(run_id)

    def finish_reasons(self, run_id: int) -> dict[str, int]:
        return self.store.finish_reasons(run_id)

    def unreadable_counts(self, run_id: int) -> dict[str, int]:
        return self.store.unreadable_counts(run_id)


def _family_or_none(name: str) -> Family[Any] | None:
    try:
        return registry.get(name)
    except (registry.UnknownFamily, registry.FamilyLoadError):
        return None


def family_of_run(run: RunRow) -> Family[Any]:
    try:
        return registry.get(run.task)
    except (registry.UnknownFamily, registry.FamilyLoadError) as exc:
        raise PageError(
            f"run {run.id} is a {run.task} run, and that family cannot be loaded here: {exc}", 500
        ) from None


def get_run(store: Store, run_id: int) -> RunRow:
    try:
        return store.get_run(run_id)
    except StoreError:
        raise PageError(f"there is no run {run_id} in this store", 404) from None


# -- the runs list ----------------------------------------------------------------------------------------
def who(run: RunRow) -> str:
    return str(run.model) if run.player == "llm" and run.model else str(run.player)


def episode_counts(store: Store, run_ids: Iterable[int] | None = None) -> dict[int, tuple[int, int, int]]:
    """Per run (of ``run_ids``, default all): its episodes, those over, those that succeeded - one query for the
    whole list (reading every episode's item to count them cost a second for a few hundred runs)."""
    e = episodes.c
    query = sa.select(
        e.run_id,
        sa.func.count(),
        sa.func.sum(sa.case((e.status.in_(sorted(FINISHED)), 1), else_=0)),
        sa.func.sum(sa.case((e.success.is_(True), 1), else_=0)),
    ).group_by(e.run_id)
    if run_ids is not None:
        query = query.where(e.run_id.in_(list(run_ids)))
    with store.engine.connect() as c:
        return {int(r[0]): (int(r[1]), int(r[2] or 0), int(r[3] or 0)) for r in c.execute(query)}


def run_rows(store: Store, runs: Iterable[RunRow] | None = None) -> list[dict[str, Any]]:
    """One row per run: what the runs list shows and sorts by."""
    rows = []
    listed = store.list_runs() if runs is None else list(runs)
    # the runs given only: a page of a few runs does not count the episodes of the whole store
    counts = episode_counts(store, None if runs is None else [r.id for r in listed])
    calls = store.call_totals_of([r.id for r in listed]) if listed else {}
    for given in listed:
        n, finished, correct = counts.get(given.id, (0, 0, 0))
        accuracy = Rate.of(min(correct, finished), finished)
        fam = _family_or_none(given.task)
        run = public_run(given, fam, over=finished == n)
        spent = calls.get(given.id, {})
        tokens_in, tokens_out = int(spent.get("input_tokens", 0)), int(spent.get("output_tokens", 0))
        seconds = seconds_between(run.created_at, run.finished_at)
        rows.append(
            {
                "id": run.id,
                "family": run.task,
                "title": fam.title if fam is not None else run.task,
                "label": run_label(run),
                "who": who(run),
                "player": run.player,
                "status": run.status,
                "created": run.created_at,
                "created_text": run.created_at.strftime("%Y-%m-%d %H:%M:%S"),
                "episodes": n,
                "finished": finished,
                "correct": correct,
                # over the episodes that ended (an errored one a failure), as `wason runs` counts it: a game not
                # played yet is no failure
                "accuracy": accuracy.rate,
                "accuracy_text": accuracy.text(),
                "baseline_for": run.config.get("baseline_for"),
                "duration": seconds,
                "duration_text": took_text(seconds, run.status),
                "tokens": tokens_in + tokens_out if tokens_in + tokens_out else None,
                "tokens_text": f"{count_text(tokens_in)} in, {count_text(tokens_out)} out"
                if tokens_in + tokens_out
                else "-",
            }
        )
    return rows


@dataclasses.dataclass
class RunFilters:
    family: str = ""
    model: str = ""
    status: str = ""
    date_from: str = ""
    date_to: str = ""
    sort: str = "id"
    order: str = "desc"
    page: int = 1

    def query(self, **changes: Any) -> dict[str, Any]:
        values = {**dataclasses.asdict(self), **changes}
        return {
            "family": values["family"],
            "model": values["model"],
            "status": values["status"],
            "from": values["date_from"],
            "to": values["date_to"],
            "sort": values["sort"] if values["sort"] != "id" else "",
            "order": values["order"] if values["order"] != "desc" else "",
            "page": values["page"] if values["page"] != 1 else "",
        }


def parse_filters(store: Store, params: dict[str, str]) -> tuple[RunFilters, str | None]:
    """The runs list's query parameters, checked; the first bad one is one line (and the filters are left
    at what could be read)."""
    f = RunFilters(
        family=params.get("family", "").strip(),
        model=params.get("model", "").strip(),
        status=params.get("status", "").strip(),
        date_from=params.get("from", "").strip(),
        date_to=params.get("to", "").strip(),
        sort=params.get("sort", "id").strip() or "id",
        order=params.get("order", "desc").strip() or "desc",
    )
    unknown = sorted(set(params) - {"family", "model", "status", "from", "to", "sort", "order", "page"})
    if unknown:
        return f, f"{unknown[0]}: not a filter of the runs list (filters: family, model, status, from, to)"
    families = set(registry.names()) | set(store.run_tasks())
    if f.family and f.family not in families:
        return f, f"family: no family named {f.family[:80]!r} (families: {', '.join(sorted(families))})"
    if f.status and f.status not in RUN_STATUSES:
        return f, f"status: {f.status[:40]!r} is not a run status (one of: {', '.join(RUN_STATUSES)})"
    days = []
    for name, text in (("from", f.date_from), ("to", f.date_to)):
        try:
            days.append(date.fromisoformat(text) if text else None)
        except ValueError:
            return f, f"{name}: {text[:40]!r} is not a date (YYYY-MM-DD)"
    if days[0] and days[1] and days[0] > days[1]:
        return f, f"from: {f.date_from} is after to: {f.date_to}"
    if f.sort not in SORT_KEYS:
        return f, f"sort: {f.sort[:40]!r} is not a column (one of: {', '.join(SORT_KEYS)})"
    if f.order not in ("asc", "desc"):
        return f, f"order: {f.order[:40]!r} is neither asc nor desc"
    page = params.get("page", "1").strip() or "1"
    if not (page.isascii() and page.isdigit() and int(page[:9]) >= 1 and len(page) < 9):
        return f, f"page: {page[:40]!r} is not a page number (1, 2, ...)"
    f.page = int(page)
    return f, None


def filter_rows(rows: list[dict[str, Any]], f: RunFilters) -> list[dict[str, Any]]:
    day_from = date.fromisoformat(f.date_from) if f.date_from else None
    day_to = date.fromisoformat(f.date_to) if f.date_to else None
    out = [
        r
        for r in rows
        if (not f.family or r["family"] == f.family)
        and (not f.model or f.model.lower() in r["who"].lower())
        and (not f.status or r["status"] == f.status)
        and (day_from is None or r["created"].date() >= day_from)
        and (day_to is None or r["created"].date() <= day_to)
    ]

    def key(r: dict[str, Any]) -> tuple[Any, ...]:
        value = r[f.sort]
        # runs without a value (no episodes: no accuracy) sort last either way; ties by id
        return (value is None, value if value is not None else 0, r["id"])

    out.sort(key=key, reverse=f.order == "desc")
    if f.order == "desc":  # keep the runs without a value last
        out.sort(key=lambda r: r[f.sort] is None)
    return out


# -- a run ------------------------------------------------------------------------------------------------
PlotSource = Callable[[RunRow], list[tuple[str, str]]]
"""A run's plots as (link, file name) pairs; empty for a family without plots."""


def run_context(
    store: Store, run_id: int, links: Links, plots: PlotSource, filters: EpisodeFilters | None = None
) -> dict[str, Any]:
    """Everything a run's page shows: the family's summary (its baselines' rows included), the episodes (those
    ``filters`` keep), the model calls, the plots, the configuration."""
    fam = family_of_run(get_run(store, run_id))
    reader = PublicReader(store)
    run = reader.get_run(run_id)
    baselines = baselines_of(store, run_id, completed_only=True)
    unfinished_baselines = sorted(set(baselines_of(store, run_id)) - set(baselines))
    ids = [run_id, *baselines]
    summary_html, summary_note = _summary(fam, store, ids, links)
    report_data = _report_json(fam, store, ids)
    filters = filters or EpisodeFilters()
    every = store.episode_table(run_id, reveal=FINISHED)
    shown = (
        store.episode_table(run_id, reveal=FINISHED, **filters.store_args()) if filters.active() else every
    )
    episodes = [_episode_row(run_id, e, links) for e in shown]
    calls = calls_note(store.call_totals(run_id))
    return {
        "run": run,
        "title": fam.title,
        "label": run_label(run),
        "who": who(run),
        "summary_html": summary_html,
        "summary_note": summary_note,
        "report_json": json.dumps(report_data, indent=2, default=str) if report_data is not None else None,
        "episodes": episodes,
        "episode_count": len(every),
        "filters": filters,
        "quick": _quick_filters(run_id, every, filters, links),
        "outcomes": OUTCOMES,
        "limits": {"item": MAX_ITEM_CHARS, "q": MAX_QUERY_CHARS, "turns": MAX_TURNS},
        "filter_error": None,
        # the family's summary says it in its notes; the page says it only where the summary did not
        "calls": None if summary_html and calls in summary_html else calls,
        "baselines": [{"id": b, "href": links.run(b)} for b in baselines],
        "unfinished_baselines": [{"id": b, "href": links.run(b)} for b in unfinished_baselines],
        "baseline_for": _baseline_for(run, links),
        "plots": plots(run),
        "config": json.dumps(run.config, indent=2, default=str),
        "compare_href": links.compare([run_id, *baselines])
        if baselines and not links.static_report
        else None,
    }


# -- a run's episodes: filters and search ----------------------------------------------------------------------
OUTCOMES = ("succeeded", "failed", "errored", "unfinished")
"""The outcomes a run's episodes are filtered by: succeeded, over without success (a wrong answer), ended by an
error, not over yet."""
EPISODE_PARAMS = ("outcome", "error", "truncated", "turns_min", "turns_max", "item", "q")
MAX_ITEM_CHARS = 100
"""The longest item filter (part of an item key)."""
MAX_TURNS = 1_000_000
"""The largest turn count a filter takes."""
_YES_NO = {"yes": True, "no": False}


@dataclasses.dataclass
class EpisodeFilters:
    """A run page's episode filters (its query parameters): outcome, error, truncation, length in turns, item
    and words of the transcripts."""

    outcome: str = ""
    error: str = ""
    truncated: str = ""
    turns_min: int | None = None
    turns_max: int | None = None
    item: str = ""
    q: str = ""

    def active(self) -> bool:
        return any(v not in ("", None) for v in dataclasses.asdict(self).values())

    def query(self, **changes: Any) -> dict[str, Any]:
        values = {**dataclasses.asdict(self), **changes}
        return {k: v for k, v in values.items() if v not in ("", None)}

    def store_args(self) -> dict[str, Any]:
        """The filters as :meth:`wason.store.Store.episode_table` takes them."""
        out: dict[str, Any] = {
            "errored": _YES_NO.get(self.error),
            "truncated": _YES_NO.get(self.truncated),
            "min_turns": self.turns_min,
            "max_turns": self.turns_max,
            "item": self.item or None,
            "text": self.q or None,
        }
        if self.outcome == "succeeded":
            out["success"] = True
        elif self.outcome == "failed":
            out.update(statuses=["completed"], success=False)
        elif self.outcome == "errored":
            out["statuses"] = ["errored"]
        elif self.outcome == "unfinished":
            out["statuses"] = sorted({"pending", "running"})
        return out


def parse_episode_filters(params: Mapping[str, str]) -> EpisodeFilters:
    """A run page's query parameters, checked.

    Raises:
        PageError: (400) the first bad parameter, named, and why.
    """
    unknown = sorted(set(params) - set(EPISODE_PARAMS))
    if unknown:
        raise PageError(
            f"{unknown[0][:40]}: not a filter of a run's episodes (filters: {', '.join(EPISODE_PARAMS)})"
        )
    f = EpisodeFilters()
    outcome = params.get("outcome", "").strip()
    if outcome and outcome not in OUTCOMES:
        raise PageError(f"outcome: {outcome[:40]!r} is not an outcome (one of: {', '.join(OUTCOMES)})")
    f.outcome = outcome
    for name in ("error", "truncated"):
        value = params.get(name, "").strip()
        if value and value not in _YES_NO:
            raise PageError(f"{name}: {value[:40]!r} is neither yes nor no")
        setattr(f, name, value)
    for name in ("turns_min", "turns_max"):
        value = params.get(name, "").strip()
        if not value:
            continue
        if not (value.isascii() and value.isdigit() and len(value) <= 7 and int(value) <= MAX_TURNS):
            raise PageError(f"{name}: {value[:40]!r} is not a number of turns (0 to {MAX_TURNS})")
        setattr(f, name, int(value))
    if f.turns_min is not None and f.turns_max is not None and f.turns_min > f.turns_max:
        raise PageError(f"turns_min: {f.turns_min} is more than turns_max: {f.turns_max}")
    item = params.get("item", "").strip()
    if len(item) > MAX_ITEM_CHARS:
        raise PageError(f"item: at most {MAX_ITEM_CHARS} characters (got {len(item)})")
    if any(ord(ch) < 32 for ch in item):
        raise PageError("item: a control character cannot be searched for")
    f.item = item
    q = params.get("q", "")
    if q.strip():
        try:
            f.q = check_query(q)
        except ValueError as exc:
            raise PageError(f"q: {exc}") from None
    return f


def _episode_row(run_id: int, e: Mapping[str, Any], links: Links) -> dict[str, Any]:
    over = e["status"] in FINISHED
    href = links.episode(run_id, e["index"])
    hit = e.get("hit")
    if href is not None and hit is not None and hit.turn is not None:
        href += f"#turn-{hit.turn}"
    return {
        "index": e["index"],
        "key": e["item_key"] if over else HIDDEN,
        "status": e["status"],
        "success": e["success"],
        "error": _first_line(e["error"]),
        "turns": e["turns"],
        "calls": e["calls"],
        "tokens": int(e["input_tokens"]) + int(e["output_tokens"]),
        "truncated": e["truncated"],
        "seconds": seconds_between(e["started_at"], e["finished_at"]),
        "href": href,
        "hit": hit,
    }


ERROR_CHARS = 300
"""An error as the episode table shows it: its first line, cut to this many characters (the episode's page shows it
whole)."""


def _first_line(error: str | None) -> str | None:
    whole = (error or "").strip()
    if not whole:
        return error
    line = whole.splitlines()[0]
    return line if line == whole and len(line) <= ERROR_CHARS else line[:ERROR_CHARS].rstrip() + " …"


def _quick_filters(
    run_id: int, rows: Sequence[Mapping[str, Any]], current: EpisodeFilters, links: Links
) -> list[dict[str, Any]]:
    """One-click filters with their counts: all, each outcome, with an error, truncated."""
    if links.static_report:
        return []
    counts = {
        "succeeded": sum(r["success"] is True for r in rows),
        "failed": sum(r["status"] == "completed" and r["success"] is False for r in rows),
        "errored": sum(r["status"] == "errored" for r in rows),
        "unfinished": sum(r["status"] not in FINISHED for r in rows),
    }
    base = links.run(run_id) or ""
    out = [{"label": "all", "n": len(rows), "href": base, "on": not current.active(), "key": "all"}]
    for outcome in OUTCOMES:
        query = urlencode(EpisodeFilters(outcome=outcome).query())
        out.append(
            {
                "label": outcome,
                "n": counts[outcome],
                "href": f"{base}?{query}#episodes-title",
                "on": current == EpisodeFilters(outcome=outcome),
                "key": outcome,
            }
        )
    truncated = sum(int(r["truncated"]) > 0 for r in rows)
    out.append(
        {
            "label": "truncated",
            "n": truncated,
            "href": f"{base}?truncated=yes#episodes-title",
            "on": current == EpisodeFilters(truncated="yes"),
            "key": "truncated",
        }
    )
    return out


def _baseline_for(run: RunRow, links: Links) -> dict[str, Any] | None:
    target = run.config.get("baseline_for")
    return {"id": target, "href": links.run(int(target))} if isinstance(target, int) else None


REPORT_ERRORS = (KeyError, TypeError, ValueError, AttributeError, ZeroDivisionError)
"""What a family's report may raise when it needs the hidden part of an episode it is not given."""
PARTIAL = (
    "This summary counts only the episodes that are over: those still to play or under way are left out "
    "until they end (the family's report needs their hidden part)."
)


def _report_of(store: Store, make: Callable[[PublicReader], T]) -> tuple[T | None, str | None]:
    """A family's report of runs with games not over: from their public part, else from the finished episodes
    alone (with a note saying so), else none yet."""
    try:
        return make(PublicReader(store)), None
    except REPORT_ERRORS:
        pass
    try:
        return make(PublicReader(store, finished_only=True)), PARTIAL
    except REPORT_ERRORS:
        return None, "The summary is shown once this run's games are over."


REPORTS_KEPT = 32
"""Family reports of finished runs kept by a page builder (:func:`_kept`): the most recently used."""
_reports: collections.OrderedDict[tuple[Any, ...], Any] = collections.OrderedDict()
_reports_guard = threading.Lock()


def _kept(kind: str, fam: Family[Any], store: Store, ids: list[int], extra: Any, make: Callable[[], T]) -> T:
    """``make()``, kept for the next page while the runs stay as they are.

    A family's report of a run (its summary, its JSON) is the slowest part of a run's page (a run of 500
    episodes: 0.1 to 0.3 s each), and a run whose games are all over no longer changes. Kept only for such runs,
    under a key of everything that would change it: the store, the family, each run's id, creation, status and
    end, and its episodes by status (a run resumed, or deleted and made again under the same id, is a new key)."""
    runs = [store.get_run(r) for r in ids]
    counts = store.episode_counts(ids)
    if any(
        r.status == "running" or counts[r.id]["completed"] + counts[r.id]["errored"] < counts[r.id]["total"]
        for r in runs
    ):
        return make()
    key = (
        kind,
        store.connect_url,
        id(fam),
        extra,
        tuple(
            (r.id, r.created_at, r.status, r.finished_at, tuple(sorted(counts[r.id].items()))) for r in runs
        ),
    )
    with _reports_guard:
        if key in _reports:
            _reports.move_to_end(key)
            return typing.cast(T, _reports[key])
    value = make()
    with _reports_guard:
        _reports[key] = value
        while len(_reports) > REPORTS_KEPT:
            _reports.popitem(last=False)
    return value


def _report_json(fam: Family[Any], store: Store, ids: list[int]) -> dict[str, Any] | None:
    def make(reader: PublicReader) -> dict[str, Any]:
        data: dict[str, Any] = fam.report_json(reader, ids).model_dump(mode="json")
        return data

    return _kept("json", fam, store, ids, None, lambda: _report_of(store, make)[0])


def _summary(fam: Family[Any], store: Store, ids: list[int], links: Links) -> tuple[str | None, str | None]:
    run_id = ids[0]

    def draw(reader: PublicReader) -> str:
        return results_html(
            results_of(fam, reader, ids),
            episode_href=lambda index: links.episode(run_id, index),
            run_href=links.run,
        )

    return _kept("summary", fam, store, ids, links, lambda: _report_of(store, draw))


def plots_into(store: Store, run: RunRow, directory: Path) -> list[Path]:
    """Write a run's figures into ``directory``, as PNG and SVG, with its finished baselines beside it as the
    summary has them (nothing for a family that cannot be loaded, or figures that need a game not over)."""
    fam = _family_or_none(run.task)
    if fam is None:
        return []

    try:
        return write_plots(
            PublicReader(store), [run.id, *baselines_of(store, run.id, completed_only=True)], directory
        )
    except REPORT_ERRORS:
        return []


# -- an episode -------------------------------------------------------------------------------------------
def episode_context(store: Store, run_id: int, index: int, links: Links) -> dict[str, Any]:
    """An episode's page: the family's transcript (the turns so far while the game is on), its verdict and
    its model calls."""
    fam = family_of_run(get_run(store, run_id))
    run = shown_run(store, get_run(store, run_id))
    by_index = _episode_ids(store, run_id)  # one indexed query, no item read
    if index not in by_index:
        raise PageError(f"run {run_id} has no episode {index} (its episodes are 0..{len(by_index) - 1})", 404)
    episode = store.get_episode(by_index[index])
    over = episode.status in FINISHED
    shown = public_episode(episode, fam)
    turns = store.list_turns(episode.id)
    transcript = None
    if over:
        data = episode_json(store, run_id, index)
        try:
            transcript = fam.messages(data, run)
        except REPORT_ERRORS:  # a record the family cannot draw (an old or cut-short episode): its turns
            transcript = None
    calls = []
    for c in store.list_calls(episode_id=episode.id):
        calls.append(
            {
                "id": c["id"],
                "turn": c["turn"],
                "model": c["served_model"] or c["model"],
                "messages": c["messages"] if over else None,
                "response": c["response"] if over else None,
                "input_tokens": c["input_tokens"],
                "output_tokens": c["output_tokens"],
                "latency": c["latency_s"],
                "finish_reason": c["finish_reason"],
                "attempts": c["attempts"],
                "retries": max(int(c["attempts"] or 0) - 1, 0),
                "cached": c["cached"],
                "error": c["error"],
                "errors": json.dumps(c["errors"], default=str) if c["errors"] else None,
            }
        )
    metrics = episode.metrics or {}
    return {
        "run": run,
        "title": fam.title,
        "label": run_label(run),
        "run_href": links.run(run_id),
        "episode": shown,
        "over": over,
        "item_json": json.dumps(shown.item, indent=2, default=str),
        "chat": _chat(transcript, calls) if transcript is not None else None,
        # the family's title of a game that is over: it names the hidden item (the rule)
        "chat_title": transcript.title if transcript is not None else None,
        "turns": [
            {
                "index": t["index"],
                "reply": t["reply"],
                "action": json.dumps(t["action"], default=str),
                "feedback": t["feedback"],
            }
            for t in turns
        ],
        "metrics": [
            (k, end_reason_text(metrics) if k == "end_reason" else _short(v))
            for k, v in metrics.items()
            if not isinstance(v, dict | list)
        ],
        "metrics_json": json.dumps(metrics, indent=2, default=str) if metrics else None,
        "calls": calls,
        "prev_href": links.episode(run_id, index - 1) if index - 1 in by_index else None,
        "next_href": links.episode(run_id, index + 1) if index + 1 in by_index else None,
    }


def _episode_ids(store: Store, run_id: int) -> dict[int, int]:
    """A run's episodes: index -> id."""
    e = episodes.c
    with store.engine.connect() as c:
        return {int(i): int(k) for i, k in c.execute(sa.select(e.index, e.id).where(e.run_id == run_id))}


def _chat(transcript: Transcript, calls: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The transcript's messages as the episode page's chat: the system prompt folded, each turn's first message
    an anchor (``#turn-N``), the model calls of a turn beside the player's message of that turn (tokens,
    latency, finish reason, attempts, cache), calls outside any turn beside the last message."""
    by_turn: dict[int | None, list[dict[str, Any]]] = {}
    for call in calls:
        by_turn.setdefault(call["turn"], []).append(call)
    out: list[dict[str, Any]] = []
    anchored: set[int] = set()
    for m in transcript.messages:
        entry: dict[str, Any] = {
            "role": m.role,
            "who": m.name or m.role,
            "text": m.text,
            "annotations": list(m.annotations.items()),
            "anchor": None,
            "calls": [],
        }
        if m.turn is not None and m.turn not in anchored:
            anchored.add(m.turn)
            entry["anchor"] = f"turn-{m.turn}"
        if m.role == "player" and m.turn is not None:
            entry["calls"] = by_turn.pop(m.turn, [])
        out.append(entry)
    rest = [c for turn_calls in by_turn.values() for c in turn_calls]
    if rest and out:
        out[-1]["calls"] = sorted([*out[-1]["calls"], *rest], key=lambda c: c["id"])
    return out


def _short(value: Any) -> str:
    # a verdict in words (yes, no, - for none), never Python's True, False and None
    if isinstance(value, float):
        return f"{value:.4g}"
    return yes_no(value)


# -- comparing runs ---------------------------------------------------------------------------------------
def parse_run_ids(text: str) -> list[int]:
    parts = [p.strip() for p in text.split(",") if p.strip()]
    if not parts:
        raise PageError("runs: give the runs to compare, e.g. ?runs=1,2")
    ids: list[int] = []
    for p in parts:
        if not (p.isascii() and p.isdigit() and len(p) < 12):
            raise PageError(f"runs: {p[:40]!r} is not a run id (give numbers separated by commas)")
        if int(p) not in ids:
            ids.append(int(p))
    if len(ids) < 2:
        raise PageError("runs: give at least two runs to compare, e.g. ?runs=1,2")
    return ids


def compare_context(store: Store, run_ids: Sequence[int], links: Links) -> dict[str, Any]:
    """Runs of one family side by side: each run's summary, the configuration fields that differ, the numbers
    of their reports and the table across runs (a row per player, a column per game and level)."""
    from wason.report.compare import ComparisonView, build_comparison, comparison_view
    from wason.report.grid import grid_json

    runs = [shown_run(store, get_run(store, r)) for r in run_ids]
    tasks = {r.task for r in runs}
    if len(tasks) > 1:
        named = ", ".join(f"run {r.id} ({r.task})" for r in runs)
        raise PageError(f"these runs are of different families ({named}); compare runs of one family")
    fam = family_of_run(runs[0])
    reader = PublicReader(store)
    columns = []
    for run in runs:
        html, note = _summary(fam, store, [run.id], links)
        columns.append(
            {"run": run, "label": run_label(run), "href": links.run(run.id), "html": html, "note": note}
        )
    ids = [r.id for r in runs]
    try:
        grid: dict[str, Any] | None = _kept("grid", fam, store, ids, None, lambda: grid_json(reader, ids))
    except REPORT_ERRORS:
        grid = None
    if grid is not None:  # each cell's rate as every report writes one
        grid = {**grid, "rows": [{**r, "cells": _grid_texts(r["cells"])} for r in grid["rows"]]}
    try:
        # the runs given only: their baselines have pages of their own and would repeat the columns here
        data: Comparison | None = _kept(
            "comparison", fam, store, ids, None, lambda: build_comparison(reader, ids, baselines=False)
        )
        comparison: ComparisonView | None = comparison_view(data) if data is not None else None
    except REPORT_ERRORS:
        data, comparison = None, None
    return {
        "title": fam.title,
        "columns": columns,
        "config_rows": _side_by_side([r.config for r in runs], only_differences=True),
        "number_rows": _numbers(data) if data is not None else [],
        "paired_words": [_paired_words(data, row) for row in data.rows if row.paired] if data else [],
        "grid": grid,
        "comparison": comparison,
    }


def _grid_texts(cells: dict[str, Any]) -> dict[str, Any]:
    out = {}
    for column, cell in cells.items():
        shown = None
        if cell.get("games"):
            low, high = cell["interval"]
            shown = rate_text(cell["rate"], (low, high), cell["wins"], cell["games"])
        out[column] = {**cell, "text": shown}
    return out


def _numbers(data: Comparison) -> list[dict[str, Any]]:
    """The runs' numbers in rows, each labelled in words with what it means: the family's scores (a rate as
    every report writes one, ``25% [5-57] 1/4``), then replies unreadable and cut off, errored episodes, tokens."""
    rows: list[dict[str, Any]] = []
    for column in data.columns:
        values = []
        for run in data.rows:
            score = next((sc for sc in run.scores if sc.name == column.name), None)
            values.append(_score_text(score))
        rows.append({"key": column.name, "legend": column.legend, "values": values})
    for key, label, legend in (
        ("errored", "Errored episodes", "episodes that ended in an error after their retries"),
        ("unreadable", "Unreadable replies", "replies that could not be read as a move (format errors)"),
        ("truncated", "Truncated replies", "replies cut off at the token limit"),
        ("input_tokens", "Tokens in", "tokens of the prompts sent (not those replayed from the cache)"),
        ("output_tokens", "Tokens out", "tokens of the replies"),
    ):
        values = [getattr(run, key) for run in data.rows]
        rows.append(
            {"key": label, "legend": legend, "values": ["-" if v is None else f"{v:,}" for v in values]}
        )
    for row in rows:
        row["differ"] = len(set(row["values"])) > 1
    return rows


def _score_text(score: Any) -> str:
    if score is None or score.value is None:
        return "-"
    if score.kind == "rate":  # as every report writes a rate: 25% [5-57] 1/4
        return rate_text(score.value, score.interval or (0.0, 1.0), score.k or 0, score.n or 0)
    if score.kind == "count":
        return f"{int(score.value):,}"
    text = f"{score.value:.3g}"
    if score.interval:
        low, high = score.interval
        text += f", 95% interval {low:.3g} to {high:.3g}"
    return text


def _paired_words(data: Comparison, row: Any) -> str:
    """One paired comparison in words: on what items, who won which, the difference and whether it is more
    than chance would give."""
    first = data.rows[0]
    p = row.paired
    diff = 100 * p.difference
    low, high = (100 * x for x in p.interval)
    significant = p.mcnemar_p < 0.05
    way = "more" if diff > 0 else "fewer"
    return (
        f"On the {p.n} item{'s' if p.n != 1 else ''} both played, run {row.run} ({row.label}) succeeded on "
        f"{p.this.k} and run {first.run} ({first.label}) on {p.first.k}; only run {row.run} on {p.c}, only run "
        f"{first.run} on {p.b}. "
        + (
            f"Run {row.run} succeeded on {abs(diff):.1f} percentage points {way} of them (95% paired bootstrap "
            f"interval {low:+.1f} to {high:+.1f}). "
            if diff
            else "Both succeeded equally often on them. "
        )
        + (
            f"A difference this large would arise by chance less than 5% of the time (exact McNemar test: "
            f"p = {p.mcnemar_p:.3g}): the runs differ."
            if significant
            else f"Chance alone could give this difference (exact McNemar test: p = {p.mcnemar_p:.3g}, not below "
            "0.05): these items do not show the runs differ."
        )
    )


def _flatten(data: Any, prefix: str = "", depth: int = 0) -> dict[str, Any]:
    """The scalars of a JSON document by dotted path (lists are left out: episodes, cells)."""
    out: dict[str, Any] = {}
    if isinstance(data, dict) and depth < 4:
        for k, v in data.items():
            out.update(_flatten(v, f"{prefix}{k}.", depth + 1))
    elif not isinstance(data, dict | list):
        out[prefix.rstrip(".")] = data
    return out


def _side_by_side(docs: list[dict[str, Any]], *, only_differences: bool) -> list[dict[str, Any]]:
    flat = [_flatten(d) for d in docs]
    keys: list[str] = []
    for f in flat:
        keys += [k for k in f if k not in keys]
    rows = []
    for k in keys:
        values = [f.get(k) for f in flat]
        differ = len({json.dumps(v, default=str) for v in values}) > 1
        if only_differences and not differ:
            continue
        # a setting by its words (params > max tokens), not a dotted key
        label = " > ".join(part.replace("_", " ") for part in k.split("."))
        rows.append(
            {"key": label, "values": ["-" if v is None else _short(v) for v in values], "differ": differ}
        )
    return rows


# -- the home page ----------------------------------------------------------------------------------------
def home_context(store: Store, links: Links) -> dict[str, Any]:
    # counted in the database and the newest read by index: the home page reads no other run
    counts = store.run_counts()
    families = [
        {
            "name": f.name,
            "title": f.title,
            "summary": f.summary,
            "runs": counts.get(f.name, 0),
            "href": links.runs(family=f.name),
        }
        for f in registry.families()
    ]
    recent = run_rows(store, store.latest_runs(10))
    for row in recent:
        row["href"] = links.run(row["id"])
    return {"families": families, "recent": recent, "n_runs": sum(counts.values()), "runs_href": links.runs()}


# -- routes -----------------------------------------------------------------------------------------------
# Each page is built by a function of the store and the request's parts, run off the event loop by
# :func:`wason.server.offload.build` (in a thread, or in a worker process for `wason serve`): the route only
# hands it over. A run's page and its plot files are built on the run's own lane, so its figures are drawn by
# one builder at a time (a second first visit finds them drawn).
def _store(request: Request) -> Store:
    store: Store = request.app.state.games.store
    return store


def _page_error(request: Request | None, exc: PageError) -> HTMLResponse:
    return render(request, "browse/error.html", status_code=exc.status, message=str(exc), **_web())


def _web() -> dict[str, Any]:
    return {"static_report": False, "links": Links()}


@router.get("/", response_class=HTMLResponse)
async def home(request: Request) -> HTMLResponse:
    return await offload.build(request.app, _store(request), None, _home)


def _home(store: Store) -> HTMLResponse:
    return render(None, "index.html", **_web(), **home_context(store, Links()))


@router.get("/runs", response_class=HTMLResponse)
async def runs_page(request: Request) -> HTMLResponse:
    return await offload.build(request.app, _store(request), None, _runs_page, dict(request.query_params))


RUN_COLUMNS = (
    ("id", "run"),
    ("family", "family"),
    ("who", "player / model"),
    ("status", "status"),
    ("created", "created"),
    ("duration", "took"),
    ("episodes", "episodes"),
    ("accuracy", "accuracy"),
    ("tokens", "tokens"),
)
"""The runs list's columns (their sort key and heading), on the served page and in the static report."""


def _runs_page(store: Store, params: dict[str, str]) -> HTMLResponse:
    links = Links()
    filters, error = parse_filters(store, params)
    rows: list[dict[str, Any]] = []
    total = 0
    if error is None:
        matched = filter_rows(run_rows(store), filters)
        total = len(matched)
        start = (filters.page - 1) * PER_PAGE
        rows = matched[start : start + PER_PAGE]
        for row in rows:
            row["href"] = links.run(row["id"])
    pages = max(1, -(-total // PER_PAGE))
    headers = []
    for key, label in RUN_COLUMNS:
        order = "asc" if filters.sort == key and filters.order == "desc" else "desc"
        mark = ("▼" if filters.order == "desc" else "▲") if filters.sort == key else ""
        headers.append(
            {
                "key": key,
                "label": label,
                "mark": mark,
                "href": links.runs(**filters.query(sort=key, order=order, page=1)),
            }
        )
    return render(
        None,
        "browse/runs.html",
        status_code=400 if error else 200,
        **_web(),
        error=error,
        filters=filters,
        rows=rows,
        total=total,
        headers=headers,
        families=sorted(set(registry.names()) | set(store.run_tasks())),
        statuses=RUN_STATUSES,
        page=filters.page,
        pages=pages,
        prev_href=links.runs(**filters.query(page=filters.page - 1)) if filters.page > 1 else None,
        next_href=links.runs(**filters.query(page=filters.page + 1)) if filters.page < pages else None,
        numeric={"id", "duration", "episodes", "accuracy", "tokens"},
    )


def _plot_root(request: Request) -> Path:
    """The folder of the figures this app has drawn (a temporary folder, removed when the app is collected or the
    process exits); made on the event loop, so two first pages at once share one."""
    cache: tempfile.TemporaryDirectory[str] | None = getattr(request.app.state, "web_plots", None)
    if cache is None:
        cache = tempfile.TemporaryDirectory(prefix="wason-plots-")
        request.app.state.web_plots = cache
    return Path(cache.name)


def _plot_state(root: Path, run: RunRow, store: Store) -> Path:
    """The folder of the run's figures in its present state (its status, how many episodes are over, its
    finished baselines): a run that moves on is drawn again. Two indexed queries, no episode read whole."""
    counts = store.episode_counts([run.id])[run.id]
    done = counts["completed"] + counts["errored"]
    # a baseline that finishes later is drawn too
    baselines = "".join(f"-b{b}" for b in baselines_of(store, run.id, completed_only=True))
    return root / f"run{run.id}-{run.status}-{done}{baselines}"


def _plot_dir(root: Path, run: RunRow, store: Store) -> Path:
    """The run's figures, drawn once per state of the run (:func:`_plot_state`).

    Called only on the figures' lane (:func:`wason.server.offload.build` with ``figures=True``): one drawer at
    a time draws a run's figures, never a page's builder."""
    directory = _plot_state(root, run, store)
    if not directory.exists():
        for old in root.glob(f"run{run.id}-*"):
            shutil.rmtree(old, ignore_errors=True)
        partial = root / f".{directory.name}.tmp"
        shutil.rmtree(partial, ignore_errors=True)
        partial.mkdir(parents=True)
        plots_into(store, run, partial)
        partial.rename(directory)
    return directory


def planned_plots(store: Store, run: RunRow) -> list[str]:
    """The files of a run's figures (``NAME.png``, ``NAME.svg``) as data says they will be drawn, without
    drawing them: what its page links to at once."""
    if _family_or_none(run.task) is None:
        return []

    try:
        figures = figures_of(PublicReader(store), [run.id, *baselines_of(store, run.id, completed_only=True)])
    except REPORT_ERRORS:
        return []
    return [f"{f.name}{ext}" for f in figures for ext in (".png", ".svg")]


def _lane(run_id: str) -> int | None:
    """The lane of a run's page and figures: its id (none for a page with no run id)."""
    return int(run_id) if run_id.isascii() and run_id.isdigit() and len(run_id) < 12 else None


PLOT_WAIT = 20.0
"""Seconds a figure's request waits for its drawing before it is answered 202 ("still drawing", try again)."""


@router.get("/runs/{run_id}", response_class=HTMLResponse)
async def run_page(request: Request, run_id: str) -> HTMLResponse:
    root = _plot_root(request)
    store = _store(request)
    params = dict(request.query_params)
    page = await offload.build(request.app, store, _lane(run_id), _run_page, run_id, root, params)
    lane = _lane(run_id)
    if page.status_code == 200 and lane is not None:
        # the figures are drawn after the page is sent, on their own lane; the page never waits for them
        _draw_soon(request, store, run_id, root)
    return page


def _draw_soon(request: Request, store: Store, run_id: str, root: Path) -> None:
    tasks: set[asyncio.Task[Any]] = getattr(request.app.state, "web_drawings", None) or set()
    request.app.state.web_drawings = tasks
    task = asyncio.ensure_future(
        offload.build(request.app, store, _lane(run_id), _draw_plots, run_id, root, figures=True)
    )
    tasks.add(task)
    task.add_done_callback(_drawn)
    task.add_done_callback(tasks.discard)


def _drawn(task: asyncio.Task[Any]) -> None:
    if not task.cancelled() and task.exception() is not None:
        import logging

        logging.getLogger("wason.server").warning("drawing a run's figures failed: %s", task.exception())


def _draw_plots(store: Store, run_id: str, root: Path) -> None:
    try:
        _plot_dir(root, get_run(store, _number(run_id, "run")), store)
    except PageError:
        return


def _run_page(store: Store, run_id: str, root: Path, params: dict[str, str] | None = None) -> HTMLResponse:
    links = Links()
    try:
        rid = _number(run_id, "run")
        try:
            filters = parse_episode_filters(params or {})
            error = None
        except PageError as exc:
            filters, error = EpisodeFilters(), str(exc)

        def plots(run: RunRow) -> list[tuple[str, str]]:
            drawn = _plot_state(root, run, store)
            if drawn.is_dir():
                names = sorted(p.name for p in drawn.iterdir() if p.is_file())
            else:
                names = sorted(planned_plots(store, run))
            return [(links.plot(run.id, name), name) for name in names]

        context = run_context(store, rid, links, plots, filters)
        if error is not None:
            context.update(episodes=[], filter_error=error)
        return render(None, "browse/run.html", status_code=400 if error else 200, **_web(), **context)
    except PageError as exc:
        return _page_error(None, exc)


@router.api_route("/runs/{run_id}/plots/{name}", methods=["GET", "HEAD"], include_in_schema=False)
async def plot_file(request: Request, run_id: str, name: str) -> Response:
    root = _plot_root(request)
    build = offload.build(
        request.app, _store(request), _lane(run_id), _plot_file, run_id, name, root, figures=True
    )
    try:
        return await asyncio.wait_for(asyncio.shield(build), PLOT_WAIT)
    except TimeoutError:
        return Response(
            f"run {run_id[:12]}'s figures are still being drawn; try again in a few seconds\n",
            status_code=202,
            media_type="text/plain",
            headers={"Retry-After": "2", "Cache-Control": "no-store"},
        )


def _plot_file(store: Store, run_id: str, name: str, root: Path) -> Response:
    try:
        run = get_run(store, _number(run_id, "run"))
        directory = _plot_dir(root, run, store)
        files = {p.name: p for p in directory.iterdir() if p.is_file()}
        if name not in files:
            raise PageError(f"run {run.id} has no plot {name[:80]!r}", 404)
        return FileResponse(files[name])
    except PageError as exc:
        return _page_error(None, exc)


SEARCH_LIMIT = 100
"""Episodes a search of the whole store lists (the newest)."""


@router.get("/search", response_class=HTMLResponse)
async def search_page(request: Request) -> HTMLResponse:
    return await offload.build(request.app, _store(request), None, _search_page, dict(request.query_params))


def _search_page(store: Store, params: dict[str, str]) -> HTMLResponse:
    links = Links()
    unknown = sorted(set(params) - {"q"})
    error = (
        f"{unknown[0][:40]}: not a parameter of the search (give q: the words to find)" if unknown else None
    )
    q, hits = "", []
    if error is None and params.get("q", "").strip():
        try:
            q = check_query(params["q"])
        except ValueError as exc:
            error = f"q: {exc}"
    if error is None and q:
        found = store.search(q, reveal=FINISHED, limit=SEARCH_LIMIT + 1)
        runs = {r: store.get_run(r) for r in {row["run_id"] for row in found[:SEARCH_LIMIT]}}
        for row in found[:SEARCH_LIMIT]:
            run = runs.get(row["run_id"])
            if run is None:
                continue
            href = links.episode(run.id, row["index"])
            if href is not None and row["hit"].turn is not None:
                href += f"#turn-{row['hit'].turn}"
            fam = _family_or_none(run.task)
            place, parts = _hit_snippet(row.get("found") or {}, fam, q, row["hit"].in_call)
            hits.append(
                {
                    "run": run.id,
                    "run_href": links.run(run.id),
                    "title": fam.title if fam is not None else run.task,
                    "who": who(run),
                    "index": row["index"],
                    "href": href,
                    "status": row["status"],
                    "success": row["success"],
                    "turn": row["hit"].turn,
                    "in_call": row["hit"].in_call,
                    "place": place,
                    "snippet": parts,
                }
            )
    return render(
        None,
        "browse/search.html",
        status_code=400 if error else 200,
        **_web(),
        q=params.get("q", "")[:MAX_QUERY_CHARS] if error else q,
        error=error,
        hits=hits,
        more=len(hits) == SEARCH_LIMIT,
        limit=SEARCH_LIMIT,
        max_chars=MAX_QUERY_CHARS,
    )


def _hit_snippet(
    found: dict[str, Any], fam: Family[Any] | None, q: str, in_call: bool
) -> tuple[str, list[tuple[str, bool]]]:
    """Where in a hit the words are (the reply, the game's answer, the move; a call's reply or messages) and the
    piece around them (:func:`wason.store.search.snippet`): of the places, the one holding most of the words."""
    if in_call:
        contents = [m.get("content") for m in found.get("messages") or [] if isinstance(m, dict)]
        places = [("the model's reply", found.get("response"))]
        places += [("the messages sent", " ".join(str(c) for c in contents if c is not None))]
    else:
        action = found.get("action")
        said = None
        if fam is not None and isinstance(action, dict):
            try:
                said = fam.describe_action(action)  # the move in the family's words (``guess: ...``)
            except REPORT_ERRORS:  # a move the family cannot word: its values below
                said = None
        places = [
            ("the player's reply", found.get("reply")),
            ("the game's answer", found.get("feedback")),
            ("the move", said),
            ("the move", " ".join(action_values(action))),
        ]
    best: tuple[int, str, list[tuple[str, bool]]] = (0, "", [])
    for place, text in places:
        if not text:
            continue
        parts = snippet([str(text)], q)
        held = len({t.lower() for t, matched in parts if matched})
        if held > best[0]:
            best = (held, place, parts)
    return best[1], best[2]


@router.get("/favicon.ico")
async def favicon() -> Response:
    """The packaged icon, for clients that ask for /favicon.ico (the pages link the SVG itself)."""
    icon = resources.files("wason.server").joinpath("static", "favicon.svg").read_bytes()
    return Response(icon, media_type="image/svg+xml", headers={"Cache-Control": "max-age=86400"})


@router.get("/runs/{run_id}/episodes/{index}", response_class=HTMLResponse)
async def episode_page(request: Request, run_id: str, index: str) -> HTMLResponse:
    return await offload.build(request.app, _store(request), None, _episode_page, run_id, index)


def _episode_page(store: Store, run_id: str, index: str) -> HTMLResponse:
    try:
        context = episode_context(store, _number(run_id, "run"), _number(index, "episode"), Links())
        return render(None, "browse/episode.html", **_web(), **context)
    except PageError as exc:
        return _page_error(None, exc)


@router.get("/compare", response_class=HTMLResponse)
async def compare_page(request: Request) -> HTMLResponse:
    # ?runs=1,2 (a shared link) or ?runs=1&runs=2 (the runs list's check boxes)
    runs = ",".join(request.query_params.getlist("runs"))
    return await offload.build(request.app, _store(request), None, _compare_page, runs)


def _compare_page(store: Store, runs: str) -> HTMLResponse:
    try:
        context = compare_context(store, parse_run_ids(runs), Links())
        return render(None, "browse/compare.html", **_web(), **context)
    except PageError as exc:
        return _page_error(None, exc)


def _number(text: str, what: str) -> int:
    if not (text.isascii() and text.isdigit() and len(text) < 12):
        raise PageError(f"there is no {what} {text[:40]!r}: a {what} is a number", 404)
    return int(text)


__all__ = [
    "FINISHED",
    "Links",
    "PageError",
    "PublicReader",
    "compare_context",
    "episode_context",
    "home_context",
    "parse_filters",
    "public_episode",
    "router",
    "run_context",
    "run_rows",
    "shown_run",
    "unfinished_runs",
]
