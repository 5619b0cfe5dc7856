"""AIW prompt types: the instruction texts wrapped around a problem, exactly as published.

A prompt is ``prefix + problem + suffix``; each suffix carries its own leading space so that PLAIN (no
instruction at all) is simply the empty suffix.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

_ANSWER_FORM = 'provide the final answer in following form: "### Answer: ".'
_THEN_FORM = 'Provide then the final answer in following form: "### Answer: ".'
_REFLECTION_SYSTEM = (
    "<|begin_of_text|><|start_header_id|>system<|end_header_id|> You are a world-class AI system, capable of "
    "complex reasoning and reflection. Reason through the query inside <thinking> tags, and then provide your "
    "final response inside <output> tags. If you detect that you made a mistake in your reasoning at any point, "
    "correct yourself inside <reflection> tags. <|eot_id|><|start_header_id|>user<|end_header_id|> "
)
_REFLECTION_END = " <|eot_id|><|start_header_id|>assistant<|end_header_id|>"


@dataclass(frozen=True)
class PromptType:
    """One way of asking: text before and after the problem statement.

    Attributes:
        name: stable identifier used in the published mapping.
        suffix: text appended after the problem, including its leading space ("" for none).
        prefix: text placed before the problem (only the chat-template reflection type uses one).
        answer_codes: maps a non-numeric solver answer to the code this prompt asks for (the attribute
            control asks for a digit: 1 for female, 0 for male).
        continuation: a prompt for base models, which continue the text (``--completions``): the reply is
            read from its first answer, up to the next ``### Problem`` it invents.
    """

    name: str
    suffix: str
    prefix: str = ""
    answer_codes: Mapping[str, str] = field(default_factory=dict, compare=False, hash=False)
    continuation: bool = False

    def wrap(self, problem: str) -> str:
        """Return the full prompt for ``problem``."""
        return f"{self.prefix}{problem}{self.suffix}"


_THINKING_V2_TEXT = (
    " Before providing answer to this problem, think carefully step by step and double check the path to the "
    f"correct solution for any mistakes. {_THEN_FORM}"
)

STANDARD = PromptType("STANDARD", f" Solve this problem and {_ANSWER_FORM}")
THINKING = PromptType(
    "THINKING",
    " Before providing answer to this problem, think carefully and double check the path to the correct "
    f"solution for any mistakes. {_THEN_FORM}",
)
THINKING_V2 = PromptType("THINKING_V2", _THINKING_V2_TEXT)
# One-off endings of THINKING v2, as published: record 763 leaves out the final period, records 786 and 791 write
# two periods after the closing quote.
THINKING_V2_NO_PERIOD = PromptType("THINKING_V2_NO_PERIOD", _THINKING_V2_TEXT.removesuffix("."))
THINKING_V2_TWO_PERIODS = PromptType("THINKING_V2_TWO_PERIODS", _THINKING_V2_TEXT + ".")
RESTRICTED = PromptType(
    "RESTRICTED",
    " To answer the question, DO NOT OUTPUT ANY TEXT EXCEPT following format that contains final answer: "
    '"### Answer: ".',
)
# The earliest records (ids 1-4, 15-20) use the restricted wording without quotes or final period.
RESTRICTED_V0 = PromptType(
    "RESTRICTED_V0",
    " To answer the question, DO NOT OUTPUT ANY TEXT EXCEPT following format that contains final answer: ### Answer:",
)
FORMATTING_ONLY = PromptType(
    "FORMATTING_ONLY", ' Provide the final answer in following form: "### Answer: ".'
)
FORMATTING_THEN = PromptType("FORMATTING_THEN", f" {_THEN_FORM}")
# Records 723 and 727 leave out "the" (as published).
FORMATTING_THEN_NO_THE = PromptType(
    "FORMATTING_THEN_NO_THE", ' Provide then final answer in following form: "### Answer: ".'
)
# Records 29-30 put the instruction after the question in another wording.
STANDARD_BY = PromptType(
    "STANDARD_BY", ' Solve this problem by providing final answer in following form: "### Answer: ".'
)
PLAIN = PromptType("PLAIN", "")
SCIENTIST_V1 = PromptType(
    "SCIENTIST_V1",
    " Before you try to solve the problem, describe the initial situation like a very intelligent, accurate and "
    "precise scientist who starts by listing all the entities in the initial situation and then writing down all "
    "the known or obvious, presumable attributes for each entity. Such as whether it is a person or an animal or "
    "an object or a location, abstract concept, and so on, and what other attributes are known about the "
    "respective entity. The problem itself is also an entity with attributes. Once you have written down all the "
    "entities with all the attributes, try to write down a few assumptions about the connections and finally "
    "solve the problem step by step.",
)
SCIENTIST_V2 = PromptType(
    "SCIENTIST_V2",
    " To solve the problem, approach it as a very intelligent, accurate and precise scientist who starts by "
    "listing all the entities in the initial situation and then writing down all the known or obvious, presumable "
    "attributes and relations for each entity. Once you have written down all the entities with all the "
    "attributes and relations, proceed figuring out all the necessary attributes and relations not clearly "
    "provided in the problem description by thinking step by step, double check your reasoning, and based on "
    f"gathered evidence, {_ANSWER_FORM.replace('answer in', 'answer to the problem in')}",
)
SCIENTIST_V3 = PromptType(
    "SCIENTIST_V3",
    " To solve the problem, approach it as a very intelligent, accurate and precise scientist capable of strong "
    "and sound reasoning. Provide the solution to the problem by thinking step by step, double checking your "
    "reasoning for any mistakes, and based on gathered evidence, "
    f"{_ANSWER_FORM.replace('answer in', 'answer to the problem in')}",
)
CONFIDENCE = PromptType(
    "CONFIDENCE",
    " Solve the problem by taking care not to make any mistakes. Express your level of confidence in the "
    "provided solution as precisely as possible.",
)
COUNT_STEPS = PromptType("COUNT_STEPS", " Count them step by step.")
COUNT_STEPS_FORMAT = PromptType("COUNT_STEPS_FORMAT", f" Count them step by step. {_THEN_FORM}")
# THINKING v2 inside a Llama-3 chat template whose system turn asks for <thinking>/<reflection> tags.
REFLECTION_THINKING_V2 = PromptType(
    "REFLECTION_THINKING_V2", _THINKING_V2_TEXT + _REFLECTION_END, prefix=_REFLECTION_SYSTEM
)
# Records 425-445 (every fourth): the same template with two spaces before the end of the user turn.
REFLECTION_THINKING_V2_SPACED = PromptType(
    "REFLECTION_THINKING_V2_SPACED", _THINKING_V2_TEXT + " " + _REFLECTION_END, prefix=_REFLECTION_SYSTEM
)
# The SQL prompt of record 86: model the problem as SQLite tables, then emulate the query and give
# its result. It asks for no "### Answer:" marker, and its parenthesis is never closed (as published).
SQL = PromptType(
    "SQL",
    '".\nGiven the table schema, query the table.\nEmulate the previous query execution only by looking on SQL and '
    "provide the result of execution. (Format every SQL query as ```sql {the query}```",
    prefix='Build SQLite queries for creation and population of the table that represents: "',
)
# The attribute-binding control asks for a digit code instead of the word.
THINKING_V2_SEX_CODE = PromptType(
    "THINKING_V2_SEX_CODE",
    _THINKING_V2_TEXT.removesuffix('"### Answer: ".')
    + '"### Answer: SEX_CODE_DIGIT ", where SEX_CODE_DIGIT is 1 if female, 0 if male.',
    answer_codes={"female": "1", "male": "0"},
)

# The paper's base-model prompt (Suppl. E; records 87-90): the problem after a heading, then the answer heading
# for the model to continue.
BASE = PromptType("BASE", "\n### Answer: ", prefix="### Problem: ", continuation=True)
# In-context learning (Suppl. I; records 72-73): four solved AIW problems, then the one to solve.
_ICL_EXAMPLES = (
    ("Alice has 4 brothers and she also has 1 sister.", 2),
    ("Alice has 4 sisters and she also has 1 brother.", 5),
    ("Alice has 3 brothers and she also has 6 sisters.", 7),
    ("Alice has 2 sisters and she also has 4 brothers.", 3),
)
_ICL_PREFIX = (
    "# Provide correct answer to the formulated problem. "
    + "".join(
        f"### Problem: {facts} How many sisters does Alice's brother have? ### Answer: {answer} "
        for facts, answer in _ICL_EXAMPLES
    )
    + "### Problem: "
)
ICL = PromptType("ICL", " ### Answer:", prefix=_ICL_PREFIX, continuation=True)
# Record 73 ends with the question itself, without the answer heading the examples have (as published).
ICL_NO_HEADING = PromptType("ICL_NO_HEADING", "", prefix=_ICL_PREFIX, continuation=True)

# Every prompt type above, in the order they are defined.
PROMPT_TYPES: Mapping[str, PromptType] = {
    p.name: p for p in list(globals().values()) if isinstance(p, PromptType)
}
