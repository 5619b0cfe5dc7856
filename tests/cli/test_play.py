"""`wason play wilt` as a person uses it: typed lines in, plain words out, the rule revealed at the end."""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from wason.cli import main
from wason.core.family import PlayIO
from wason.store import Store
from wason.tasks.wilt import FinalGuess, ProposeTest, WiltObservation
from wason.tasks.wilt.family import FAMILY, WiltRunConfig


def run_play(
    args: list[str], stdin: str, tmp_path: Path, task: str = "wilt"
) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "WASON_DB": str(tmp_path / "play.db"), "COLUMNS": "120"}
    return subprocess.run(
        [sys.executable, "-m", "wason.cli", "play", task, *args],
        input=stdin,
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )


def test_a_person_finds_rule_2(tmp_path: Path) -> None:
    typed = "help\n1 2 3\n(3, 2, 1)\n1,1,1\nhistory\n5 1000 2\nguess x < y < z\n"
    done = run_play(["--split", "full", "--rule", "2"], typed, tmp_path)
    assert done.returncode == 0, done.stderr
    out = done.stdout
    # what the web page shows after each test
    assert (
        "Result for input (1.0, 2.0, 3.0): True." in out and "Result for input (3.0, 2.0, 1.0): False." in out
    )
    # a value the game cannot test is refused before it is played, naming its field, and costs no attempt
    assert "y: 1000 has more than 3 digits. Nothing was played." in out
    assert "Invalid test case" not in out
    assert "Correct, after 3 tests." in out
    assert "The rule was: lambda x, y, z: x < y < z" in out


def test_a_wrong_guess_shows_a_counterexample_and_the_rule(tmp_path: Path) -> None:
    done = run_play(["--split", "full", "--rule", "4"], "1 2 3\nguess x < y < z\n", tmp_path)
    assert done.returncode == 0, done.stderr
    assert "approximately correct" in done.stdout
    assert "the rule says True, your guess says False" in done.stdout
    assert "The rule was: lambda x, y, z: x <= y <= z" in done.stdout


def test_seed_draws_the_same_rule_and_input_end_is_handled(tmp_path: Path) -> None:
    first = run_play(["--seed", "7"], "", tmp_path)
    second = run_play(["--seed", "7"], "quit\n", tmp_path)
    assert first.returncode == 0 and second.returncode == 0
    reveal = [line for line in first.stdout.splitlines() if line.startswith("The rule was")]
    assert reveal and reveal == [
        line for line in second.stdout.splitlines() if line.startswith("The rule was")
    ]
    assert "Game over" in first.stdout


async def test_human_player_reads_tests_and_guesses() -> None:
    lines = iter(["", "nonsense words", "4 5 6", "g lambda x, y, z: True"])
    shown: list[str] = []
    config = WiltRunConfig(player="human")
    player = FAMILY.human(
        config, FAMILY.items(config)[0][1], PlayIO(lambda _prompt: next(lines), shown.append)
    )
    assert player is not None
    first = await player.act(WiltObservation(kind="start", remaining=30))
    assert first.action == ProposeTest(("4", "5", "6"))
    assert any("'nonsense words' is not a move here; type 1 2 3 (3 values)" in s for s in shown)
    second = await player.act(
        WiltObservation(kind="result", remaining=29, values=(4.0, 5.0, 6.0), result=True)
    )
    assert second.action == FinalGuess("lambda x, y, z: True")
    assert any("Result for input (4.0, 5.0, 6.0): True." in s for s in shown)


@pytest.mark.parametrize("args", [["--rule", "99"], ["--rule", "1", "--seed", "2"], ["--split", "nope"]])
def test_play_mistakes_are_one_line(args: list[str], tmp_path: Path) -> None:
    done = run_play(args, "", tmp_path)
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1


def test_play_a_rule_from_your_own_file(tmp_path: Path) -> None:
    rules = tmp_path / "mine.txt"
    rules.write_text("# two rules\nlambda x, y, z: all([v % 1 == 0 for v in [x, y, z]])\nx > 2 and y > 2\n")
    done = run_play(
        ["--rules", str(rules), "--rule", "2"],
        "1 1 1\n.5 2 3\n4 5 6\nguess x % 1 == 0 and y % 1 == 0 and z % 1 == 0\n",
        tmp_path,
    )
    assert done.returncode == 0, done.stderr
    # the rule text holds square brackets: shown as written, not taken for markup
    assert "The rule was: lambda x, y, z: all([v % 1 == 0 for v in [x, y, z]])  (file/2)" in done.stdout
    assert "Correct, after 3 tests." in done.stdout
    assert "ruled out" in done.stdout
    missing = run_play(["--rules", str(rules), "--rule", "1"], "", tmp_path)
    assert missing.returncode == 2 and "its rules: 2, 3" in missing.stderr


