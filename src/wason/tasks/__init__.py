"""Task families, one package each. Every family builds one :class:`wason.core.Family` named ``FAMILY``.

``BUILTIN`` is the registry's list of the families that ship with wason (imported only when first used), and
``COMMANDS`` the help line of their own commands;
families of other packages register through the ``wason.tasks`` entry point group (see
:mod:`wason.core.registry`).
"""

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

COMMANDS: dict[str, str] = {
    "wilt": "WILT tools",
    "code-functions": "tools: the published functions' translation, checking rule files, listing generated rules",
    "math": "math sequence tools",
    "dynamic-picnic": "Dynamic Picnic tools",
    "lab": "lab domain tools",
}
"""The built-in families that have their own command (``wason NAME ...``), in ``BUILTIN``'s order, each with
its line in ``wason --help`` (its ``Family.commands``; ``tests/test_startup.py`` checks they agree), so that
``wason --help`` lists them without importing a family."""
