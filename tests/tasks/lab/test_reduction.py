"""The lab's hypothesis-space reduction: the share of the learner's wrong hypotheses the experiments ruled out,
after each experiment; never falling, flat for experiments that tell nothing new, 1 once the solver has identified
the domain, and paid by the text environment as the "information" reward."""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Sequence

import pytest

from tests.tasks.lab.test_solver import play
from wason.env import make
from wason.tasks.lab.drawing import generate
from wason.tasks.lab.game import Answer, Finish, LabConfig, LabGame, Request, Step, random_history
from wason.tasks.lab.learner import Learner, curves, public, reduction_curve
from wason.tasks.lab.protocol import write_action
from wason.tasks.lab.world import BUDGETS, PRESETS, Domain


def _rising(curve: Sequence[float]) -> bool:
    return all(0.0 <= c <= 1.0 for c in curve) and all(b >= a for a, b in itertools.pairwise(curve))


@pytest.mark.parametrize(("difficulty", "seed"), [("easy", 0), ("easy", 1), ("medium", 0), ("medium", 3)])
def test_the_solver_rules_out_every_wrong_hypothesis(difficulty: str, seed: int) -> None:
    domain = generate(PRESETS[difficulty], seed)
    game, _ = play(domain)  # without the accuracy curve: the reduction has a pass of its own
    curve = game.outcome().metrics["reduction"]
    assert len(curve) == game.experiments >= 1
    assert _rising(curve) and curve[-1] == 1.0
    # with the accuracy curve on, the same values from the pass the two share
    assert curves(domain, game.history, game.test, 0.05)[1] == curve
    # without noise a hypothesis is ruled out exactly when it no longer survives: the share is of the
    # hypotheses less one a slot (the true one)
    learner = Learner(public(domain))
    total = sum(len(slot.laws) for slot in learner.slots.values())
    assert learner.reduction() == 0.0
    for record, share in zip(game.history, curve, strict=True):
        learner.observe(record)
        assert share == pytest.approx((total - learner.hypotheses()) / (total - len(learner.slots)))
        assert (share == 1.0) == learner.identified()


def _repeat(domain: Domain, turns: int) -> list[float]:
    """The first one-object operation on the first object, then a reset, every turn: one experiment's worth."""
    game = LabGame(domain, LabConfig(budget=20, curve=False))
    game.start()
    op = next(o.name for o in domain.operations if o.arity == 1)
    name = next(iter(game.things))
    for _ in range(turns):
        game.step(Request((Step("experiment", op=op, objects=(name,)), Step("reset", objects=(name,)))))
    game.step(Finish())
    game.step(Answer(({},) * len(game.test)))
    curve: list[float] = game.outcome().metrics["reduction"]
    return curve


@pytest.mark.parametrize("difficulty", ["easy", "medium"])
def test_an_experiment_repeated_from_the_same_state_rules_out_nothing_new(difficulty: str) -> None:
    curve = _repeat(generate(PRESETS[difficulty], 2), 6)
    assert len(curve) == 6 and 0 < curve[0] < 1
    assert curve == [curve[0]] * 6


def test_no_experiment_no_curve() -> None:
    domain = generate(PRESETS["easy"], 0)
    game = LabGame(domain, LabConfig())
    game.start()
    game.step(Finish())
    game.step(Answer(({},) * len(game.test)))
    assert game.outcome().metrics["reduction"] == [] == reduction_curve(domain, [])


def test_with_noise_the_curve_still_never_falls() -> None:
    params = PRESETS["medium"].model_copy(update={"noise": 0.5})
    domain = generate(params, 1)
    history = random_history(domain, BUDGETS["medium"], "noisy")
    curve = reduction_curve(domain, history)
    assert len(curve) == len(history) and _rising(curve) and curve[-1] > 0.5
    assert reduction_curve(domain, history) == curve  # deterministic


def test_the_learner_never_reads_the_hidden_laws() -> None:
    domain = generate(PRESETS["medium"], 5)
    history = random_history(domain, 30, "x")
    assert reduction_curve(domain, history) == reduction_curve(public(domain), history)


def test_the_text_environment_pays_the_win_and_the_last_share() -> None:
    env = make("lab", shaping={"information": 1.0})
    try:
        env.reset(seed=0)
        assert env.env.record is not None
        player = env.family.solver(env.env.config, env.env.record.item)
        assert player is not None
        total, terminated, info = 0.0, False, {}
        while not terminated:
            move = asyncio.run(player.act(env.env.observation))
            _, reward, terminated, truncated, info = env.step(write_action(move.action))
            assert not truncated
            total += reward
        curve = info["metrics"]["reduction"]
        assert info["success"] is True and curve[-1] == 1.0
        assert total == pytest.approx(1.0 + curve[-1])
        assert info["reward_components"] == pytest.approx({"win": 1.0, "information": curve[-1]})
        # leaving at once: nothing ruled out, nothing paid
        env.reset(seed=0)
        env.step(write_action(Finish()))
        *_, info = env.step(write_action(Answer(({},) * info["metrics"]["test_size"])))
        assert info["metrics"]["reduction"] == [] and info["episode_reward"] == 0.0
        assert info["reward_components"] == {"win": 0.0}  # a component paid nothing is left out
    finally:
        env.close()
