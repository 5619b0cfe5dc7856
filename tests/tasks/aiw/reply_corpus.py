"""A corpus of replies to AIW prompts, written to look like what chat and base models answer, each with what the
reader must read from it and the rule of :mod:`wason.tasks.aiw.answers` it exercises.

Each answer ending is written once and put after several reasoning texts (the problem restated with its own
numbers, a draft answer corrected later, a bare reply), so that every rule is met in more than one context.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Entry:
    reply: str
    expected: int | float | str  # a number, or a status: "ambiguous", "unparseable", "no_marker"
    rule: str
    first_answer: bool = False


# Reasoning that comes before the answer line; some restate the problem's numbers, one drafts an answer first.
PREAMBLES = (
    "",
    "Alice has 3 brothers and she also has 6 sisters. Each of her brothers has the same sisters as Alice, "
    "plus Alice herself.\n\n",
    "Let's think step by step.\n1. Alice is a girl, so she is one of the sisters.\n2. Her 6 sisters plus "
    "Alice make 7 girls.\n3. Each brother therefore has 7 sisters.\n\n",
    "**Reasoning:** The brothers share Alice's 4 sisters and Alice.\n\nAnswer: 4 (draft, checking again)\n"
    "Wait, that forgets Alice.\n\n",
)

# (answer line, expected, rule)
ENDINGS: tuple[tuple[str, int | float | str, str], ...] = (
    # the marker as a heading, bare value
    ("### Answer: 7", 7, "marker"),
    ("### Answer: 5", 5, "marker"),
    ("## Answer: 3", 3, "marker"),
    ("#### answer: 12", 12, "marker"),
    ("### **Answer:** 7", 7, "marker"),
    ("### Final Answer: 2", 2, "marker"),
    # the fallback marker without a heading
    ("**Answer:** 7", 7, "fallback_marker"),
    ("Final answer: 5", 5, "fallback_marker"),
    ("Answer : 4", 4, "fallback_marker"),
    # the value on the next line
    ("### Answer:\n\n7", 7, "next_line"),
    ("### Answer:\n**5**", 5, "next_line"),
    ("### Answer:\n\n$\\boxed{3}$", 3, "next_line"),
    # markup around the value
    ("### Answer: **7**", 7, "markup"),
    ("### Answer: $\\boxed{7}$", 7, "markup"),
    ("### Answer: \\(5\\)", 5, "markup"),
    ("### Answer: `6`", 6, "markup"),
    # an explanation after the value, cut at its cue word (word forms included)
    ("### Answer: 7, because her 6 sisters and Alice", 7, "explanation_cut"),
    ("### Answer: 7 sisters, which includes Alice and her 6 sisters", 7, "explanation_cut"),
    ("### Answer: 5 sisters, including Alice's 4 sisters", 5, "explanation_cut"),
    ("### Answer: 5 (counting the 4 sisters and Alice)", 5, "explanation_cut"),
    ("### Answer: 3 girls, counted as 2 sisters plus Alice", 3, "explanation_cut"),
    ("### Answer: 7 - this includes the 6 sisters", 7, "explanation_cut"),
    # a remark in parentheses after the value
    ("### Answer: 7 (6 sisters + Alice)", 7, "trailing_remark"),
    ("### Answer: 5 (Alice and her 4 sisters)", 5, "trailing_remark"),
    ("### Answer: 2 sisters (1 sister and Alice).", 2, "trailing_remark"),
    # the value right after the marker wins when prose with other numbers follows on the same line
    ("### Answer: 7  Alice has 3 sisters, so her brother has 6 more", 7, "leading_value"),
    ("### Answer: 5 Each of the 2 brothers has 4 sisters and Alice", 5, "leading_value"),
    ("### Answer: 6. Her 3 brothers each see 5 sisters and Alice", 6, "leading_value"),
    ("### Answer: 4 sisters. There are 3 brothers in total.", 4, "leading_value"),
    ("### Answer: 2 Alice's 1 sister plus Alice herself", 2, "leading_value"),
    # a worked sum: its result
    ("### Answer: 6 + 1 = 7", 7, "worked_sum"),
    ("### Answer: 4 + 1 = **5** sisters", 5, "worked_sum"),
    ("### Answer: 2 * (3 + 1) = 8", 8, "worked_sum"),
    ("### Answer: 7 - 2 = 5", 5, "worked_sum"),
    ("### Answer: M + 1 = 3 + 1 = 4", 4, "worked_sum"),
    # a worked sum in words: its result, not the restated first term (6 is the classic wrong answer M)
    ("### Answer: 6 sisters + Alice = 7", 7, "worked_sum_words"),
    ("### Answer: 3 + Alice = 4", 4, "worked_sum_words"),
    ("### Answer: 2 brothers + 1 (Alice) = 3 sisters", 3, "worked_sum_words"),
    ("### Answer: 4 sisters + Alice herself = 5 sisters", 5, "worked_sum_words"),
    ("### Answer: Alice + 6 sisters = 7", 7, "worked_sum_words"),
    ("### Answer: 6 (sisters) + 1 (Alice) = 7", 7, "worked_sum_words"),
    ("### Answer: her 4 sisters + 1 = 5", 5, "worked_sum_words"),
    ("### Answer: 5 sisters + 1 (Alice) = 6 sisters in total", 6, "worked_sum_words"),
    ("### Answer: 1 sister + Alice = 2", 2, "worked_sum_words"),
    ("### Answer: **6 sisters + Alice = 7 sisters**", 7, "worked_sum_words"),
    ("### Answer: M + 1 = 6 + 1 = 7", 7, "worked_sum_words"),
    ("### Answer: M + 1 = 5", 5, "worked_sum_words"),
    ("### Answer: sisters + 1 = 3 + 1 = 4", 4, "worked_sum_words"),
    ("### Answer: Alice's 2 sisters + Alice = 3", 3, "worked_sum_words"),
    ("### Answer: six sisters + Alice = seven", 7, "worked_sum_words"),
    ("### Answer: 6 sisters and Alice = 7", 7, "worked_sum_words"),
    ("### Answer: 3 sisters plus Alice = 4", 4, "worked_sum_words"),
    ("### Answer: 2 sisters with Alice = 3", 3, "worked_sum_words"),
    ("### Answer: $6 + 1 = 7$", 7, "worked_sum_words"),
    ("### Answer: \\boxed{4 + 1 = 5}", 5, "worked_sum_words"),
    # a worked sum joined to its result by an arrow or a word instead of "="
    ("### Answer: 6 sisters + Alice → 7", 7, "worked_sum_link"),
    ("### Answer: 4 + 1 -> 5 sisters", 5, "worked_sum_link"),
    ("### Answer: 2 + 1 => 3", 3, "worked_sum_link"),
    ("### Answer: 3 + 1 ⇒ 4 sisters", 4, "worked_sum_link"),
    ("### Answer: 6 sisters plus Alice, which makes 7", 7, "worked_sum_link"),
    ("### Answer: 4 sisters plus Alice makes 5", 5, "worked_sum_link"),
    ("### Answer: 3 sisters and Alice, so the answer is 4", 4, "worked_sum_link"),
    ("### Answer: 6 + 1 equals 7", 7, "worked_sum_link"),
    ("### Answer: Six plus one equals seven", 7, "worked_sum_link"),
    ("### Answer: 1 sister plus Alice gives 2 sisters", 2, "worked_sum_link"),
    ("### Answer: 5 + Alice, for a total of 6", 6, "worked_sum_link"),
    ("### Answer: 2 + 1, which is 3", 3, "worked_sum_link"),
    ("### Answer: 4 sisters + Alice, that's 5", 5, "worked_sum_link"),
    ("### Answer: 6 + 1 is equal to 7", 7, "worked_sum_link"),
    ("### Answer: 5 sisters + Alice, which gives a total of 6 sisters", 6, "worked_sum_link"),
    # multiplications and divisions worked out
    ("### Answer: 2 × 3 = 6", 6, "worked_product"),
    ("### Answer: 2 * 3 + 1 = 7", 7, "worked_product"),
    ("### Answer: 3 x 2 = 6", 6, "worked_product"),
    ("### Answer: 14/2 = 7", 7, "worked_product"),
    ("### Answer: 12 ÷ 3 = 4", 4, "worked_product"),
    ("### Answer: 2 times 3 plus 1 equals 7", 7, "worked_product"),
    ("### Answer: (6 + 1) * 1 = 7", 7, "worked_product"),
    ("### Answer: 10 / 2 = 5 sisters", 5, "worked_product"),
    # the sum's result counts, whatever follows it: a restatement, an explanation, other numbers
    ("### Answer: 6 + 1 = 7, so the answer is 7", 7, "worked_sum_then_prose"),
    ("### Answer: 6 sisters + Alice = 7 sisters for each of her 3 brothers", 7, "worked_sum_then_prose"),
    ("### Answer: 4 + 1 = 5. Alice has 4 sisters and 2 brothers.", 5, "worked_sum_then_prose"),
    ("### Answer: 3 + 1 = 4 (Alice's 3 sisters and Alice)", 4, "worked_sum_then_prose"),
    ("### Answer: 6 + 1 = 7 sisters; her 3 brothers share them", 7, "worked_sum_then_prose"),
    ("### Answer: 2 + 1 = 3 sisters, because Alice is 1 of them", 3, "worked_sum_then_prose"),
    ("### Answer: 5 + 1 = 6, which includes Alice and her 5 sisters", 6, "worked_sum_then_prose"),
    ("### Answer: 6 + 1 = 7 sisters, one of whom is Alice", 7, "worked_sum_then_prose"),
    ("### Answer: 6 sisters + Alice = 7 sisters, which is 1 more than Alice has", 7, "worked_sum_then_prose"),
    # the result first, then its working
    ("### Answer: 7 = 6 sisters + Alice", 7, "result_then_sum"),
    ("### Answer: 5, which is 4 sisters + Alice", 5, "result_then_sum"),
    ("### Answer: 3 sisters = 2 + 1", 3, "result_then_sum"),
    # an operation left unworked, or a sum that states no result: no single answer
    ("### Answer: 14/2", "ambiguous", "operation_without_result"),
    ("### Answer: 6/7 sisters", "ambiguous", "operation_without_result"),
    ("### Answer: 6 + 1", "ambiguous", "operation_without_result"),
    ("### Answer: 2 × 3", "ambiguous", "operation_without_result"),
    ("### Answer: 6 + 1 = 3 + 4", "ambiguous", "operation_without_result"),
    # words instead of digits
    ("### Answer: seven", 7, "number_words"),
    ("### Answer: Five sisters.", 5, "number_words"),
    ("### Answer: twenty-one", 21, "number_words"),
    ("### Answer: one hundred and five", 105, "number_words"),
    # signs, separators, decimals
    ("### Answer: 1,000", 1000, "number_forms"),
    ("### Answer: 7.0", 7, "number_forms"),
    ("### Answer: 2.5", 2.5, "number_forms"),
    ("### Answer: -3", -3, "number_forms"),
    ("### Answer: 12,345 people", 12345, "number_forms"),
    # the same number twice is one answer
    ("### Answer: 7, 7", 7, "repeated"),
    ("### Answer: 5 (5 sisters)", 5, "repeated"),
    ("### Answer: 3 or 3", 3, "repeated"),
    ("### Answer: **4** (4)", 4, "repeated"),
    ("### Answer: 6 / 6", 6, "repeated"),
    # a range of numbers: no single answer
    ("### Answer: 4-6 cousins", "ambiguous", "range"),
    ("### Answer: 4 to 6", "ambiguous", "range"),
    ("### Answer: between 5 and 7 sisters", "ambiguous", "range"),
    ("### Answer: 3–5", "ambiguous", "range"),
    ("### Answer: 2 - 4 sisters", "ambiguous", "range"),
    # a list of different numbers: no single answer
    ("### Answer: 3, 4 or 5", "ambiguous", "list"),
    ("### Answer: 6 or 7", "ambiguous", "list"),
    ("### Answer: 3,4", "ambiguous", "list"),
    ("### Answer: 5 and 6", "ambiguous", "list"),
    ("### Answer: 7, 8, 9", "ambiguous", "list"),
    # nothing readable after the marker
    ("### Answer: I cannot determine this.", "unparseable", "unparseable"),
    ("### Answer: ???", "unparseable", "unparseable"),
    ("### Answer: it depends on how you count", "unparseable", "unparseable"),
    ("### Answer: N/A", "unparseable", "unparseable"),
    ("### Answer: **unknown**", "unparseable", "unparseable"),
)

# Replies without any marker: never read as a number, whatever numbers they hold.
NO_MARKER = (
    "Alice's brother has 7 sisters.",
    "The answer is 5.",
    "So each brother has six sisters in total.",
    "7",
    "I think it's 3, since Alice counts too.",
    "Each of Alice's 2 brothers has 4 sisters.",
    "Sisters: 5",
    "The final result: 8 sisters",
)

# A base model continues past its answer and invents more problems; its first answer counts.
BASE_CONTINUATIONS: tuple[tuple[str, int | str], ...] = (
    (
        "7\n\n### Problem: Bob has 2 brothers and 5 sisters. How many sisters does Bob's brother have?\n"
        "### Answer: 5",
        7,
    ),
    (
        " 5\n### Problem: Carol has 3 sisters.\n### Answer: 4\n### Problem: Dan has 1 brother.\n### Answer: 0",
        5,
    ),
    (" 3 sisters.\n\n### Problem: How many brothers does Alice's sister have?\n### Answer: 2", 3),
    (" 6\n\n\n### Problem:\nAlice has 9 sisters.\n### Answer: 10", 6),
    (" **4**\n### Problem: Eve has 4 brothers.\n### Answer: 4", 4),
    (" four\n\n### Problem: Frank has 2 sisters.\n### Answer: 2", 4),
    (" 4-5\n### Problem: Gina has 1 sister.\n### Answer: 2", "ambiguous"),
    (" I am not sure.\n### Problem: Hal has 3 sisters.\n### Answer: 3", "unparseable"),
)

# The base-model prompt ends with its marker, so a continuation starts right after it.
BASE_PROMPT_TAIL = (
    "### Problem: Alice has 3 brothers and she also has 6 sisters. How many sisters does Alice's brother have?\n"
    "### Answer:"
)


def corpus() -> list[Entry]:
    entries = [Entry(pre + ending, expected, rule) for ending, expected, rule in ENDINGS for pre in PREAMBLES]
    entries += [Entry(pre + text, "no_marker", "no_marker") for text in NO_MARKER for pre in PREAMBLES[:3]]
    entries += [
        Entry(BASE_PROMPT_TAIL + text, expected, "base_continuation", first_answer=True)
        for text, expected in BASE_CONTINUATIONS
    ]
    # a reply that corrects itself: the last marker counts (chat replies)
    entries += [
        Entry(f"### Answer: {a}\nWait, I forgot Alice.\n### Answer: {b}", b, "last_marker")
        for a, b in ((6, 7), (4, 5), (1, 2), (5, 6), (3, 4))
    ]
    return entries
