"""WILT: discover a hidden rule over three numbers with up to 30 tests and one final lambda guess.

Published protocol and splits (Banatt et al., "WILT: A Multi-turn, Memorization-Robust Inductive Logic Benchmark
for LLMs"), with the reference harness's defects fixed; see ``docs/wilt.md``. The family (``FAMILY``) is in
``family.py``.

The game: ``game`` (the game over structured actions), ``protocol`` (the published prompt, the reply parser, the
feedback), ``values`` (what a test value may be), ``grammar`` (the reply format for ``--constrain``), ``rules``
(the published splits), ``generate`` (a procedurally generated split), ``single`` (the one-variable game, with its
own small solver).

The judge: ``judge`` (a guess against the rule, and the verdict's reasons) decides on ``probes`` (the seeded probe
set) and ``decide`` (z3 over every typeable triple).

The solver (``--player solver``; ``docs/solver.md``), from the player down:

* ``solver_player``: the player; it turns the scientist's choices into test and guess actions.
* ``scientist``: the strategy. It runs the elimination until it would guess, then spends the tests left on
  trying to break its hypothesis: it gathers alternatives from both spaces, designs tests where they disagree,
  hunts for a rare answer, and tells spellings of its guess apart.
* ``elimination``: the ideal solver (``IdealSolver``): Bayesian elimination over the listed space, each test the
  candidate whose answer is most uncertain (the entropy and weighting helpers the scientist shares).
* ``listed_space``: the listed hypothesis space: every published rule and its neighbours from a small grammar,
  with a simplicity prior, and the candidate tests; built once per process and versioned. It also holds what
  both spaces evaluate with: the atom comparisons (``Atom``, ``_AtomPlan``) and the packed truth tables
  (``packed_blocks``). ``reduction`` and ``generate`` use it too.
* ``built_space``: the built hypothesis space: formulas composed from typed terms and atoms, never enumerated,
  searched on the observations (for the rules the listed space does not hold), and the atoms fitted to them.
* ``hunt``: tests that hunt for the rarer answer of a rarely true rule (integer triples chosen over the simple
  equalities), while that answer has been given at most a few times.
* ``spelling``: the spellings of a guess's equalities and thresholds that Python's floats tell apart, and the
  decimal points that separate them.

The reports: ``scoring`` (the paper's Table 1 columns), ``report``, ``reduction`` (the hypothesis-space
reduction curve), ``complexity`` (how complex the guesses are), ``swap`` (the test-swap matrix), ``plots``;
``audit`` (the reward audit's players).
"""

from wason.tasks.wilt.family import FAMILY, WiltRunConfig
from wason.tasks.wilt.game import (
    FinalGuess,
    ProposeTest,
    WiltAction,
    WiltConfig,
    WiltGame,
    WiltObservation,
)
from wason.tasks.wilt.protocol import WiltProtocol, load_instruction, parse_reply, render_feedback
from wason.tasks.wilt.rules import SPLITS, WiltRule, get_rule, load_split
from wason.tasks.wilt.scoring import WiltSummary, summarize

__all__ = [
    "FAMILY",
    "SPLITS",
    "FinalGuess",
    "ProposeTest",
    "WiltAction",
    "WiltConfig",
    "WiltGame",
    "WiltObservation",
    "WiltProtocol",
    "WiltRule",
    "WiltRunConfig",
    "WiltSummary",
    "get_rule",
    "load_instruction",
    "load_split",
    "parse_reply",
    "render_feedback",
    "summarize",
]
