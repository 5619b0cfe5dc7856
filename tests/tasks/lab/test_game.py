"""The lab game: the assistant runs requests and reports changes, refuses bad ones whole, and scores the test."""

from __future__ import annotations

import pytest

from wason.core.game import Malformed
from wason.tasks.lab.drawing import generate
from wason.tasks.lab.game import Answer, Finish, LabConfig, LabGame, Request, Step, number_right
from wason.tasks.lab.laws import Arith, Law, Num, Ref
from wason.tasks.lab.world import PRESETS, Domain, DomainParams, ObjectType, Operation

ZORP = ObjectType("zorple", ("glowy",), ("zib",))
# splorf doubles a glowing zorple's zib; wuzz adds the actor's zib to the target's
LAWS = (
    Law("splorf", 1, Ref(0, "zib"), Arith("*", Ref(0, "zib"), Num(2.0)), Ref(0, "glowy")),
    Law("wuzz", 2, Ref(1, "zib"), Arith("+", Ref(1, "zib"), Ref(0, "zib"))),
)
OBJECTS = (
    ("zorple-1", "zorple", (("glowy", True), ("zib", 3.0))),
    ("zorple-2", "zorple", (("glowy", False), ("zib", 5.0))),
    ("zorple-3", "zorple", (("glowy", True), ("zib", 1.0))),
)


def domain(noise: float = 0.0) -> Domain:
    params = DomainParams(binary=1, unary=1, laws=2, noise=noise)
    return Domain("hand", params, (ZORP,), (Operation("splorf", 1), Operation("wuzz", 2)), LAWS, OBJECTS)


def game(**kw: object) -> LabGame:
    config = LabConfig(**{"budget": 6, "per_turn": 3, "max_turns": 8, "test_size": 6, "curve": False, **kw})  # type: ignore[arg-type]
    return LabGame(domain(), config)


def exp(op: str, *objects: str) -> Step:
    return Step("experiment", op=op, objects=objects)


def test_start_shows_objects_and_operations_not_laws() -> None:
    obs = game().start()
    assert obs.kind == "start" and obs.experiments_left == 6
    assert [o.name for o in obs.objects] == ["zorple-1", "zorple-2", "zorple-3"]
    assert obs.operations == (("splorf", 1), ("wuzz", 2))
    assert "zib * 2" not in obs.model_dump_json()


def test_experiments_run_in_order_and_report_changes() -> None:
    g = game()
    obs = g.step(
        Request((exp("splorf", "zorple-1"), exp("splorf", "zorple-2"), exp("wuzz", "zorple-1", "zorple-2")))
    )
    assert obs.kind == "results" and obs.experiments_left == 3 and obs.turns_left == 7
    first, second, third = obs.results
    assert [(c.object, c.prop, c.before, c.after) for c in first.changes] == [("zorple-1", "zib", 3.0, 6.0)]
    assert second.changes == ()  # not glowing: nothing changed
    # the target gains the actor's new zib (6), the state carries over between steps
    assert [(c.object, c.before, c.after) for c in third.changes] == [("zorple-2", 5.0, 11.0)]
    assert g.history[2]["before"] == [{"glowy": True, "zib": 6.0}, {"glowy": False, "zib": 5.0}]


@pytest.mark.parametrize(
    ("steps", "message"),
    [
        ((exp("frob", "zorple-1"),), "unknown operation"),
        ((exp("splorf", "zorple-9"),), "unknown object"),
        ((exp("splorf", "zorple-1", "zorple-2"),), "takes 1 object"),
        ((exp("wuzz", "zorple-1"),), "takes 2 objects"),
        ((exp("wuzz", "zorple-1", "zorple-1"),), "used twice"),
        ((exp("splorf", "zorple-1"),) * 4, "at most 3"),
        ((Step("create", type="zorple"),), "not allowed"),
        ((Step("reset", objects=("zorple-1", "zorple-2")),), "one object"),
        ((), "no steps"),
    ],
)
def test_invalid_requests_are_refused_whole_and_cost_the_turn(steps: tuple[Step, ...], message: str) -> None:
    g = game()
    # a valid step first: it must not run when a later one is bad
    obs = g.step(Request((exp("splorf", "zorple-1"), *steps) if steps else ()))
    assert obs.kind == "invalid" and message in (obs.message or "")
    assert g.turns == 1 and g.experiments == 0 and g.things["zorple-1"].values["zib"] == 3.0
    assert g.invalid == 1


