"""``wason report RUN... -o DIR``: the browse pages written as a static, self-contained HTML report.

The same templates and context builders as ``wason serve`` (:mod:`wason.server.web.browse`), rendered with
relative links (``root`` is ``./``, ``../``... from each page) to ``.html`` files, the packaged assets copied into
``DIR/static/`` and the plots into ``DIR/runs/N/plots/``. It opens from disk (``file://``) with no server and
no network, and can be published as it is:

```
DIR/index.html                      the runs of the report (each run given, and its finished solver baselines)
DIR/compare.html                    the runs given side by side, when there are several of one family
DIR/runs/N.html                     a run: the summary, its baselines, plots, model calls, episodes
DIR/runs/N/episodes/I.html          an episode: transcript, verdict, model calls
DIR/runs/N/plots/*.png              a run's plots (families that draw them)
DIR/runs/N/results.{md,tex,csv,json} a run's results tables for papers (markdown, LaTeX, CSV) and as data
DIR/static/wason.css, wason.js      the assets
```
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from typing import Any

from wason.core.records import RunRow
from wason.engine import baselines_of
from wason.report.render import results_csv, results_latex, results_markdown
from wason.report.tables import results_of
from wason.server.web import browse
from wason.server.web.pages import environment
from wason.store import Store

ASSETS = ("wason.css", "wason.js", "favicon.svg")

# a link to a folder ("./", "../../") is its index page: from disk, a browser would list the folder instead
_FOLDER_LINK = re.compile(r'href="((?:\./)|(?:\.\./)+)"')


def _write(path: Path, template: str, root: str, **context: Any) -> Path:
    page = (
        environment()
        .get_template(template)
        .render(root=root, static=f"{root}static/", request=None, static_report=True, **context)
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(_FOLDER_LINK.sub(r'href="\1index.html"', page), encoding="utf-8")
    return path


def _results_files(store: Store, run_ids: list[int], directory: Path) -> list[Path]:
    """A run's results (its finished baselines' rows beside it) as markdown, LaTeX, CSV and JSON files, from
    their public part (nothing for a family that cannot be loaded, or results that need a game not over)."""
    family = browse.family_of_run(store.get_run(run_ids[0]))
    try:
        results = results_of(family, browse.PublicReader(store), run_ids)
    except browse.REPORT_ERRORS:
        return []
    directory.mkdir(parents=True, exist_ok=True)
    files = {
        "results.md": results_markdown(results),
        "results.tex": results_latex(results),
        "results.csv": results_csv(results),
        "results.json": results.model_dump_json(indent=2) + "\n",
    }
    written = []
    for name, text in files.items():
        path = directory / name
        path.write_text(text, encoding="utf-8")
        written.append(path)
    return written


def write_report(store: Store, run_ids: Sequence[int], directory: Path) -> list[Path]:
    """Write the report of ``run_ids`` (and their finished solver baselines) into ``directory``.

    Returns:
        The files written, the index first.

    Raises:
        StoreError: a run id that is not in the store (nothing is written then).
    """
    given, held = _runs_held(store, run_ids)
    runs = [store.get_run(r) for r in held]
    compare = len(given) >= 2 and len({store.get_run(r).task for r in given}) == 1
    directory.mkdir(parents=True, exist_ok=True)
    common = {"report_compare": compare}
    written = [_write_index(store, runs, directory, held, common)]
    for run in runs:
        written += _write_run(store, run, directory, held, common)
    if compare:
        links = _links("./", held)
        ctx = browse.compare_context(store, given, links)
        written.append(
            _write(directory / "compare.html", "browse/compare.html", "./", **common, links=links, **ctx)
        )
    return written + _copy_assets(directory)


def _runs_held(store: Store, run_ids: Sequence[int]) -> tuple[list[int], list[int]]:
    """The runs asked for (once each, in order), and those with their finished baselines after them.

    Raises:
        StoreError: a run id that is not in the store.
    """
    given: list[int] = []
    for run_id in run_ids:
        store.get_run(run_id)  # an unknown run fails before anything is written
        if run_id not in given:
            given.append(run_id)
    held = list(given)
    for run_id in given:
        held += [b for b in baselines_of(store, run_id, completed_only=True) if b not in held]
    return given, held


def _links(root: str, held: Sequence[int]) -> browse.Links:
    """The links of a page ``root`` below the report's top: to the report's own files for the runs it holds."""
    return browse.Links(root=root, static_report=True, runs_held=frozenset(held))


def _write_index(
    store: Store, runs: Sequence[RunRow], directory: Path, held: Sequence[int], common: dict[str, Any]
) -> Path:
    """``index.html``: the runs' table, as the browser's /runs shows it, without its filters and pages."""
    links = _links("./", held)
    rows = browse.run_rows(store, runs)
    for row in rows:
        row["href"] = links.run(row["id"])
    return _write(
        directory / "index.html",
        "browse/runs.html",
        "./",
        **common,
        links=links,
        error=None,
        filters=browse.RunFilters(),
        rows=rows,
        total=len(rows),
        headers=[{"key": k, "label": label, "mark": "", "href": None} for k, label in browse.RUN_COLUMNS],
        families=[],
        statuses=[],
        page=1,
        pages=1,
        prev_href=None,
        next_href=None,
        numeric={"id", "duration", "episodes", "accuracy", "tokens"},
    )


def _write_run(
    store: Store, run: RunRow, directory: Path, held: Sequence[int], common: dict[str, Any]
) -> list[Path]:
    """One run's files: its results, its plots, its page (``runs/ID.html``) and a page per episode."""
    written: list[Path] = []
    links = _links("../", held)
    plot_dir = directory / "runs" / str(run.id) / "plots"

    def plots(r: RunRow) -> list[tuple[str, str]]:
        files = browse.plots_into(store, r, plot_dir)
        written.extend(files)
        return [(links.plot(r.id, p.name), p.name) for p in sorted(files)]

    written.extend(
        _results_files(store, [run.id, *baselines_of(store, run.id, completed_only=True)], plot_dir.parent)
    )
    context = browse.run_context(store, run.id, links, plots)
    written.append(
        _write(
            directory / "runs" / f"{run.id}.html", "browse/run.html", "../", **common, links=links, **context
        )
    )
    root = "../../../"
    for episode in store.list_episodes(run.id):
        ctx = browse.episode_context(store, run.id, episode.index, _links(root, held))
        path = directory / "runs" / str(run.id) / "episodes" / f"{episode.index}.html"
        written.append(_write(path, "browse/episode.html", root, **common, links=_links(root, held), **ctx))
    return written


def _copy_assets(directory: Path) -> list[Path]:
    """The pages' packaged styles and scripts, copied into ``static/``."""
    static = directory / "static"
    static.mkdir(exist_ok=True)
    written = []
    for name in ASSETS:
        target = static / name
        target.write_bytes(resources.files("wason.server").joinpath("static", name).read_bytes())
        written.append(target)
    return written


__all__ = ["write_report"]
