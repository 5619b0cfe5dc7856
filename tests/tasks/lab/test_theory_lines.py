"""A person's theory is read one line at a time, as the test's predictions are: a line that cannot be read (or
names what the lab does not have) is said with its reason and asked again at the terminal, refused on the web
with the form kept, and never costs the other laws. And ``quit`` in the lab's help says what it does."""

from __future__ import annotations

import builtins
from collections.abc import Iterator
from pathlib import Path

import pytest

from wason.tasks.lab.game import Answer, Finish, LabConfig, LabGame, LabObservation
from wason.tasks.lab.human import LAB_HELP, LabHumanPlayer, observed_signature, web_action
from wason.tasks.lab.laws import Arith, Law, Num, Ref
from wason.tasks.lab.theory import MAX_LAWS, Signature, line_problems, read_theory
from wason.tasks.lab.world import Domain, DomainParams, ObjectType, Operation

ZORP = ObjectType("zorple", ("glowy",), ("zib",))
LAWS = (
    Law("splorf", 1, Ref(0, "zib"), Arith("*", Ref(0, "zib"), Num(2.0)), Ref(0, "glowy")),
    Law("wuzz", 2, Ref(1, "zib"), Arith("+", Ref(1, "zib"), Ref(0, "zib"))),
)
OBJECTS = (
    ("zorple-1", "zorple", (("glowy", True), ("zib", 3.0))),
    ("zorple-2", "zorple", (("glowy", False), ("zib", 5.0))),
)
CONFIG = LabConfig(budget=4, per_turn=3, max_turns=6, test_size=3, curve=False)
TRUE_THEORY = ["on splorf(a): a.zib = a.zib * 2 if a.glowy", "on wuzz(a, b): b.zib = b.zib + a.zib"]


def domain() -> Domain:
    params = DomainParams(binary=1, unary=1, laws=2)
    ops = (Operation("splorf", 1), Operation("wuzz", 2), Operation("blick", 1))
    return Domain("hand", params, (ZORP,), ops, LAWS, OBJECTS)


def typist(lines: list[str], signature: Signature | None = None) -> tuple[list[str], LabHumanPlayer]:
    said: list[str] = []
    feed: Iterator[str] = iter(lines)

    def read(prompt: str) -> str:
        try:
            return next(feed)
        except StopIteration:
            raise EOFError from None

    return said, LabHumanPlayer(read=read, write=said.append, config=CONFIG, signature=signature)


async def play(player: LabHumanPlayer, game: LabGame) -> LabObservation:
    obs = game.start()
    while not game.done:
        obs = game.step((await player.act(obs)).action)
    return obs


# -- the terminal -------------------------------------------------------------------------------------------
async def test_a_bad_law_at_the_terminal_is_asked_again_and_the_others_are_kept() -> None:
    game = LabGame(domain(), CONFIG)
    said, player = typist(
        [
            "done",
            "-",
            "-",
            "-",
            TRUE_THEORY[0],
            "on wuzz(a, b): b.zob = b.zib + a.zib",  # a misspelt property: said, asked again
            "on wuzz(a, b: b.zib = 1",  # a syntax error: said, asked again
            "on splorf(a, b): a.zib = 1",  # splorf acts on one object
            TRUE_THEORY[1],
            "",
            "",
        ]
    )
    end = await play(player, game)
    assert end.kind == "ended"
    assert game.answer is not None and game.answer.theory.splitlines() == TRUE_THEORY
    metrics = game.outcome().metrics
    # the theory was kept whole: read, and exactly the hidden laws
    assert metrics["theory_error"] is None and metrics["theory_equivalent"] is True
    text = "\n".join(said)
    assert "line 2: unknown property 'zob'" in text
    assert "line 2: expected ')'" in text
    assert "line 2: splorf acts on 1 object, not 2" in text
    assert text.count("Type that law again") == 3


async def test_the_terminal_knows_the_operations_from_the_start_of_the_game() -> None:
    # no signature given: the lab's start lists the operations, blick among them though no test uses it
    game = LabGame(domain(), CONFIG)
    said, player = typist(["done", "-", "-", "-", "on blik(a): a.zib = 1", "on blick(a): a.zib = 1", "", ""])
    await play(player, game)
    assert game.answer is not None and game.answer.theory == "on blick(a): a.zib = 1"
    assert "line 1: unknown operation 'blik'" in "\n".join(said)
    assert game.outcome().metrics["theory_error"] is None