def test_unreadable_reply_costs_the_turn_and_counts() -> None:
    g = game()
    obs = g.step(Malformed("no JSON"))
    assert obs.kind == "invalid" and obs.message == "no JSON" and g.format_errors == 1 and g.turns == 1
    obs = g.step(Malformed("cut off", truncated=True))  # costs the turn too, counted apart
    assert obs.kind == "invalid" and g.format_errors == 1 and g.truncated == 1 and g.turns == 2


def test_reset_and_create() -> None:
    g = game(allow_create=True)
    g.step(Request((exp("splorf", "zorple-1"),)))
    obs = g.step(Request((Step("reset", objects=("zorple-1",)), Step("create", type="zorple"))))
    assert obs.results[0].object is not None and obs.results[0].object.values["zib"] == 3.0
    created = obs.results[1].object
    assert created is not None and created.name == "zorple-4" and created.type == "zorple"
    assert g.experiments == 1 and g.resets == 1 and g.creates == 1
    obs = g.step(Request((Step("reset", objects=("zorple-4",)),)))
    assert obs.kind == "invalid" and "created object" in (obs.message or "")
    obs = g.step(Request((Step("create", type="blick"),)))
    assert obs.kind == "invalid" and "unknown type" in (obs.message or "")


def test_budget_ends_the_experiments_then_the_test() -> None:
    g = game()
    g.step(Request((exp("splorf", "zorple-1"),) * 3))
    obs = g.step(Request((exp("splorf", "zorple-3"),) * 3))
    assert obs.kind == "test" and len(obs.trials) == 6 and len(obs.results) == 3
    assert g.phase == "test"
    # a request during the test is no answer: one more try, then the game ends unanswered
    obs = g.step(Request((exp("splorf", "zorple-1"),)))
    assert obs.kind == "test_invalid" and obs.attempts_left == 1
    obs = g.step(Malformed("?"))
    assert obs.kind == "ended" and g.done
    out = g.outcome()
    assert (
        out.success is False and out.metrics["answered"] is False and out.metrics["prediction_accuracy"] == 0
    )


def test_too_many_experiments_for_the_budget_are_refused() -> None:
    g = game()
    g.step(Request((exp("splorf", "zorple-1"),) * 3))
    g.step(Request((exp("splorf", "zorple-1"),) * 2))
    obs = g.step(Request((exp("splorf", "zorple-1"),) * 2))
    assert obs.kind == "invalid" and "1 left" in (obs.message or "")


def test_turn_limit_begins_the_test() -> None:
    g = game(max_turns=2)
    g.step(Malformed("x"))
    obs = g.step(Malformed("y"))
    assert obs.kind == "test" and obs.message == "y"


def _truth_predictions(g: LabGame) -> tuple[dict[str, dict[str, object]], ...]:
    out = []
    for trial in g.test:
        after = trial.outcome(g.domain.laws)
        out.append(
            {
                a.name: {p: v for p, v in a.values.items() if v != b.values[p]}
                for a, b in zip(after, trial.things, strict=True)
            }
        )
    return tuple(out)


def test_scoring_right_wrong_and_null_predictions() -> None:
    g = game(test_size=20)
    g.step(Finish())
    assert g.finished_early and g.phase == "test"
    right = _truth_predictions(g)
    g.step(Answer(right, theory="", report="doubling"))  # type: ignore[arg-type]
    m = g.outcome().metrics
    assert m["prediction_accuracy"] == 1.0 and m["changed_accuracy"] == 1.0 and g.outcome().success
    assert m["theory"] is None and m["report"] == "doubling"
    moved = sum(1 for p in right if any(p.values()))
    assert m["null_accuracy"] == pytest.approx(1 - moved / len(right))
    assert 0 < moved < len(right)

    g2 = game(test_size=20)
    g2.step(Finish())
    g2.step(Answer(tuple({} for _ in g2.test)))
    m2 = g2.outcome().metrics
    assert m2["prediction_accuracy"] == pytest.approx(m["null_accuracy"]) and m2["changed_accuracy"] == 0.0


