"""The reference solver: version-space elimination over the sequence grammar.

Its hypotheses are every rule "one operation for even indices, one for odd" with operations wider than any
level's grammar: ``add c`` for c in -20..20, ``mul c`` for c in -10..10 and ``floordiv c`` for c in -10..10 (not 0).
A one-operation rule is the pair of equal operations, so the solver does not assume the level's shape. Every
shown transition ``term k -> term k + 1`` removes the operations of index ``k``'s parity that disagree with it.
The solver guesses once every remaining pair generates the same sequence from every start of the level (one rule
by extension, which is exactly what the code judge checks); otherwise it asks for more. On the last turn it
guesses its simplest remaining rule.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from wason.core.game import Move
from wason.tasks.math_rules.rules import LENGTH, MathRule, Op, sequence, starts

_MAX_PAIRS_COMPARED = 4096


def solver_ops() -> list[Op]:
    """The solver's operations, simplest first (add before mul before floordiv, small constants first)."""
    ops = [Op("add", c) for c in sorted(range(-20, 21), key=abs)]
    ops += [Op("mul", c) for c in sorted(range(-10, 11), key=abs)]
    ops += [Op("floordiv", c) for c in sorted(range(-10, 11), key=abs) if c != 0]
    return ops


class VersionSpace:
    """The operations still consistent with the sequences seen, per parity of the index."""

    def __init__(self, level: str) -> None:
        self.level = level
        self.even = solver_ops()
        self.odd = solver_ops()

    def observe(self, sequences: Iterable[Sequence[int]]) -> None:
        for terms in sequences:
            for k in range(len(terms) - 1):
                v, w = int(terms[k]), int(terms[k + 1])
                if k % 2 == 0:
                    self.even = [op for op in self.even if op.apply(v) == w]
                else:
                    self.odd = [op for op in self.odd if op.apply(v) == w]

    @property
    def size(self) -> int:
        return len(self.even) * len(self.odd)

    def best(self) -> MathRule | None:
        """The simplest remaining rule: one operation if one fits both parities, else the first pair."""
        if not self.even or not self.odd:
            return None
        for op in self.even:
            if op in self.odd:
                return MathRule(op, op)
        return MathRule(self.even[0], self.odd[0])

    def resolved(self) -> bool:
        """True when every remaining rule generates the same sequences from the level's starts."""
        if not self.size or self.size > _MAX_PAIRS_COMPARED:
            return False
        signatures = {
            tuple(tuple(sequence(MathRule(e, o), s, LENGTH)) for s in starts(self.level))
            for e in self.even
            for o in self.odd
        }
        return len(signatures) == 1


class MathSolverPlayer:
    """Plays one episode with a :class:`VersionSpace` (no text, no model). Use one player per episode."""

    def __init__(self, level: str, max_turns: int) -> None:
        self.space = VersionSpace(level)
        self.max_turns = max_turns

    async def act(self, observation: Any) -> Move[Any]:
        from wason.tasks.math_rules.game import ExpressionAnswer, Guess, More, QuizAnswer

        self.space.observe(observation.sequences)
        rule = self.space.best()
        meta = {"remaining": self.space.size}
        if observation.kind == "ask_expression":
            return Move(action=ExpressionAnswer(rule.expression() if rule else "lambda v, i: v"), meta=meta)
        if observation.kind == "ask_quiz":
            predicted = tuple(
                None if rule is None else _continuation(rule, shown) for shown in observation.quiz
            )
            return Move(action=QuizAnswer(predicted), meta=meta)
        if rule is not None and (self.space.resolved() or observation.turns_left <= 1):
            # the reply it would write: the rule in words, then its expression (read as the guess's)
            return Move(action=Guess(f"{rule.text()} {rule.expression()}", rule.expression()), meta=meta)
        if rule is None and observation.turns_left <= 1:
            return Move(action=Guess("no rule of the grammar fits", None), meta=meta)
        return Move(action=More(), meta=meta)


def _continuation(rule: MathRule, shown: Sequence[int], n: int = 5) -> tuple[int, ...]:
    """The ``n`` terms ``rule`` gives after the ``shown`` ones."""
    terms = list(shown)
    while len(terms) < len(shown) + n:
        terms.append(rule.next(terms[-1], len(terms) - 1))
    return tuple(terms[len(shown) :])
