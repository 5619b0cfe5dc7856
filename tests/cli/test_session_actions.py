"""`wason session actions NAME`: every action of every game with its JSON schema and an example that `wason session
step` accepts (checked here through the command line); a bad action is one line naming the field and the whole
expected shape."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from wason.cli import main
from wason.core import registry
from wason.core.session import decode_action


def _actions(
    name: str, capsys: pytest.CaptureFixture[str]
) -> tuple[list[str], dict[str, tuple[str, dict[str, object], str]]]:
    """The command's lines, and per action kind: its schema line, its example and where it was accepted."""
    assert main(["session", "actions", name]) == 0
    lines = capsys.readouterr().out.splitlines()
    kinds: dict[str, tuple[str, dict[str, object], str]] = {}
    for i, line in enumerate(lines):
        if line.startswith("  schema:  "):
            kind = lines[i - 1].split(":", 1)[0]
            example = lines[i + 1]
            assert example.startswith("  example: {"), (name, kind, example)
            text, _, when = example.removeprefix("  example: ").rpartition("  (")
            kinds[kind] = (line.removeprefix("  schema:  "), json.loads(text), when)
    return lines, kinds


def _start(name: str, db: str, capsys: pytest.CaptureFixture[str]) -> str:
    assert main(["session", "start", name, "--db", db]) == 0
    return str(json.loads(capsys.readouterr().out)["session"])


@pytest.mark.parametrize("name", registry.names())
def test_every_action_has_a_schema_and_an_example_session_step_accepts(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("WASON_DB", str(tmp_path / "never.db"))
    lines, kinds = _actions(name, capsys)
    fam = registry.get(name)
    assert set(kinds) == set(fam.actions.kinds) - {"Malformed"}  # every kind, none left without an example
    for kind, (schema, example, _) in kinds.items():
        assert schema.startswith(f'{{"type": "{kind}"') and example["type"] == kind
    assert not (tmp_path / "never.db").exists()  # played in a scratch store, not the user's
    db = str(tmp_path / "check.db")
    for kind, (_, example, when) in kinds.items():
        decode_action(fam, example)  # what `session step` reads, for the examples of later turns too
        if (
            "as a first move" in when
        ):  # the command says `session step` took it as a game's first move: so it does
            sid = _start(name, db, capsys)
            assert main(["session", "step", sid, json.dumps(example), "--db", db]) == 0, (
                kind,
                capsys.readouterr(),
            )
            assert json.loads(capsys.readouterr().out)["turn"] == 1
    assert lines[-1].startswith("send one with  wason session step ID 'JSON'")


def test_a_wilt_game_played_with_the_examples(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The final guess was accepted at turn 31 of the solver's game: after 30 tests, it ends a game here too."""
    _, kinds = _actions("wilt", capsys)
    assert "at turn 31" in kinds["FinalGuess"][2]
    db = str(tmp_path / "wilt.db")
    sid = _start("wilt", db, capsys)
    for i in range(30):
        test = {**kinds["ProposeTest"][1], "values": [str(i), str(i + 1), str(-i)]}
        assert main(["session", "step", sid, json.dumps(test), "--db", db]) == 0
    capsys.readouterr()
    assert main(["session", "step", sid, json.dumps(kinds["FinalGuess"][1]), "--db", db]) == 0
    view = json.loads(capsys.readouterr().out)
    assert view["done"] and view["turn"] == 31


def test_moves_of_a_game_by_name_are_its_actions(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert main(["session", "moves", "picnic", "--db", str(tmp_path / "s.db")]) == 0
    by_moves = capsys.readouterr().out
    assert main(["session", "actions", "picnic"]) == 0
    assert by_moves == capsys.readouterr().out and '  example: {"type": "GiveUp"}' in by_moves


@pytest.mark.parametrize(
    ("action", "said"),
    [
        (
            {"type": "FinalGuess"},
            'FinalGuess.expression: missing; expected {"type": "FinalGuess", "expression": string}',
        ),
        (
            {"type": "FinalGuess", "expression": 3},
            'FinalGuess.expression: should be a valid string (given 3); expected {"type": "FinalGuess", '
            '"expression": string}',
        ),
        (
            {"type": "FinalGuess", "expresion": "x < y < z"},
            'FinalGuess has no field \'expresion\'; expected {"type": "FinalGuess", "expression": string}',
        ),
        (
            {"type": "ProposeTest", "values": [1, 2, 3]},
            'ProposeTest.values.0: should be a valid string (given 1); 2 more errors; expected {"type": "ProposeTest", '
            '"values": [string, ...]}',
        ),
        (
            {"type": "Propose", "values": ["1", "2", "3"]},
            "unknown action type 'Propose'; expected one of: ProposeTest, FinalGuess, Malformed (each with an "
            "example: wason session actions wilt)",
        ),
    ],
)
def test_a_bad_action_is_one_whole_line_naming_the_field_and_the_shape(
    action: dict[str, object], said: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = str(tmp_path / "s.db")
    sid = _start("wilt", db, capsys)
    assert main(["session", "step", sid, json.dumps(action), "--db", db]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.count("\n") == 1
    assert captured.err == f"wason: error: not a wilt action: {said}\n"  # whole: nothing cut
    assert "pydantic" not in captured.err and "Traceback" not in captured.err
    assert main(["session", "view", sid, "--db", db]) == 0
    assert json.loads(capsys.readouterr().out)["turn"] == 0  # nothing was played


def test_an_unknown_game_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["session", "actions", "chess"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "'chess' is not a game (wilt, " in err


def test_the_wilt_guess_the_actions_help_shows_is_one_the_game_takes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # issue 49, item 13: the help said "e.g. guess x < y < z", and that expression sent as the action lost with
    # "Invalid lambda function." (an action's guess is held to the published form, a lambda)
    lines, _ = _actions("wilt", capsys)
    (line,) = [line for line in lines if line.startswith("FinalGuess: ")]
    shown = line.removeprefix("FinalGuess: your one final guess, ").split(" (typed", 1)[0]
    assert shown.startswith("lambda x, y, z: ")
    db = str(tmp_path / "s.db")
    assert main(["session", "start", "wilt", "--rule", "2", "--db", db]) == 0
    sid = str(json.loads(capsys.readouterr().out)["session"])
    action = {"type": "FinalGuess", "expression": shown}
    assert main(["session", "step", sid, json.dumps(action), "--db", db]) == 0
    stepped = json.loads(capsys.readouterr().out)
    assert stepped["observation"]["correct"] is True  # rule 2 is x < y < z
    assert stepped["feedback"] == "Congratulations! Your guess is correct."