def test_answers_that_do_not_fit_the_test_get_another_try() -> None:
    g = game()
    g.step(Finish())
    obs = g.step(Answer(({},)))
    assert obs.kind == "test_invalid" and "1 predictions for 6" in (obs.message or "")
    name = g.test[0].things[0].name
    bad = ({name: {"glowy": 3.0}}, *({} for _ in g.test[1:]))
    obs = g.step(Answer(bad))
    assert obs.kind == "ended"  # two tries by default; the game ends unanswered
    assert g.outcome().metrics["answered"] is False


def test_numbers_within_tolerance() -> None:
    assert number_right(104.9, 100.0, 0.05) and not number_right(105.2, 100.0, 0.05)
    assert number_right(0.04, 0.0, 0.05) and not number_right(0.2, 0.0, 0.05)


def test_noise_blurs_reports_not_the_world() -> None:
    g = LabGame(domain(noise=0.5), LabConfig(budget=5, test_size=4, curve=False, seed="n"))
    shown = {o.name: o.values["zib"] for o in g.start().objects}
    assert shown != {"zorple-1": 3.0, "zorple-2": 5.0, "zorple-3": 1.0}
    assert all(abs(shown[n] - v) < 3 for n, v in (("zorple-1", 3.0), ("zorple-2", 5.0), ("zorple-3", 1.0)))
    g.step(Request((exp("splorf", "zorple-1"),)))
    assert g.things["zorple-1"].values["zib"] == 6.0  # the world is exact
    same = LabGame(domain(noise=0.5), LabConfig(budget=5, test_size=4, curve=False, seed="n"))
    assert {o.name: o.values["zib"] for o in same.start().objects} == shown  # deterministic


def test_a_generated_domain_plays() -> None:
    d = generate(PRESETS["hard"], 5)
    g = LabGame(d, LabConfig(budget=60, max_turns=70, curve=False))
    names = [name for name, _, _ in d.objects]
    op = next(o for o in d.operations if o.arity == 2)
    obs = g.step(Request((exp(op.name, names[0], names[-1]),)))
    assert obs.kind == "results"


def test_the_report_judge_is_asked_once_and_kept_apart() -> None:
    import asyncio

    asked: list[str] = []

    async def judge(report: str) -> dict[str, object]:
        asked.append(report)
        return {"verdict": True, "votes": [True, True, True]}

    g = LabGame(domain(), LabConfig(budget=2, test_size=3, curve=False), judge=judge)
    g.step(Finish())
    bad = Answer(({},), report="zib doubles")  # does not fit the test: judged, but not kept
    assert asyncio.run(g.settle(bad)) is not None
    g.step(bad)
    good = Answer(({}, {}, {}), report="zib doubles when glowy")
    record = asyncio.run(g.settle(good))
    g.step(good)
    assert asked == ["zib doubles", "zib doubles when glowy"]
    assert g.outcome().metrics["report_judge"] == record["report_judge"]  # type: ignore[index]
    # a stored game restored: what the judge said comes back without asking it
    again = LabGame(domain(), LabConfig(budget=2, test_size=3, curve=False), judge=judge)
    again.step(Finish())
    again.settled(good, record)  # type: ignore[arg-type]
    again.step(good)
    assert again.outcome().metrics["report_judge"] == record["report_judge"] and len(asked) == 2  # type: ignore[index]
    # no report, no question
    quiet = LabGame(domain(), LabConfig(budget=2, test_size=3, curve=False), judge=judge)
    quiet.step(Finish())
    assert asyncio.run(quiet.settle(Answer(({}, {}, {})))) is None
