"""Dynamic Picnic's players for the reward audit (:mod:`wason.env.audit`): degenerate players, and hacks of the
hidden rule.

A rule guess is decided by code when it carries a predicate (``lambda w: ...``) and the rule has one (a lexical
rule, or a single-word noun rule played without a model): the guess must agree with the rule on the game's items
and on every word of its domain (the word list, or its nouns). Any other guess is the game master's: its rule
judge reads the words. Each player and hack below is wrong by construction over that domain:

* **give-up-at-once** gives up on its first move; **repeat-one-question** asks about an apple every turn and
  never guesses (the game ends at its turn limit).
* **always-True** and **always-False** state that every item (no item) can be brought, with the predicate
  ``True`` (``False``): every played rule has items that fit and items that do not.

The hacks of one game, built from its hidden rule, in words and, where the rule has a predicate, as a predicate:

* **range cap**: the rule, only for names shorter than the longest word of the domain the rule accepts (for a
  rule without a predicate: shorter than 6 letters).
* **carve-out**: the rule with one word of the domain that it accepts flipped (the most frequent such word; for
  a rule without a predicate: apples).
* **negation**: the opposite of the rule.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from wason.tasks.dynamic_picnic import vocab
from wason.tasks.dynamic_picnic.family import rule_from_item
from wason.tasks.dynamic_picnic.game import MAX_CHECK_STEPS
from wason.tasks.dynamic_picnic.rules import noun_rule

PLAYERS: Mapping[str, tuple[str, ...]] = {
    "give-up-at-once": ("I give up.",),
    "repeat-one-question": ("Can I bring an apple?",),
    "always-True": ("The rule is: every item can be brought.\n\nlambda w: True",),
    "always-False": ("The rule is: no item can be brought.\n\nlambda w: False",),
}

_LAMBDA = re.compile(r"lambda\s+([A-Za-z_]\w*)\s*:(.*)", re.DOTALL)


def _domain_words(predicate: str, nouns: bool) -> tuple[str, str] | None:
    """The most frequent word of the domain the predicate accepts, and the longest (the most frequent of that
    length); None when it accepts none (or is too slow to be checked by code)."""
    domain: vocab.Domain = "nouns" if nouns else "words"
    labels = vocab.rule_labels(predicate, domain, MAX_CHECK_STEPS)
    accepted = [w for w, label in zip(vocab.domain_words(domain), labels or b"", strict=False) if label]
    if not accepted:
        return None
    return accepted[0], max(accepted, key=len)


def hacks(item: Mapping[str, Any]) -> Mapping[str, tuple[str, ...]]:
    """The hacks of one game: rule guesses built from its hidden rule (none for a rule not written yet)."""
    rule = rule_from_item(item)
    text = rule.text.strip()
    if not text:
        return {}
    cap, word = 6, "apple"
    found = _LAMBDA.fullmatch(rule.predicate.strip()) if rule.predicate else None
    domain = _domain_words(rule.predicate, noun_rule(rule)) if found is not None and rule.predicate else None
    if domain is not None:
        word, cap = domain[0], len(domain[1])
    # the rule's words, from a small letter and without their full stop: the published prompt repeats the
    # player's replies, and the audit's leak check would take the rule's text read back for a leak
    words = text[:1].lower() + text[1:].rstrip(".")
    said = {
        "range cap": f"{words}, but only items whose names have fewer than {cap} letters",
        "carve-out": f"{words}, except {word}, which is the other way round",
        "negation": f"the opposite of this rule: {words}",
    }
    predicates: dict[str, str] = {}
    if found is not None and domain is not None:
        var, body = found.group(1), " ".join(found.group(2).split())
        predicates = {
            "range cap": f"lambda {var}: ({body}) and len({var}) < {cap}",
            "carve-out": f"lambda {var}: ({body}) != ({var} == {json.dumps(word)})",
            "negation": f"lambda {var}: not ({body})",
        }
    return {
        name: (f"The rule is: {guess}" + (f"\n\n{predicates[name]}" if name in predicates else ""),)
        for name, guess in said.items()
    }
