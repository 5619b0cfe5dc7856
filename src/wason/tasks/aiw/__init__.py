"""Alice in Wonderland (AIW): simple family-relation problems that expose reasoning breakdowns.

Pure task definitions: families (templates + solvers), prompt types, rendering, the published records this
package reproduces, fresh variations and answer parsing. No model, player or store imports.
"""

from wason.tasks.aiw.answers import ParsedAnswer, answer_kind, answers_match, parse_answer, parse_symbolic
from wason.tasks.aiw.families import FAMILIES, ORIGINAL_VARIATIONS, Family
from wason.tasks.aiw.items import PublishedItem, expected_answer, parse, published_items, render, solve
from wason.tasks.aiw.prompt_types import PROMPT_TYPES, PromptType
from wason.tasks.aiw.variations import Variation, generate_variations

__all__ = [
    "FAMILIES",
    "ORIGINAL_VARIATIONS",
    "PROMPT_TYPES",
    "Family",
    "ParsedAnswer",
    "PromptType",
    "PublishedItem",
    "Variation",
    "answer_kind",
    "answers_match",
    "expected_answer",
    "generate_variations",
    "parse",
    "parse_answer",
    "parse_symbolic",
    "published_items",
    "render",
    "solve",
]
