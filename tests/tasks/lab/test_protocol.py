"""The lab's text protocol: replies read from their last JSON object, hostile ones refused in one line."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wason.core.game import Malformed
from wason.tasks.lab.drawing import generate
from wason.tasks.lab.game import Answer, Finish, LabConfig, LabGame, Request, Step
from wason.tasks.lab.protocol import LabProtocol, last_json_object, parse_reply
from wason.tasks.lab.world import PRESETS


def test_requests_in_every_written_form() -> None:
    reply = (
        'I will test {this} first. {"experiments": [["splorf", "z-1"], ["wuzz", "z-1", "z-2"], '
        '{"op": "splorf", "objects": ["z-3"]}, {"op": "splorf", "objects": "z-2"}, ["reset", "z-1"], '
        '{"reset": "z-2"}, ["create", "zorple"], {"create": "blick"}]}'
    )
    action = parse_reply(reply)
    assert action == Request(
        (
            Step("experiment", op="splorf", objects=("z-1",)),
            Step("experiment", op="wuzz", objects=("z-1", "z-2")),
            Step("experiment", op="splorf", objects=("z-3",)),
            Step("experiment", op="splorf", objects=("z-2",)),
            Step("reset", objects=("z-1",)),
            Step("reset", objects=("z-2",)),
            Step("create", type="zorple"),
            Step("create", type="blick"),
        )
    )


def test_done_and_answers() -> None:
    assert parse_reply('ok\n```json\n{"done": true}\n```') == Finish()
    answer = parse_reply(
        '{"predictions": [{"n-1": {"zib": 6, "glowy": "true"}}, {}, null], '
        '"theory": ["on splorf(a): a.zib = a.zib * 2"], "report": "it doubles"}'
    )
    assert answer == Answer(
        ({"n-1": {"zib": 6.0, "glowy": True}}, {}, None), "on splorf(a): a.zib = a.zib * 2", "it doubles"
    )


def test_the_last_object_wins() -> None:
    reply = 'Earlier I wrote {"experiments": [["a", "x"]]} but now {"experiments": [["b", "y"]]}'
    assert parse_reply(reply) == Request((Step("experiment", op="b", objects=("y",)),))
    assert last_json_object('{"a": {"b": {}}} trailing') == {"a": {"b": {}}}


@pytest.mark.parametrize(
    ("reply", "reason"),
    [
        ("no json here", "no JSON object"),
        ('{"experiment": []}', "needs"),
        ('{"experiments": "splorf z-1"}', "must be a list"),
        ('{"experiments": [[]]}', "step 1"),
        ('{"experiments": [[1, 2]]}', "must be a name"),
        ('{"experiments": [["create"]]}', "create"),
        ('{"experiments": [["a", "b", "c", "d", "e"]]}', "too many"),
        ('{"experiments": [' + ",".join(['["a", "b"]'] * 101) + "]}", "more than 100"),
        ('{"experiments": [["' + "x" * 81 + '", "b"]]}', "longer than"),
        ('{"predictions": {"a": 1}}', "must be a list"),
        ('{"predictions": [5]}', "prediction 1"),
        ('{"predictions": [{"n-1": 5}]}', "prediction 1"),
        ('{"predictions": [{"n-1": {"zib": [1]}}]}', "a number, true or false"),
        ('{"predictions": [{"n-1": {"zib": "Infinity"}}]}', "a number"),
        ('{"predictions": [], "theory": 5}', "must be text"),
        ('{"done": "yes"}', "needs"),
    ],
)
def test_malformed_replies_say_why_in_one_line(reply: str, reason: str) -> None:
    action = parse_reply(reply)
    assert isinstance(action, Malformed), action
    assert reason in action.reason and "\n" not in action.reason


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(list('{}[]":,ab1 \\-eE.nulltrue')), max_size=300))
def test_any_text_is_read_or_refused(text: str) -> None:
    action = parse_reply(text)
    assert isinstance(action, Request | Finish | Answer | Malformed)


def test_hostile_sizes_are_cheap() -> None:
    for reply in ("{" * 200_000, "[" * 200_000, '{"a": "' + "x" * 500_000, '{"experiments": ' + "[" * 50_000):
        assert isinstance(parse_reply(reply), Malformed)


def test_a_whole_game_through_the_text() -> None:
    domain = generate(PRESETS["easy"], 1)
    config = LabConfig(budget=4, per_turn=2, max_turns=5, test_size=3, curve=False)
    game = LabGame(domain, config)
    protocol = LabProtocol(config)
    system = protocol.system_prompt()
    assert "up to 2 steps" in system and "4 experiments" in system and "5 turns" in system
    assert '"create"' not in system  # creation is off
    first = protocol.first_message(game.start())
    for name, type_name, _ in domain.objects:
        assert f"{name} ({type_name})" in first
    assert all(o.name in first for o in domain.operations)
    assert not any(text in first for text in domain.law_text())
    ops = [o.name for o in domain.operations]
    obj = domain.objects[0][0]
    steps = json.dumps({"experiments": [[ops[0], obj], [ops[1], obj]]})
    obs = game.step(protocol.parse(steps))
    text = protocol.feedback(obs)
    assert text.startswith("Results:\n1. ") and "Experiments left: 2. Turns left: 4." in text
    assert "nothing changed" in text or "->" in text
    obs = game.step(protocol.parse("no json"))
    assert protocol.feedback(obs).startswith("Refused: no JSON object")
    obs = game.step(protocol.parse('{"done": true}'))
    text = protocol.feedback(obs)
    assert "The test:" in text and "1. " in text and "3. " in text
    obs = game.step(protocol.parse('{"predictions": [{}]}'))
    assert "could not be read: 1 predictions for 3" in protocol.feedback(obs)
    obs = game.step(protocol.parse('{"predictions": [{}, {}, {}]}'))
    assert protocol.feedback(obs).startswith("The test is over:")


def test_creation_is_explained_when_allowed() -> None:
    assert '"create" and a type' in LabProtocol(LabConfig(allow_create=True)).system_prompt()


def test_docs_show_the_texts_exactly() -> None:
    from pathlib import Path

    from wason.tasks.lab.family import LabRunConfig

    docs = (Path(__file__).resolve().parents[3] / "docs" / "lab.md").read_text(encoding="utf-8")
    config = LabRunConfig().game_config("0|1")
    protocol = LabProtocol(config)
    game = LabGame(generate(PRESETS["easy"], "0|1"), config)
    assert f"```text\n{protocol.system_prompt()}\n```" in docs
    assert f"```text\n{protocol.first_message(game.start())}\n```" in docs
