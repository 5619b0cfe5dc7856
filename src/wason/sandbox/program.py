"""A compiled guess: immutable, cheap to evaluate on many points at once."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from wason.sandbox.evaluate import Inputs, evaluate_node, evaluate_nodes
from wason.sandbox.ir import Node


@dataclass(frozen=True, eq=False)
class Program:
    """A rule or guess compiled by :func:`wason.sandbox.compile_rule`.

    Attributes:
        source: the text as given.
        constants: every numeric literal, in order of first appearance, with a leading unary minus folded in
            (``x > -5`` gives ``(-5.0,)``), plus ``math.pi``/``math.e``/``math.tau`` when used.
        node_count: size of the compiled expression once comprehensions are unrolled.
    """

    source: str
    constants: tuple[float, ...]
    node_count: int
    _root: Node = field(repr=False)
    _operators: int = field(repr=False)

    @property
    def root(self) -> Node:
        """The compiled IR (for the exact evaluator, :mod:`wason.sandbox.exact`)."""
        return self._root

    def __repr__(self) -> str:
        return f"Program({self.source!r})"

    def evaluate(self, xyz: npt.ArrayLike) -> npt.NDArray[np.bool_]:
        """Truth value at each point; points where Python would raise are False.

        Args:
            xyz: shape (N, 3) values of (x, y, z). A value with an integral value is treated as a Python int.

        Returns:
            Boolean array of shape (N,).
        """
        return self.evaluate_with_errors(xyz)[0]

    def evaluate_with_errors(self, xyz: npt.ArrayLike) -> tuple[npt.NDArray[np.bool_], npt.NDArray[np.bool_]]:
        """Truth value and error mask at each point.

        Args:
            xyz: shape (N, 3) values of (x, y, z).

        Returns:
            ``(truth, error)``, both boolean arrays of shape (N,); ``truth`` is False wherever ``error`` is True.
        """
        return self.evaluate_inputs(Inputs.from_points(xyz))

    def evaluate_inputs(self, inputs: Inputs) -> tuple[npt.NDArray[np.bool_], npt.NDArray[np.bool_]]:
        """Like :meth:`evaluate_with_errors` on inputs already split into columns (reused across programs)."""
        return evaluate_node(self._root, inputs)

    def evaluate_together(
        self, others: list[Program], inputs: Inputs
    ) -> list[tuple[npt.NDArray[np.bool_], npt.NDArray[np.bool_]]]:
        """Evaluate this program and ``others`` on the same inputs, computing shared sub-expressions once.

        Returns:
            One ``(truth, error)`` pair per program, this one first.
        """
        return evaluate_nodes([self._root, *(o._root for o in others)], inputs)

    def __call__(self, x: float, y: float, z: float) -> bool:
        """Truth value at one point, with the same semantics as :meth:`evaluate`."""
        truth, _ = self.evaluate_with_errors(np.array([[x, y, z]], dtype=np.float64))
        return bool(truth[0])

    def operator_count(self) -> int:
        """Number of operators, counted on the syntax tree (paper A.3).

        Each binary operator, unary operator (except the sign of a numeric literal), comparison operator,
        conditional expression and call counts one; ``a and b and c`` counts two.
        """
        return self._operators
