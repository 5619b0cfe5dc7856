"""Paper A.3: how complex final guesses are, counted on the syntax tree (not by substrings, as the reference did),
and the medians a run reports."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from wason.cli import main
from wason.tasks.wilt.complexity import guess_complexity, run_complexity
from wason.tasks.wilt.judge import judge


@pytest.mark.parametrize(
    ("guess", "operators", "length"),
    [
        ("lambda x, y, z: x < y < z", 2, 5),
        ("lambda x,y,z: x<y<z", 2, 5),
        ("lambda x, y, z: x < y and y < z and z < 100", 5, 17),
        # the reference counted the "or" inside "floor" as an operator
        ("lambda x, y, z: math.floor(x) == y", 2, 16),
        ("lambda x, y, z: x < y or y < z", 3, 8),
        ("lambda x, y, z: -x < 3", 2, 4),  # a negation of a variable is an operator
        ("lambda x, y, z: x < -3", 1, 4),  # the sign of a literal is not
        ("lambda x, y, z: (x + y) * z > 10 if x > 0 else False", 5, 24),
    ],
)
def test_operators_and_length_of_a_guess(guess: str, operators: int, length: int) -> None:
    shape = guess_complexity(guess, None)
    assert shape is not None and (shape.operators, shape.length) == (operators, length)
    assert shape.set_inclusion is None  # no verdict given


def test_set_inclusion_comes_from_the_verdict_on_the_probe_set() -> None:
    rule = "lambda x, y, z: x < y < z"
    same = guess_complexity("lambda x,y,z: x<y<z", judge(rule, "lambda x,y,z: x<y<z").model_dump())
    narrower = guess_complexity(
        "lambda x,y,z: x<y<z and z<100", judge(rule, "lambda x,y,z: x<y<z and z<100").model_dump()
    )
    wider = guess_complexity("lambda x,y,z: x<y", judge(rule, "lambda x,y,z: x<y").model_dump())
    crossing = guess_complexity("lambda x,y,z: x>0", judge(rule, "lambda x,y,z: x>0").model_dump())
    assert same is not None and same.set_inclusion == 1.0
    assert narrower is not None and narrower.set_inclusion is not None and narrower.set_inclusion < 1
    assert wider is not None and wider.set_inclusion is not None and wider.set_inclusion > 1
    assert crossing is not None and crossing.set_inclusion is None  # neither set contains the other


def test_a_refused_guess_has_no_complexity() -> None:
    assert guess_complexity("lambda x, y, z: __import__('os')", None) is None
    verdict = judge("lambda x,y,z: x<y", "lambda x,y,z: x <").model_dump()
    assert verdict["accepted"] is False
    assert guess_complexity("lambda x,y,z: x <", verdict) is None


def test_run_medians_skip_episodes_without_an_accepted_guess() -> None:
    metrics = [
        {"guess": "lambda x,y,z: x<y<z", "verdict": None},
        {"guess": "lambda x,y,z: x<y and y<z and z<100", "verdict": None},
        {"guess": "lambda x,y,z: x", "verdict": None},
        {"guess": None, "verdict": None},
        None,
    ]
    c = run_complexity(metrics)
    assert c.guesses == 3 and c.median_operators == 2 and c.median_length == 5
    assert c.median_set_inclusion is None and c.set_inclusion_defined == 0
    empty = run_complexity([])
    assert empty.guesses == 0 and empty.median_operators is None


def test_a_run_reports_its_medians_in_json_show_and_the_comparison(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = f"sqlite:///{tmp_path / 'c.db'}"
    assert main(["eval", "wilt", "--player", "solver", "--ids", "1,2,8", "--db", db, "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    c = report["complexity"]
    assert c["guesses"] == 3 and c["median_operators"] >= 1 and c["median_set_inclusion"] == 1.0
    assert main(["show", str(report["run"]), "--format", "csv", "--db", db]) == 0
    header = capsys.readouterr().out.splitlines()[0]
    assert "Median operators" in header and "Median set inclusion" in header
