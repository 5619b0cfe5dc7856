"""Alice in Wonderland (AIW): simple family-relation problems that expose reasoning breakdowns.

Pure task definitions: families (templates + solvers), prompt types, rendering, and the published records
this package reproduces. No model, player or store imports.
"""

from wason.tasks.aiw.families import FAMILIES, ORIGINAL_VARIATIONS, Family
from wason.tasks.aiw.items import PublishedItem, expected_answer, parse, published_items, render, solve
from wason.tasks.aiw.prompt_types import PROMPT_TYPES, PromptType

__all__ = [
    "FAMILIES",
    "ORIGINAL_VARIATIONS",
    "PROMPT_TYPES",
    "Family",
    "PromptType",
    "PublishedItem",
    "expected_answer",
    "parse",
    "published_items",
    "render",
    "solve",
]
