"""WILT: discover a hidden rule over three numbers with up to 30 tests and one final lambda guess.

Published protocol and splits (Banatt et al., "WILT: A Multi-turn, Memorization-Robust Inductive Logic Benchmark
for LLMs"), with the reference harness's defects fixed; see ``docs/wilt.md``. The family (``FAMILY``) is in
``family.py``.
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
