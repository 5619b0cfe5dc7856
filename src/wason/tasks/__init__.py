"""Task families, one package each. Every family builds one :class:`wason.core.Family` named ``FAMILY``.

``BUILTIN`` is the registry's list of the families that ship with wason (imported only when first used);
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
