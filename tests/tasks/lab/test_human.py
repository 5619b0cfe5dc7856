"""A person in the lab: the terminal player's commands (typos cost no turn, quit leaves), the test's answer, and
the web form's moves."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from wason.core.family import REPLY_MOVE
from wason.core.game import PlayerLeft
from wason.tasks.lab.game import (
    Answer,
    Finish,
    LabConfig,
    LabGame,
    LabObservation,
    ObjectView,
    Request,
    Step,
    TrialView,
)
from wason.tasks.lab.human import (
    LabHumanPlayer,
    parse_prediction,
    parse_step,
    parse_steps,
    web_action,
    web_form,
)
from wason.tasks.lab.laws import Arith, Law, Num, Ref
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


def game(config: LabConfig = CONFIG) -> LabGame:
    params = DomainParams(binary=1, unary=1, laws=2)
    domain = Domain("hand", params, (ZORP,), (Operation("splorf", 1), Operation("wuzz", 2)), LAWS, OBJECTS)
    return LabGame(domain, config)


def typist(lines: list[str]) -> tuple[Iterator[str], list[str], LabHumanPlayer]:
    said: list[str] = []
    feed = iter(lines)

    def read(prompt: str) -> str:
        try:
            return next(feed)
        except StopIteration:
            raise EOFError from None

    return feed, said, LabHumanPlayer(read=read, write=said.append, config=CONFIG)


# -- the syntax ---------------------------------------------------------------------------------------------
def test_steps_in_every_written_form() -> None:
    assert parse_step("splorf zorple-1") == Step("experiment", op="splorf", objects=("zorple-1",))
    both = Step("experiment", op="wuzz", objects=("zorple-1", "zorple-2"))
    assert parse_step("wuzz zorple-1 zorple-2") == both
    assert parse_step("  wuzz(zorple-1, zorple-2) ") == both
    assert parse_step("reset zorple-2") == Step("reset", objects=("zorple-2",))
    assert parse_step("RESET zorple-2") == Step("reset", objects=("zorple-2",))
    assert parse_step("create zorple") == Step("create", type="zorple")
    assert parse_steps("splorf zorple-1; reset zorple-1\nwuzz zorple-1 zorple-2;") == (
        Step("experiment", op="splorf", objects=("zorple-1",)),
        Step("reset", objects=("zorple-1",)),
        both,
    )


@pytest.mark.parametrize(
    ("text", "word"),
    [
        ("", "no steps"),
        (" ; ;\n", "no steps"),
        ("splorf", "name the object"),
        ("wuzz a b c", "one or two objects, not 3"),
        ("reset", "reset takes one object"),
        ("reset a b", "reset takes one object"),
        ("create", "create takes one type"),
        ("splorf zorple-1!", "is not a name"),
        ("__import__('os') x", "is not a name"),
        ("__import__('os').system('ls') x", "one or two objects"),
        ("splorf " + "z" * 200, "is not a name"),
        ("splörf zorple-1", "is not a name"),
        ("splorf 1zorple", "is not a name"),
        ("a x;" * 4, "4 steps; at most 3"),
        ("a x;" * 6000, "more than 10000 characters"),
    ],
)
def test_bad_requests_say_what_is_wrong_in_one_line(text: str, word: str) -> None:
    with pytest.raises(ValueError) as err:
        parse_steps(text, per_turn=3)
    message = str(err.value)
    assert word in message and "\n" not in message and len(message) < 200


TRIAL = TrialView(
    op="wuzz",
    objects=(
        ObjectView(name="new-zorple-1", type="zorple", values={"glowy": True, "zib": 2.0}),
        ObjectView(name="new-zorple-2", type="zorple", values={"glowy": False, "zib": 4.0}),
    ),
)


def test_predictions_read_values_and_nothing_changes() -> None:
    assert parse_prediction("", TRIAL) == {} and parse_prediction(" - ", TRIAL) == {}
    assert parse_prediction("nothing", TRIAL) == {}
    got = parse_prediction("new-zorple-2.zib=6, new-zorple-2.glowy = yes; new-zorple-1.zib=-1.5e0", TRIAL)
    assert got == {"new-zorple-2": {"zib": 6.0, "glowy": True}, "new-zorple-1": {"zib": -1.5}}
    assert isinstance(got["new-zorple-2"]["glowy"], bool)
    # without a trial only the syntax is checked
    assert parse_prediction("x.y=false") == {"x": {"y": False}}


@pytest.mark.parametrize(
    ("text", "word"),
    [
        ("new-zorple-2.zib", "obj.prop=value"),
        ("zib=3", "obj.prop=value"),
        ("new-zorple-3.zib=3", "not an object of this experiment"),
        ("new-zorple-1.zob=3", "has no property 'zob'"),
        ("new-zorple-1.zib=true", "is a number"),
        ("new-zorple-1.glowy=3", "is true or false"),
        ("new-zorple-1.zib=nan", "not a number"),
        ("new-zorple-1.zib=inf", "not a number"),
        ("new-zorple-1.zib=1e999", "not a number"),
        ("new-zorple-1.zib=" + "9" * 100, "not a number"),
        ("new-zorple-1.zib=1, new-zorple-1.zib=2", "named twice"),
        ("a.b.c=1", "is not a name"),
        ("new-zorple-1.zib=" + "1" * 20_000, "more than 10000 characters"),
    ],
)
def test_bad_predictions_say_what_is_wrong(text: str, word: str) -> None:
    with pytest.raises(ValueError) as err:
        parse_prediction(text, TRIAL)
    assert word in str(err.value) and "\n" not in str(err.value)


# -- the terminal -------------------------------------------------------------------------------------------
async def play(player: LabHumanPlayer, g: LabGame) -> LabObservation:
    obs = g.start()
    while not g.done:
        move = await player.act(obs)
        obs = g.step(move.action)
    return obs


async def test_a_game_at_the_terminal_with_typos_that_cost_no_turn() -> None:
    g = game()
    lines = [
        "help",
        "",
        "splorf",  # no object: asked again
        "splorf zorple-1; splorf zorple-2; wuzz zorple-1 zorple-2; splorf zorple-1",  # 4 steps: too many
        "splorf zorple-1; wuzz zorple-1 zorple-2",
        "teleport zorple-1",  # syntactically fine: sent, and the game refuses it (a turn)
        "done",
        # the test: three experiments, one typo on the first
        "zorple-1.zib=3",
        "-",
        "",
        "-",
        "",  # no theory
        "it doubles things",
    ]
    _, said, player = typist(lines)
    end = await play(player, g)
    assert end.kind == "ended"
    # two requests and done reached the game; the three typos did not
    assert g.turns == 3 and g.experiments == 2 and g.invalid == 1
    assert g.answer is not None and g.answer.report == "it doubles things" and g.answer.theory == ""
    assert g.answer.predictions == ({}, {}, {})
    text = "\n".join(said)
    assert "4 steps; at most 3" in text and "name the object(s) after splorf" in text
    assert "not an object of this experiment" in text  # the typo in the test was caught before sending
    assert "done by X to Y" in text and "reset OBJ" in text  # the lab and the help
    assert "unknown operation 'teleport'" in text


async def test_the_theory_is_read_until_an_empty_line() -> None:
    g = game()
    obs = g.step(Finish())
    _, _, player = typist(
        [
            "-",
            "-",
            "-",
            "on splorf(a): a.zib = a.zib * 2 if a.glowy",
            "on wuzz(a, b): b.zib = b.zib + a.zib",
            "",
            "",
        ]
    )
    move = await player.act(obs)
    assert isinstance(move.action, Answer)
    assert move.action.theory.splitlines() == [
        "on splorf(a): a.zib = a.zib * 2 if a.glowy",
        "on wuzz(a, b): b.zib = b.zib + a.zib",
    ]
    assert move.action.report == "" and move.reply is not None and '"predictions"' in move.reply


@pytest.mark.parametrize("lines", [["quit"], ["splorf", "exit"], []])
async def test_quit_or_closed_input_leaves(lines: list[str]) -> None:
    _, _, player = typist(lines)
    with pytest.raises(PlayerLeft):
        await player.act(game().start())


async def test_quit_at_the_test_leaves() -> None:
    g = game()
    obs = g.step(Finish())
    _, _, player = typist(["-", "quit"])
    with pytest.raises(PlayerLeft):
        await player.act(obs)


async def test_done_is_a_finish() -> None:
    _, _, player = typist(["DONE"])
    move = await player.act(game().start())
    assert move.action == Finish()


# -- the browser --------------------------------------------------------------------------------------------
def test_the_web_form_follows_the_phases() -> None:
    g = game()
    start = g.start()
    form = web_form(CONFIG, start, 0)
    # a person is never offered the free-text reply read as a model's (its JSON)
    assert [m.name for m in form.moves] == ["run", "done"] and REPLY_MOVE not in form.moves
    assert "splorf(X): done to one object" in form.prompt and "zib * 2" not in form.prompt
    # the example request uses the lab's own names, and runs
    example = form.moves[0].fields[0].placeholder
    assert example == "splorf zorple-1"
    obs = g.step(web_action(start, "run", {"steps": example}))
    assert obs.kind == "results" and g.experiments == 1
    later = web_form(CONFIG, obs, 1)
    assert later.moves[0].fields[0].placeholder == "splorf zorple-1"
    assert "zorple-1.zib 3 -> 6" in later.prompt
    refused = g.step(web_action(obs, "run", {"steps": "wuzz zorple-1 zorple-1"}))
    assert refused.kind == "invalid"
    assert web_form(CONFIG, refused, 2).moves[0].fields[0].placeholder == "OPERATION OBJECT"
    test = g.step(web_action(refused, "done", {}))
    assert test.kind == "test"
    tform = web_form(CONFIG, test, 3)
    assert [m.name for m in tform.moves] == ["answer"]
    assert len(tform.moves[0].columns) == 3  # the test is a table: experiment, its objects, the prediction
    fields = tform.moves[0].fields
    assert [f.name for f in fields] == ["test1", "test2", "test3", "theory", "report"]
    trial = test.trials[0]
    assert fields[0].label == f"1. {trial.op}({', '.join(o.name for o in trial.objects)})"
    assert all(f.cells for f in fields[:3]) and not fields[3].cells and not fields[4].cells
    assert trial.objects[0].name + ": " in fields[0].cells[0]
    assert "obj.prop=value" in tform.prompt and " where " not in tform.prompt
    again = g.step(Answer(({},)))  # one prediction for three experiments: not read, one more try
    assert again.kind == "test_invalid"
    # the experiments are the table's rows again (with their objects), not a list in the text
    retry = web_form(CONFIG, again, 4)
    assert "could not be read" in retry.prompt and [f.cells for f in retry.moves[0].fields[:3]] == [
        f.cells for f in fields[:3]
    ]
    # the placeholders are an answer the game takes ("-": nothing changes)
    values = {f.name: f.placeholder for f in fields[:3]}
    answer = web_action(test, "answer", values)
    assert isinstance(answer, Answer) and answer.predictions == ({}, {}, {})
    end = g.step(answer)
    assert end.kind == "ended" and web_form(CONFIG, end, 5).moves == ()


def test_web_moves_that_cannot_be_read_name_their_field() -> None:
    g = game()
    start = g.start()
    cases = [
        (start, "run", {"steps": ""}, "steps: write something first"),
        (start, "run", {"steps": "splorf zorple-1!"}, "steps: step 1"),
        (start, "answer", {}, "'answer' is not open now"),
        (start, "teleport", {}, "'teleport' is not a move"),
    ]
    test = g.step(Finish())
    name = test.trials[1].objects[0].name
    cases += [
        (test, "run", {"steps": "splorf zorple-1"}, "'run' is not open now"),
        (test, "done", {}, "'done' is not open now"),
        (test, "answer", {"test2": f"{name}.nope=1"}, "test2: "),
        (test, "answer", {"test1": "-", "test3": "x.y"}, "test3: "),
        (test, "answer", {"theory": "x" * 20_001}, "theory: more than"),
        (test, "answer", {"theory": "on a(a): a.x = 1\n" * 101}, "theory: more than 100 lines"),
    ]
    for obs, move, values, word in cases:
        with pytest.raises(ValueError) as err:
            web_action(obs, move, values)
        assert str(err.value).startswith(word), (move, values, str(err.value))
    answer = web_action(test, "answer", {"theory": "  on splorf(a): a.zib = 1 ", "report": " short "})
    assert (
        isinstance(answer, Answer) and answer.theory == "on splorf(a): a.zib = 1" and answer.report == "short"
    )


def test_the_family_encodes_the_forms_moves_and_reads_a_reply() -> None:
    from wason.tasks.lab.family import FAMILY, LabRunConfig

    config = LabRunConfig(player="human", curve=False)
    item = config.items()[0][1]
    g = FAMILY.game(config, item, None)  # type: ignore[arg-type]
    start = g.start()
    form = FAMILY.web_form(config, item, start, 0)
    assert [m.name for m in form.moves] == ["run", "done"]
    step = form.moves[0].fields[0].placeholder
    encoded = FAMILY.web_move(config, item, start, "run", {"steps": step})
    action = FAMILY.actions.decode(dict(encoded))  # type: ignore[arg-type]
    assert isinstance(action, Request) and len(action.steps) == 1
    # the model's JSON reply is no move of a person's page
    with pytest.raises(ValueError, match="'reply' is not a move"):
        FAMILY.web_move(config, item, start, "reply", {"text": '{"done": true}'})


def test_wason_play_lab_at_the_terminal(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("wason.tasks.lab.learner", reason="the lab's ideal learner has not landed yet")
    import builtins

    from wason.cli import main
    from wason.store import Store

    lab = iter(["help", "nonsense!", "teleport x", "done"])

    def read(prompt: str) -> str:
        if prompt == "> ":
            return next(lab)
        if prompt == "law> ":
            return ""
        if prompt == "report> ":
            return "nothing happens"
        return "-"  # every test experiment: nothing changes

    monkeypatch.setattr(builtins, "input", read)
    db = f"sqlite:///{tmp_path / 'play.db'}"
    code = main(["play", "lab", "--seed", "3", "--test-size", "4", "--budget", "5", "--db", db])
    out = capsys.readouterr().out
    assert code == 0, out[-3000:]
    assert "The lab holds these objects:" in out and "is not a name" in out
    assert "Refused: step 1 (teleport(x))" in out  # sent: the game refused it, and it cost a turn
    (run,) = Store(db).list_runs()
    (episode,) = Store(db).list_episodes(run.id)
    assert episode.status == "completed" and episode.metrics is not None
    assert episode.metrics["turns"] == 2 and episode.metrics["report"] == "nothing happens"
    assert "The hidden laws were:" in out
    assert all(law in out for law in episode.item["domain"]["law_text"])
    assert "You wrote no theory." in out
