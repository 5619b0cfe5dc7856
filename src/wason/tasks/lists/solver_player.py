"""A list-rules player: the reference scientist of :mod:`wason.tasks.lists.solver`, playing structured actions."""

from __future__ import annotations

from typing import Any

from wason.core.game import Move


class ListSolverPlayer:
    """Plays one list-rules episode with :class:`~wason.tasks.lists.solver.ListSolver` (no text, no model).

    Each round it proposes the solver's five most informative lists and reads their labels; it states the
    solver's hypothesis (words and predicate) when the solver is ready or the rounds are used up, and answers the
    quiz with that hypothesis. Use one player per episode (``tests_per_round`` and ``max_rounds`` are the game's).
    """

    def __init__(self, *, seed: int = 0, tests_per_round: int = 5, max_rounds: int = 19) -> None:
        self.seed = seed
        self.tests_per_round = tests_per_round
        self.max_rounds = max_rounds
        self.solver: Any = None

    async def act(self, observation: Any) -> Move[Any]:
        """Choose the next move after ``observation`` (a :class:`~wason.tasks.lists.game.ListsObservation`)."""
        from wason.tasks.lists.game import FinalHypothesis, PredicateAnswer, QuizAnswer, TestRound
        from wason.tasks.lists.solver import ListSolver
        from wason.tasks.lists.solver_space import solver_space

        if observation.kind == "start":
            self.solver = ListSolver(
                solver_space(),
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
