"""The generated split's --n bound is what the generator yields (issue 39), not a fixed number; the server keeps
its own, smaller one (tests/server/test_config_bounds_api.py)."""

from __future__ import annotations

import numpy as np
import pytest

from wason.cli import main
from wason.tasks.wilt.family import WiltRunConfig
from wason.tasks.wilt.generate import MAX_N, MIN_SHARE, SERVED_N, generate_split


def test_the_bound_is_below_the_rules_the_generator_draws_from() -> None:
    from wason.tasks.wilt.elimination import _table
    from wason.tasks.wilt.listed_space import build_space, candidate_tests

    space = build_space(0)
    candidates, _ = candidate_tests(0)
    table = _table(space, candidates)
    share = np.bitwise_count(table.packed).sum(axis=1, dtype=np.int64) / table.n_columns
    drawn_from = int(((share >= MIN_SHARE) & (share <= 1 - MIN_SHARE)).sum())
    # the pool; identifiability and meaning leave MAX_N of it (the slow test below)
    assert drawn_from == 10_470
    assert SERVED_N < MAX_N < drawn_from
    assert WiltRunConfig(split="generated", seed=1, n=MAX_N).n == MAX_N


@pytest.mark.slow
@pytest.mark.parametrize("seed", [1, 7])
def test_every_seed_yields_exactly_the_bound(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """The bound is reachable and is all there is: the draw runs dry after exactly MAX_N rules."""
    from wason.tasks.wilt import generate

    monkeypatch.setattr(generate, "MAX_N", MAX_N + 1)
    with pytest.raises(ValueError, match=f"the grammar yields only {MAX_N} usable rules"):
        generate.generate_split(seed=seed, n=MAX_N + 1)


def test_a_split_larger_than_the_servers_bound_is_drawn_and_extends_a_shorter_one() -> None:
    rules = generate_split(seed=3, n=SERVED_N + 100)
    assert len(rules) == SERVED_N + 100
    assert len({r.text for r in rules}) == len(rules)
    assert [r.text for r in generate_split(seed=3, n=40)] == [r.text for r in rules[:40]]


def test_more_than_the_bound_is_one_line(capsys: pytest.CaptureFixture[str], tmp_path: object) -> None:
    code = main(["eval", "wilt", "--split", "generated", "--n", str(MAX_N + 1), "--player", "solver", "--db",
                 f"sqlite:///{tmp_path}/x.db"])  # fmt: skip
    err = capsys.readouterr().err.strip()
    assert code != 0
    assert len(err.splitlines()) == 1 and str(MAX_N) in err.replace(",", ""), err
    assert "Traceback" not in err
