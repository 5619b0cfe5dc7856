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


class ListSolverPlayer:
    """Plays one list-rules episode with :class:`~wason.tasks.lists.solver.ListSolver` (no text, no model).

    Each round it proposes the solver's five most informative lists and reads their labels; it states the
    solver's hypothesis (words and predicate) when the solver is ready or the rounds are used up, and answers the
    quiz with that hypothesis. Use one player per episode.

    Args:
        seed: the solver's seed.
        tests_per_round: lists per round (the game's setting).
        max_rounds: rounds the game allows.
    """

    def __init__(self, *, seed: int = 0, tests_per_round: int = 5, max_rounds: int = 19) -> None:
        self.seed = seed
        self.tests_per_round = tests_per_round
        self.max_rounds = max_rounds
        self.solver: Any = None

    async def act(self, observation: Any) -> Move[Any]:
        """Choose the next move after ``observation`` (a :class:`~wason.tasks.lists.game.ListsObservation`)."""
        from wason.tasks.lists.game import FinalHypothesis, PredicateAnswer, QuizAnswer, TestRound
        from wason.tasks.lists.hypotheses import build_space
        from wason.tasks.lists.solver import ListSolver

        if observation.kind == "start":
            self.solver = ListSolver(
                build_space(),
                observation.examples,
                seed=self.seed,
                tests_per_round=self.tests_per_round,
                max_rounds=self.max_rounds,
            )
        solver = self.solver
        if observation.kind == "labels":
            solver.observe(observation.cases, observation.labels)
        if observation.kind == "ask_predicate":
            return Move(action=PredicateAnswer(solver.hypothesis().source))
        if observation.kind == "ask_quiz":
            return Move(action=QuizAnswer(tuple(solver.predict(observation.quiz))))
        stated = solver.hypothesis()
        meta = {"hypothesis": stated.text, "key": stated.key, "consistent": stated.consistent}
        if solver.ready or observation.must_finalize or observation.rounds_left <= 0:
            return Move(action=FinalHypothesis(stated.text), meta=meta)
        return Move(action=TestRound(tuple(solver.propose()), leading_hypothesis=stated.text), meta=meta)
