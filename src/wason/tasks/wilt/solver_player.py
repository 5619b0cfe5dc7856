"""A WILT player that is the scientist of :mod:`wason.tasks.wilt.scientist`, playing structured actions."""

from __future__ import annotations

from typing import Any

from wason.core.game import EPISODE_METRICS, Move
from wason.tasks.wilt.elimination import CONFIDENCE
from wason.tasks.wilt.game import FinalGuess, ProposeTest, WiltAction, WiltObservation
from wason.tasks.wilt.listed_space import HypothesisSpace, build_space, candidate_tests
from wason.tasks.wilt.scientist import Scientist, label
from wason.tasks.wilt.single import MAX_TESTS, SingleSolver


class WiltSolverPlayer:
    """Plays one WILT episode with :class:`~wason.tasks.wilt.scientist.Scientist` (no text, no model).

    It proposes the scientist's next test, reads each result from the observation, and guesses when the
    scientist has nothing left to test or the game asks for the guess. By default every test is spent: once the
    ideal solver would guess, the rest go to trying to break its hypothesis. ``falsify=False`` guesses as soon
    as the ideal solver is confident (its posterior ``confidence``), for scores that reward fewer tests. Use one
    player per episode. ``seed`` chooses the hypothesis space (unless ``space`` is given) and the candidate
    tests, both cached per process; the game's own limit also forces the guess, whatever ``max_tests``.
    """

    def __init__(
        self,
        *,
        seed: int = 0,
        max_tests: int = 30,
        confidence: float = CONFIDENCE,
        falsify: bool = True,
        space: HypothesisSpace | None = None,
    ) -> None:
        points, _ = candidate_tests(seed)
        self.solver = Scientist(
            space if space is not None else build_space(seed),
            points,
            max_tests=max_tests,
            confidence=confidence,
            falsify=falsify,
        )
        self._pending: tuple[float, float, float] | None = None

    async def act(self, observation: WiltObservation) -> Move[WiltAction]:
        """The next move after the game's last observation: a :class:`ProposeTest` with typed values, or the
        :class:`FinalGuess`."""
        if observation.kind == "result" and observation.values is not None and observation.result is not None:
            self.solver.observe(observation.values, observation.result)
        elif observation.kind == "invalid_test" and self._pending is not None:
            self.solver.exclude(self._pending)  # cannot happen with typeable tests; never retry it anyway
        self._pending = None
        top, share = self.solver.ideal.posterior_top()
        meta: dict[str, Any] = {
            "posterior_top": top.lambda_text,
            "posterior_share": share,
            "remaining_hypotheses": self.solver.ideal.remaining_hypotheses,
            "consistent": self.solver.ideal.consistent,
            "falsifying": self.solver.falsifying,
        }
        test = None if observation.must_guess or observation.remaining <= 0 else self.solver.next_test()
        if test is None:
            guess = self.solver.guess()
            meta["certainty"] = self.solver.certainty()
            meta[EPISODE_METRICS] = {"certainty": round(meta["certainty"], 4)}  # stored with the episode
            return Move(action=FinalGuess(guess), meta=meta)
        self._pending = test
        meta["information_bits"] = self.solver.last_information
        return Move(action=ProposeTest(tuple(label(v) for v in test)), meta=meta)


class SingleSolverPlayer:
    """Plays the one-variable game with :class:`SingleSolver` (no text, no model)."""

    def __init__(self, max_tests: int = MAX_TESTS) -> None:
        self.solver = SingleSolver(max_tests)

    async def act(self, observation: Any) -> Move[Any]:
        if observation.kind == "result" and observation.values is not None and observation.result is not None:
            self.solver.observe(int(observation.values[0]), bool(observation.result))
        test = None if observation.must_guess or observation.remaining <= 0 else self.solver.next_test()
        action = FinalGuess(self.solver.guess()) if test is None else ProposeTest((str(test),))
        return Move(action, meta={"alive": int(self.solver.alive.sum())})
