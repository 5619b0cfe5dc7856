"""Where WILT rules come from: published splits, a user's rules file, the generated split; and run configs."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from wason.sandbox import compile_rule
from wason.tasks.wilt import WiltRunConfig
from wason.tasks.wilt.probes import probe_set
from wason.tasks.wilt.rules import load_rules_file, rule_from_item, rule_item


def test_rules_file(tmp_path: Path) -> None:
    path = tmp_path / "mine.txt"
    path.write_text(
        "# my rules\nlambda x, y, z: x > 2 and y > 2\n\nx + z == y\n  lambda a, b, c: a * b > c  \n"
    )
    rules = load_rules_file(path)
    assert [(r.id, r.text) for r in rules] == [
        (2, "lambda x, y, z: x > 2 and y > 2"),
        (4, "x + z == y"),
        (5, "lambda a, b, c: a * b > c"),
    ]
    assert rules[1].program()(1, 3, 2) is True
    # an item carries the rule text, so a resumed run rebuilds the rule without the file
    key, item = rule_item(rules[0])
    assert key == "file/2" and rule_from_item(item) == rules[0]


@pytest.mark.parametrize(
    "content, message",
    [
        ("x < y\n__import__('os')\n", ":2: "),
        ("x < y\nlambda x, y: x\n", ":2: "),
        ("# nothing\n\n", "has no rules"),
    ],
)
def test_bad_rules_files_name_the_line(tmp_path: Path, content: str, message: str) -> None:
    path = tmp_path / "bad.txt"
    path.write_text(content)
    with pytest.raises(ValueError, match=message):
        load_rules_file(path)
    with pytest.raises(ValueError, match="cannot read"):
        load_rules_file(tmp_path / "missing.txt")


def test_run_config_validation() -> None:
    with pytest.raises(ValueError, match="--seed S and --n N"):
        WiltRunConfig(split="generated", seed=1)
    with pytest.raises(ValueError, match="rules file"):
        WiltRunConfig(split="file")
    with pytest.raises(ValueError, match="published split"):
        WiltRunConfig(split="generated", seed=1, n=3, ids=[1])
    with pytest.raises(ValueError, match="unknown WILT split"):
        WiltRunConfig(split="medium")
    assert [key for key, _ in WiltRunConfig(split="full", ids=[3, 1]).items()] == ["full/3", "full/1"]


def test_generated_split_is_deterministic_and_recorded() -> None:
    from wason.tasks.wilt.generate import GENERATOR_VERSION, generate_split

    first = generate_split(seed=7, n=6)
    again = generate_split.__wrapped__(seed=7, n=6)  # bypass the cache: really regenerate
    assert [r.text for r in first] == [r.text for r in again]
    other = generate_split.__wrapped__(seed=8, n=6)
    assert [r.text for r in other] != [r.text for r in first]
    assert {r.tier for r in first} == {"easy", "medium", "hard"}
    for r in first:
        assert r.split == "generated" and r.meta["seed"] == 7
        assert r.meta["generator_version"] == GENERATOR_VERSION and r.meta["family"]
    # de-duplicated by meaning: no two rules agree on every probe
    points = probe_set(0).points
    extensions = {np.packbits(compile_rule(r.text).evaluate(points)).tobytes() for r in first}
    assert len(extensions) == len(first)
    # and none is near-constant over the probe set
    for r in first:
        share = compile_rule(r.text).evaluate(points).mean()
        assert 0.0 < share < 1.0


def test_generated_split_rejects_bad_sizes() -> None:
    from wason.tasks.wilt.generate import generate_split

    with pytest.raises(ValueError, match="--n"):
        generate_split(seed=1, n=0)
