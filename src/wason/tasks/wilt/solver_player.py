"""A WILT player that is the ideal scientist of :mod:`wason.tasks.wilt.solver`, playing structured actions."""

from __future__ import annotations

from typing import Any

from wason.core.game import Move
from wason.tasks.wilt.game import FinalGuess, ProposeTest, WiltAction, WiltObservation
from wason.tasks.wilt.hypotheses import HypothesisSpace, build_space, candidate_tests
from wason.tasks.wilt.solver import CONFIDENCE, IdealSolver


class WiltSolverPlayer:
    """Plays one WILT episode with :class:`~wason.tasks.wilt.solver.IdealSolver` (no text, no model).

    It proposes the most informative candidate test, reads each result from the observation, and guesses when
    the solver is confident, when nothing left to test would tell the survivors apart, or when the game asks
    for the guess. Use one player per episode: it keeps the episode's observations.

    Args:
        seed: seed of the hypothesis space and candidate tests (both cached per process).
        max_tests: tests the solver allows itself (the game's own limit also forces the guess).
        confidence: posterior share of the best hypothesis at which it stops testing.
        space: a prebuilt space to use instead of ``build_space(seed)``.
    """

    def __init__(
        self,
        *,
        seed: int = 0,
        max_tests: int = 30,
        confidence: float = CONFIDENCE,
        space: HypothesisSpace | None = None,
    ) -> None:
        points, labels = candidate_tests(seed)
        self.solver = IdealSolver(
            space if space is not None else build_space(seed),
            points,
            max_tests=max_tests,
            confidence=confidence,
        )
        self._labels = labels
        self._pending: int | None = None

    async def act(self, observation: WiltObservation) -> Move[WiltAction]:
        """Choose the next move after ``observation``.

        Args:
            observation: the game's last observation (``start``, ``result``, ``invalid_test``...).

        Returns:
            A :class:`ProposeTest` with the candidate's typed values, or the :class:`FinalGuess`.
        """
        if observation.kind == "result" and observation.values is not None and observation.result is not None:
            self.solver.observe(observation.values, observation.result)
        elif observation.kind == "invalid_test" and self._pending is not None:
            self.solver.exclude(self._pending)  # cannot happen with valid candidates; never retry it anyway
        self._pending = None
        top, share = self.solver.posterior_top()
        meta: dict[str, Any] = {
            "posterior_top": top.lambda_text,
            "posterior_share": share,
            "remaining_hypotheses": self.solver.remaining_hypotheses,
            "consistent": self.solver.consistent,
        }
        if observation.must_guess or observation.remaining <= 0 or self.solver.should_guess():
            return Move(action=FinalGuess(self.solver.guess()), meta=meta)
        index = self.solver.next_test()
        if index is None:  # should_guess() said there was an informative test; kept for safety
            return Move(action=FinalGuess(self.solver.guess()), meta=meta)
        self._pending = index
        meta["information_bits"] = float(self.solver.information()[index])
        return Move(action=ProposeTest(self._labels[index]), meta=meta)