def test_a_person_plays_a_list_rule(tmp_path: Path) -> None:
    typed = (
        "1 2 3\n[3, 2, 1]\nabc\n2 5 7 14\nrun\n[]\n1\n2 1\n10 20 30 40\n7\n"
        "final each item is bigger than the one before\n"
        "lambda xs: all(a < b for a, b in zip(xs, xs[1:]))\n" + "y\n" * 10
    )
    done = run_play(["--rule", "1"], typed, tmp_path, task="lists")
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "Example lists that follow the rule:\n  [2, 5, 7, 14]" in out
    assert "[1, 2, 3] -> Yes" in out and "[3, 2, 1] -> No" in out
    assert (
        "list 3: integers separated by commas, not 'abc'. Nothing was played" in out
    )  # a typo costs nothing
    assert "[2, 5, 7, 14] -> Yes  (tested or shown before)" in out
    # the second round ran by itself at the fifth queued list
    assert "[] -> Yes" in out and "[2, 1] -> No" in out and "[7] -> Yes" in out
    assert "The rule was: List items must be in strictly increasing order  (pilot/1)" in out
    assert "Your predicate is the rule" in out
    assert "Quiz: 5 of 10 right." in out  # 'yes' to every held-out list: half of them fit
    assert "2 rounds, 8 lists tested." in out


def test_a_person_who_leaves_a_list_game(tmp_path: Path) -> None:
    done = run_play(["--seed", "3", "--split", "second"], "1 2\nquit\n", tmp_path, task="lists")
    assert done.returncode == 0, done.stderr
    assert "Game over: player left: gave up" in done.stdout and "The rule was:" in done.stdout


def _play_bytes(
    args: list[str], typed: bytes, tmp_path: Path, *, encoding: str | None, closed: bool = False
) -> subprocess.CompletedProcess[bytes]:
    env = {**os.environ, "WASON_DB": str(tmp_path / "play.db"), "COLUMNS": "120"}
    env.pop("PYTHONIOENCODING", None)
    if encoding is not None:  # strict UTF-8, as on a terminal in a UTF-8 locale
        env["PYTHONIOENCODING"] = encoding
    return subprocess.run(
        [sys.executable, "-m", "wason.cli", "play", *args],
        input=None if closed else typed,
        stdin=subprocess.DEVNULL if closed else None,
        preexec_fn=(lambda: os.close(0)) if closed else None,  # the child starts with stdin closed
        capture_output=True,
        env=env,
        timeout=120,
        check=False,
    )


@pytest.mark.parametrize("encoding", [None, "utf-8:strict"])
def test_lines_that_are_not_utf8_are_refused_one_by_one_and_lose_nothing(
    encoding: str | None, tmp_path: Path
) -> None:
    # binary noise, a test and a guess holding bad bytes, then good lines after them in the same read
    typed = b"\xff\xfe\n1 2 \xff\nguess x < y\xc3 < z\n1 2 3\nhistory\nguess x < y < z\n"
    done = _play_bytes(["wilt", "--split", "full", "--rule", "2"], typed, tmp_path, encoding=encoding)
    out, err = done.stdout.decode(), done.stderr.decode()
    assert done.returncode == 0, err
    assert err == "" and "surrogates" not in out
    assert out.count("That line is not UTF-8 text") == 3
    assert "(it holds the byte 0xff); nothing was played" in out and "(it holds the byte 0xc3)" in out
    # nothing of the refused lines was played: the one test is the good line's, then the guess wins
    assert "Result for input (1.0, 2.0, 3.0): True. Attempts Remaining: 29" in out
    assert "Correct, after 1 test." in out


def test_a_closed_standard_input_ends_the_game_as_an_empty_one(tmp_path: Path) -> None:
    done = _play_bytes(["wilt", "--rule", "1"], b"", tmp_path, encoding=None, closed=True)
    out, err = done.stdout.decode(), done.stderr.decode()
    assert done.returncode == 0 and "Traceback" not in err, err
    assert "Game over: player left: input closed" in out and "The rule was:" in out


