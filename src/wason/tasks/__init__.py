"""Task families, one package each. Every family builds one :class:`wason.core.Family` named ``FAMILY``.

``BUILTIN`` is the registry's list of the families that ship with wason (imported only when first used), and
``CARDS`` what the command line shows of them without importing them; families of other packages register
through the ``wason.tasks`` entry point group (see :mod:`wason.core.registry`).
"""

from typing import Any

BUILTIN: dict[str, str] = {
    "wilt": "wason.tasks.wilt.family:FAMILY",
    "lists": "wason.tasks.lists.family:FAMILY",
    "aiw": "wason.tasks.aiw.family:FAMILY",
    "picnic": "wason.tasks.picnic.family:FAMILY",
    "code-functions": "wason.tasks.code_functions.family:FAMILY",
    "math": "wason.tasks.math_rules.family:FAMILY",
    "dynamic-picnic": "wason.tasks.dynamic_picnic.family:FAMILY",
    "lab": "wason.tasks.lab.family:FAMILY",
}

CARDS: dict[str, dict[str, Any]] = {
    "wilt": {
        "title": "WILT",
        "summary": "three numbers in, True/False out; 30 tests, then one lambda guess",
        "commands": "WILT tools",
        "playable": True,
    },
    "lists": {
        "title": "List rules",
        "summary": "hidden rules over integer lists (the Numberwang pilot): rounds of five test lists",
        "playable": True,
    },
    "aiw": {
        "title": "AIW",
        "summary": "Alice in Wonderland problems: variations x prompt types x trials, correct rates, robustness",
    },
    "picnic": {
        "title": "Static Picnic",
        "summary": "guess-the-rule over 511 items and 76 categories (GuessTheRuleBench's Static Picnic)",
        "playable": True,
    },
    "code-functions": {
        "title": "Code Functions Picnic",
        "summary": "hidden rules over words (the guess-the-rule functions game): a predicate judged by code",
        "commands": "tools: the published functions' translation, checking rule files, listing generated rules",
        "playable": True,
    },
    "math": {
        "title": "Math sequences",
        "summary": "hidden rules next = f(current, index) over integer sequences (the guess-the-rule math game)",
        "commands": "math sequence tools",
        "playable": True,
    },
    "dynamic-picnic": {
        "title": "Dynamic Picnic",
        "summary": "guess the rule of a picnic; every item validated by a predicate or a unanimous panel",
        "commands": "Dynamic Picnic tools",
        "playable": True,
    },
    "lab": {
        "title": "Lab domains",
        "summary": "random quasi-physical domains: run experiments, then predict new ones (scored by code)",
        "commands": "lab domain tools",
        "playable": True,
    },
}
"""The card of each built-in family (:class:`wason.core.registry.Card`: its ``title``, ``summary``, ``commands``
and ``playable``, as the family says them; ``tests/test_startup.py`` checks they agree), so that ``wason --help``
and ``wason COMMAND --help`` show them without importing a family."""
