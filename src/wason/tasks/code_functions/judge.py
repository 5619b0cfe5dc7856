"""Judging a guessed predicate by code on held-out words, and reading the published LLM judge's reply.

A guess's predicate is compiled in the word language and evaluated on every word of the list. Its **accuracy**
is the fraction of the held-out words (the words the player has not been shown) it agrees with the hidden rule
on. It is **equivalent** when it agrees on every held-out word and on every example shown too (so that, once the
examples have used up one side, ``lambda w: False`` cannot pass by agreeing with the negatives left). A word on
which the predicate errs (``w[9]`` on a short word) counts as False, as the language defines.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import cache
from typing import Any

import numpy as np
import numpy.typing as npt
from pydantic import BaseModel, ConfigDict

from wason.sandbox import GuessRejected, compile_word_rule
from wason.tasks.code_functions.grammar import Rule, extension
from wason.tasks.code_functions.vocabulary import vocabulary

MAX_COUNTEREXAMPLES = 5
JUDGE_STEPS = 10_000_000
"""Steps one judgement may spend over the whole word list (a few seconds); a hostile predicate that needs more
is judged False on the words left (ordinary predicates need a few hundred steps a word)."""


class PredicateVerdict(BaseModel):
    """What the code said about a guessed predicate."""

    model_config = ConfigDict(frozen=True)

    source: str
    rejection: str | None = None
    equivalent: bool = False
    heldout: int = 0
    agree: int = 0
    accuracy: float | None = None
    errors: int = 0
    shown_agree: bool | None = None
    counterexamples: list[dict[str, Any]] = []


@cache
def truth_of_source(source: str) -> tuple[npt.NDArray[np.bool_], bool]:
    """A predicate's truth on every word of the list, and whether it stayed within :data:`JUDGE_STEPS`
    (when it did not, the words left are False)."""
    program = compile_word_rule(source)
    budget = JUDGE_STEPS
    out = []
    for word in vocabulary():
        outcome = program.evaluate(word, max_steps=budget)
        budget = max(0, budget - outcome.steps)
        out.append(outcome.value)
    return np.array(out, dtype=bool), budget > 0


def rule_truth(rule: Rule) -> npt.NDArray[np.bool_]:
    """The hidden rule's truth on every word of the list (native for grammar rules, else by the sandbox)."""
    if rule.shape is not None:
        return extension(rule)
    truth, within = truth_of_source(rule.source)
    if not within:
        raise ValueError(f"rule {rule.key} needs more than {JUDGE_STEPS} steps over the word list")
    return truth


def judge_predicate(truth: npt.NDArray[np.bool_], source: str, heldout: Sequence[int]) -> PredicateVerdict:
    """Compare ``source`` with the rule (its ``truth`` on the word list) on the ``heldout`` word indices."""
    try:
        program = compile_word_rule(source)
    except GuessRejected as exc:
        return PredicateVerdict(source=source, rejection=exc.reason)
    words = vocabulary()
    agree = errors = 0
    counter: list[dict[str, Any]] = []
    held = set(heldout)
    shown_agree = True
    budget = JUDGE_STEPS
    for i, word in enumerate(words):
        outcome = program.evaluate(word, max_steps=budget)
        budget = max(0, budget - outcome.steps)
        right = outcome.value == bool(truth[i])
        if i not in held:
            shown_agree = shown_agree and right
            continue
        errors += outcome.error is not None
        if right:
            agree += 1
        elif len(counter) < MAX_COUNTEREXAMPLES:
            counter.append({"word": word, "rule": bool(truth[i]), "guess": outcome.value})
    n = len(held)
    return PredicateVerdict(
        source=source,
        equivalent=n > 0 and agree == n and shown_agree,
        shown_agree=shown_agree,
        heldout=n,
        agree=agree,
        accuracy=agree / n if n else None,
        errors=errors,
        counterexamples=counter,
    )


_WORD = re.compile(r"[A-Za-z]+")


def read_judge_reply(reply: str) -> bool | None:
    """The published judge's verdict: the reply's last word, YES or NO, its case and the punctuation and markup
    around it ignored (the reference raised on anything but exactly ``YES`` or ``NO``, so ``YES.`` or ``**YES**``
    crashed the game, function_picnic/base.py:194-198); anything else is an unreadable vote."""
    words = _WORD.findall((reply or "")[-2000:])
    if not words:
        return None
    last = words[-1].upper()
    return True if last == "YES" else False if last == "NO" else None