def test_a_reply_or_action_that_is_not_utf8_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from wason.cli import main

    db = str(tmp_path / "session.db")
    assert main(["session", "start", "wilt", "--db", db]) == 0
    capsys.readouterr()
    # what the command line holds after a byte that is not UTF-8 (Python reads it as a lone surrogate)
    for argv, said in (
        (["--text", "Test Case: ```(1, 2, 3\udcff)```"], "--text is not UTF-8 text (it holds the byte 0xff)"),
        (['{"type": "FinalGuess", "expression": "x < y\\ud800"}'], "U+D800, half of a UTF-16 pair"),
    ):
        assert main(["session", "step", "1", *argv, "--db", db]) == 2
        err = capsys.readouterr().err
        assert said in err and "nothing was played" in err and err.count("\n") == 1
    assert main(["session", "view", "1", "--db", db]) == 0
    assert '"turn": 0' in capsys.readouterr().out  # the session is as it was
    assert main(["runs", "--model", "\udcff", "--db", db]) == 2  # any other argument: one line too
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "is not UTF-8 text (the byte 0xff)" in err


def test_session_moves_lists_the_actions_and_a_bad_one_names_its_field(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from wason.cli import main

    db = str(tmp_path / "session.db")
    assert main(["session", "start", "wilt", "--db", db]) == 0
    capsys.readouterr()
    assert main(["session", "moves", "1", "--db", db]) == 0
    listed = capsys.readouterr().out
    assert listed.startswith("session 1 (WILT), turn 0\n1 2 3 (3 values): test the triple")
    assert '  {"type": "ProposeTest", "values": [string, ...]}' in listed
    assert "guess EXPR: " in listed and '  {"type": "FinalGuess", "expression": string}' in listed
    assert main(["session", "moves", "wilt", "--db", db]) == 0 and "FinalGuess" in capsys.readouterr().out
    for action, said in (
        (
            '{"type": "FinalGuess", "expression": 3}',
            "FinalGuess.expression: should be a valid string (given 3)",
        ),
        ('{"type": "ProposeTest"}', "ProposeTest.values: missing"),
    ):
        assert main(["session", "step", "1", action, "--db", db]) == 2
        err = capsys.readouterr().err
        assert said in err and err.count("\n") == 1 and "pydantic" not in err
    assert main(["session", "moves", "nothing", "--db", db]) == 2
    assert "neither a session id nor a game" in capsys.readouterr().err


def _runs(tmp_path: Path, *flags: str) -> list[dict[str, object]]:
    from wason.cli import main

    db = f"sqlite:///{tmp_path / 'play.db'}"
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        assert main(["runs", "--json", "--db", db, *flags]) == 0
    runs: list[dict[str, object]] = json.loads(buffer.getvalue())
    return runs


def test_a_game_at_the_terminal_or_by_session_closes_its_run_under_the_players_name(tmp_path: Path) -> None:
    from wason.cli import main

    won = run_play(["--split", "full", "--rule", "2", "--name", "ada"], "1 2 3\nguess x < y < z\n", tmp_path)
    left = run_play(["--seed", "3", "--split", "second", "--name", "bo"], "1 2\nquit\n", tmp_path, "lists")
    assert won.returncode == 0 and left.returncode == 0, won.stderr + left.stderr
    db = f"sqlite:///{tmp_path / 'play.db'}"
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        assert main(["session", "start", "wilt", "--split", "full", "--rule", "2", "--db", db]) == 0
    sid = str(json.loads(buffer.getvalue())["session"])
    assert [r["status"] for r in _runs(tmp_path)] == ["completed", "incomplete", "running"]
    with contextlib.redirect_stdout(io.StringIO()):
        assert (
            main(["session", "step", sid, "--text", "Final Guess: lambda x, y, z: x < y < z", "--db", db])
            == 0
        )
    done = _runs(tmp_path, "--status", "completed")
    assert [(r["player"], r["family"], r["split"]) for r in done] == [
        ("human:ada", "wilt", "full"),
        ("session", "wilt", "full"),
    ]
    assert [r["player"] for r in _runs(tmp_path, "--status", "incomplete")] == ["human:bo"]


def test_a_name_a_person_cannot_have_is_one_line(tmp_path: Path) -> None:
    done = run_play(["--name", "[ada]"], "", tmp_path)
    assert (
        done.returncode == 2 and done.stderr.count("\n") == 1 and "--name: a name of 1 to 40" in done.stderr
    )


def test_a_family_not_for_people_gets_one_line_naming_the_games_to_play(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = f"sqlite:///{tmp_path / 'p.db'}"
    for argv in (["play", "aiw"], ["play", "aiw", "--seed", "3", "--db", db]):
        assert main(argv) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert err == [
            "wason: error: AIW is not played by a person (its games are for models: wason eval aiw); "
            "games to play: wilt, lists, picnic, code-functions, math, dynamic-picnic, lab"
        ]
    assert not (tmp_path / "p.db").exists() or Store(db).list_runs() == []
