"""The lab family as users reach it: its configuration, items, the public part of an item, its own commands and
how the web page words its moves."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from wason.cli import main
from wason.tasks.lab.drawing import generate
from wason.tasks.lab.family import FAMILY, LabRunConfig, domain_of
from wason.tasks.lab.game import Answer, Finish, Request, Step
from wason.tasks.lab.world import PRESETS


def test_items_are_domains_from_the_seed_with_trials() -> None:
    config = LabRunConfig(difficulty="medium", n=3, seed=4, trials=2)
    items = FAMILY.items(config)
    assert [k for k, _ in items] == [f"medium|4|{k}|{t}" for k in (1, 2, 3) for t in (1, 2)]
    first = items[0][1]
    assert domain_of(first).canonical() == generate(PRESETS["medium"], "4|1").canonical()
    assert (
        items[1][1]["domain"] == first["domain"] and items[1][1]["lab"] == first["lab"]
    )  # trials replay it...
    samples = {FAMILY.sample_key(config, item) for _, item in items}
    assert len(samples) == len(items)  # ...as independent samples
    noisy = FAMILY.items(LabRunConfig(n=1, noise=0.5))[0][1]
    assert noisy["lab"]["params"]["noise"] == 0.5


def test_the_public_part_never_names_the_laws() -> None:
    _, item = FAMILY.items(LabRunConfig(difficulty="hard", n=1))[0]
    public = {k: item[k] for k in FAMILY.public(item)}
    text = json.dumps(public)
    assert "law_text" not in text and "seed" not in public and "domain" not in public
    for law in item["domain"]["law_text"]:
        assert law not in text
    assert [o[0] for o in domain_of(item).objects] == [o["name"] for o in public["lab"]["objects"]]
    assert set(item["domain"]) == {"seed", "law_text"}


@pytest.mark.parametrize(
    ("fields", "named"),
    [({"n": 0}, "n"), ({"trials": 0}, "trials"), ({"noise": -1}, "noise"), ({"budget": 0}, "budget")],
)
def test_bad_settings_name_the_field(fields: dict[str, int], named: str) -> None:
    with pytest.raises(ValueError, match=named):
        LabRunConfig(**fields)  # type: ignore[arg-type]


def test_the_budget_follows_the_difficulty() -> None:
    assert [LabRunConfig(difficulty=d).game_config("0").budget for d in ("easy", "medium", "hard")] == [
        20,
        60,
        160,
    ]
    assert LabRunConfig(budget=7).game_config("0").max_turns == 17


def test_moves_in_words() -> None:
    codec = FAMILY.actions
    steps = (Step("experiment", op="splorf", objects=("z-1", "z-2")), Step("reset", objects=("z-1",)))
    assert FAMILY.describe_action(codec.encode(Request(steps))) == "Run: splorf(z-1, z-2); reset(z-1)"
    assert FAMILY.describe_action(codec.encode(Finish())) == "Done experimenting"
    answer = Answer(({}, None), theory="on a(a): a.x = 1\non b(a): a.y = 2\n")
    assert FAMILY.describe_action(codec.encode(answer)) == "Answer: 2 predictions, a theory of 2 lines"
    assert FAMILY.describe_action({"type": "Nonsense"}) is None


def test_lab_domain_command(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["lab", "domain", "--difficulty", "hard", "--seed", "2", "--index", "3"]) == 0
    out = capsys.readouterr().out
    domain = generate(PRESETS["hard"], "2|3")
    assert all(law in out for law in domain.law_text())
    assert main(["lab", "domain", "--seed", "2", "--index", "3", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == generate(PRESETS["easy"], "2|3").to_json()


def test_lab_check_command(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["lab", "check", "--difficulty", "medium", "--n", "30"]) == 0
    out = capsys.readouterr().out
    assert "30 medium domains" in out and "all valid and identifiable" in out


def test_lab_theory_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    domain = generate(PRESETS["medium"], "0|2")
    right = tmp_path / "right.txt"
    right.write_text("\n".join(domain.law_text()) + "\n", encoding="utf-8")
    assert main(["lab", "theory", str(right), "--difficulty", "medium", "--index", "2"]) == 0
    assert "equivalent to the hidden laws" in capsys.readouterr().out
    wrong = tmp_path / "wrong.txt"
    wrong.write_text("\n".join(domain.law_text()[1:]) + "\n", encoding="utf-8")
    assert main(["lab", "theory", str(wrong), "--difficulty", "medium", "--index", "2"]) == 1
    assert "not equivalent" in capsys.readouterr().out
    bad = tmp_path / "bad.txt"
    bad.write_text("__import__('os').system('true')\n", encoding="utf-8")
    assert main(["lab", "theory", str(bad), "--difficulty", "medium", "--index", "2"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("wason: error: line 1") and err.count("\n") == 1
    assert main(["lab", "theory", str(tmp_path / "missing.txt")]) == 2
    assert "cannot read" in capsys.readouterr().err
    assert main(["lab", "domain", "--index", "0"]) == 2
    assert "--index" in capsys.readouterr().err
