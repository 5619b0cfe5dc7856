"""`wason report RUN... -o DIR`: static pages that open from disk: every link relative and written, no asset from
another host, plots and baselines included, a comparison for runs of one family, the hidden part of a game that
is not over left out; a bad run id is one line and exit 2."""

from __future__ import annotations

import html
import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

from tests.server.web.test_browse import Filled, fill_store, hidden_texts
from wason.cli import main
from wason.core import registry
from wason.core.results import Results


@pytest.fixture(scope="module")
def filled(tmp_path_factory: pytest.TempPathFactory, empty_store: Path) -> Iterator[Filled]:
    from tests.server import hidden_family

    registry.register(hidden_family.FAMILY, replace=True)
    path = tmp_path_factory.mktemp("report") / "report.db"
    shutil.copyfile(empty_store, path)
    data = fill_store(path)
    yield data
    data.store.close()


REF = re.compile(r"""(?:href|src)\s*=\s*["']([^"']*)["']|url\(\s*["']?([^"')]*)""", re.IGNORECASE)


def references(text: str) -> list[str]:
    return [a or b for a, b in REF.findall(text)]


def check_self_contained(out: Path) -> list[Path]:
    """Every page's links and assets are relative and name a written file; nothing is loaded from a host."""
    pages = sorted(out.rglob("*.html"))
    assert pages
    for page in pages:
        text = page.read_text(encoding="utf-8")
        refs = references(text)
        assert refs, page
        for ref in refs:
            parts = urlsplit(ref)
            assert not parts.scheme and not parts.netloc, (page, ref)  # no http(s)://, file:// or //host
            assert not ref.startswith("/"), (page, ref)  # no absolute path: the report may live anywhere
            if parts.path:
                target = (page.parent / unquote(parts.path)).resolve()
                assert target.is_file(), (page, ref)
                assert out.resolve() in target.parents, (page, ref)
        assert not re.search(r"(?:href|src)\s*=\s*[\"']?https?:", text, re.IGNORECASE)
    for css in out.rglob("*.css"):
        assert "http://" not in css.read_text() and "https://" not in css.read_text()
    return pages


def test_report_of_runs_of_one_family_has_a_comparison(filled: Filled, tmp_path: Path) -> None:
    a, b = filled.runs["picnic_a"], filled.runs["picnic_b"]
    out = tmp_path / "one family"  # a space in the path: links still resolve
    assert main(["report", str(a), str(b), "--db", str(filled.path), "-o", str(out)]) == 0
    pages = check_self_contained(out)
    names = {p.relative_to(out).as_posix() for p in pages}
    expected = {"index.html", "compare.html", f"runs/{a}.html", f"runs/{b}.html"}
    for run_id in (a, b):
        expected |= {f"runs/{run_id}/episodes/{e.index}.html" for e in filled.store.list_episodes(run_id)}
    assert names == expected
    assert (out / "static" / "wason.css").read_bytes()[:10] == b"/* wason's"
    compare = (out / "compare.html").read_text()
    assert "SP L1" in compare and "SP L2" in compare and compare.count('<div class="results">') == 2
    index = (out / "index.html").read_text()
    assert f'href="./runs/{a}.html"' in index and 'href="./compare.html"' in index
    # each run's results for papers and as data, the same tables in every format
    results = Results.model_validate_json((out / "runs" / str(a) / "results.json").read_text())
    assert results.title.startswith(f"Run {a}:") and results.tables
    first = results.tables[0]
    markdown = (out / "runs" / str(a) / "results.md").read_text()
    assert (
        f"**{first.title}**" in markdown
        and "| " + " | ".join(c.name for c in first.columns) + " |" in markdown
    )
    assert r"\begin{tabular}" in (out / "runs" / str(a) / "results.tex").read_text()
    csv_lines = (out / "runs" / str(a) / "results.csv").read_text().splitlines()
    assert csv_lines[0].startswith("table,") and len(csv_lines) == 1 + sum(
        len(t.rows) for t in results.tables
    )
    assert "<form" not in index  # no filters, no compare form: nothing on disk answers them


def test_report_with_baselines_plots_and_an_ongoing_game(filled: Filled, tmp_path: Path) -> None:
    model, aiw = filled.runs["wilt_model"], filled.runs["aiw_model"]
    ongoing = filled.store.get_episode(filled.sessions["wilt"])
    out = tmp_path / "mixed"
    argv = ["report", str(model), str(aiw), str(ongoing.run_id), "--db", str(filled.path), "-o", str(out)]
    assert main(argv) == 0
    pages = check_self_contained(out)
    baseline = filled.runs["wilt_baseline"]
    # the finished solver baseline is in the report with the run it accompanies; no comparison across families
    assert (out / "runs" / f"{baseline}.html").is_file() and not (out / "compare.html").exists()
    assert f'href="../runs/{baseline}.html"' in (out / "runs" / f"{model}.html").read_text()
    plots = sorted((out / "runs" / str(aiw) / "plots").glob("*.png"))
    assert plots and all(p.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" for p in plots)
    aiw_page = (out / "runs" / f"{aiw}.html").read_text()
    assert all(f'src="../runs/{aiw}/plots/{p.name}"' in aiw_page for p in plots)
    # each PNG's SVG is written beside it and linked from the page
    assert all(p.with_suffix(".svg").read_text().lstrip().startswith("<?xml") for p in plots)
    assert all(f'href="../runs/{aiw}/plots/{p.stem}.svg"' in aiw_page for p in plots)
    # the game that is not over: none of its hidden part on its pages or the index (a finished run of the same
    # rule shows it, rightly: that game is over)
    secrets = hidden_texts(filled.store, ongoing.id)
    assert secrets
    own = [p for p in pages if f"runs/{ongoing.run_id}" in p.relative_to(out).as_posix()]
    assert len(own) == 2
    own_files = [p for p in (out / "runs" / str(ongoing.run_id)).glob("results.*")]
    for page in [out / "index.html", *own, *own_files]:
        text = page.read_text()
        for secret in secrets:
            assert secret not in html.unescape(text), (page, secret)
    episode = (out / "runs" / str(ongoing.run_id) / "episodes" / "0.html").read_text()
    assert "This game is not over" in episode


@pytest.mark.parametrize(
    ("runs", "says"),
    [
        (["99999"], "wason: error: no run 99999 in "),
        (["PICNIC_A", "99999"], "wason: error: no run 99999 in "),
        (["x"], "wason report: error: argument RUN: invalid int value: 'x'"),
    ],
)
def test_bad_run_ids_are_one_line(
    filled: Filled, tmp_path: Path, capsys: pytest.CaptureFixture[str], runs: list[str], says: str
) -> None:
    out = tmp_path / "bad"
    runs = [str(filled.runs["picnic_a"]) if r == "PICNIC_A" else r for r in runs]
    assert main(["report", *runs, "--db", str(filled.path), "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(says) and len(err.strip().splitlines()) == 1
    assert not out.exists()  # nothing written


def test_output_must_be_given_and_a_folder(
    filled: Filled, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = str(filled.runs["picnic_a"])
    assert main(["report", run, "--db", str(filled.path)]) == 2
    assert "the following arguments are required: -o/--output" in capsys.readouterr().err
    file = tmp_path / "taken"
    file.write_text("x")
    assert main(["report", run, "--db", str(filled.path), "-o", str(file)]) == 2
    assert capsys.readouterr().err.strip() == f"wason: error: -o {file}: not a folder"