async def test_the_terminal_theory_stops_at_what_a_theory_may_hold() -> None:
    game = LabGame(domain(), CONFIG)
    obs = game.step(Finish())
    said, player = typist(["-", "-", "-", *[TRUE_THEORY[1]] * (MAX_LAWS + 5), ""])
    move = await player.act(obs)
    assert isinstance(move.action, Answer)
    assert len(move.action.theory.splitlines()) == MAX_LAWS
    read_theory(move.action.theory, domain())  # readable: never cut in the middle of a law
    assert f"its most, {MAX_LAWS} laws" in "\n".join(said)


# -- the web ------------------------------------------------------------------------------------------------
def test_a_bad_theory_line_on_the_web_is_refused_naming_it() -> None:
    game = LabGame(domain(), CONFIG)
    test = game.step(Finish())
    signature = Signature.of(domain())
    theory = "\n".join([TRUE_THEORY[0], "on wuzz(a, b): b.zob = 1", "# a note", "on blik(a): a.zib = 1"])
    with pytest.raises(ValueError) as err:
        web_action(test, "answer", {"theory": theory}, signature)
    message = str(err.value)
    assert message.startswith("theory: line 2: unknown property 'zob'")
    assert "line 4: unknown operation 'blik'" in message and "line 1" not in message
    assert "\n" not in message
    # corrected, it is taken whole, and the game reads it
    fixed = "\n".join(TRUE_THEORY)
    answer = web_action(test, "answer", {"theory": fixed}, signature)
    end = game.step(answer)
    assert end.kind == "ended" and game.outcome().metrics["theory_equivalent"] is True


def test_the_family_checks_a_web_theory_against_the_labs_operations() -> None:
    from wason.tasks.lab.family import FAMILY, LabRunConfig, domain_of

    config = LabRunConfig(player="human", curve=False)
    item = config.items()[0][1]
    game = FAMILY.game(config, item, None)  # type: ignore[arg-type]
    game.start()
    test = game.step(Finish())
    ops = [o.name for o in domain_of(item).operations]
    kinds = observed_signature(test).kinds
    prop = next(p for p, k in kinds.items() if k == "number")
    good = f"on {ops[0]}(a): a.{prop} = a.{prop} + 1"
    with pytest.raises(ValueError, match=r"^theory: line 2: unknown operation 'nosuchop'"):
        FAMILY.web_move(config, item, test, "answer", {"theory": f"{good}\non nosuchop(a): a.{prop} = 1"})
    encoded = FAMILY.web_move(config, item, test, "answer", {"theory": good})
    action = FAMILY.actions.decode(dict(encoded))  # type: ignore[arg-type]
    assert isinstance(action, Answer) and action.theory == good


def test_line_problems_report_each_bad_line_once_and_nothing_for_a_good_theory() -> None:
    signature = Signature.of(domain())
    assert line_problems("\n".join(TRUE_THEORY), signature) == []
    assert line_problems("", signature) == [] and line_problems("# only a comment\n\n", signature) == []
    got = line_problems("on splorf(a): a.glowy = 3; on splorf(a): a.zib = true\n\non @", signature)
    assert len(got) == 3
    assert got[0].startswith("line 1: sets the boolean property 'glowy' to a number")
    assert got[1].startswith("line 1: sets the number property 'zib' to a boolean")
    assert got[2].startswith("line 3: unexpected character '@'")
    assert line_problems("on splorf(a): a.zob = 1", signature, first_line=7)[0].startswith("line 7:")


# -- quit ---------------------------------------------------------------------------------------------------
def test_the_labs_help_says_quit_ends_the_game_and_shows_the_laws(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from wason.cli import main
    from wason.store import Store

    quit_line = next(line for line in LAB_HELP.splitlines() if line.strip().startswith("quit"))
    assert "resumed" not in quit_line.replace("cannot be resumed", "")
    assert "ends" in quit_line and "laws are shown" in LAB_HELP

    # and that is what happens: the game ends, its laws are shown, and there is nothing left to resume
    monkeypatch.setattr(builtins, "input", lambda prompt: "quit")
    db = f"sqlite:///{tmp_path / 'play.db'}"
    assert main(["play", "lab", "--seed", "3", "--test-size", "4", "--budget", "5", "--db", db]) == 0
    out = capsys.readouterr().out
    assert "The hidden laws were:" in out
    (run,) = Store(db).list_runs()
    (episode,) = Store(db).list_episodes(run.id)
    assert episode.status == "errored"
    assert main(["play", "--session", str(episode.id), "--db", db]) != 0
    assert "nothing left to play" in capsys.readouterr().err
