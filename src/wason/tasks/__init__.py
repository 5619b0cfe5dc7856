"""Task families, one package each. Every family builds one :class:`wason.core.Family` named ``FAMILY``.

``BUILTIN`` is the registry's list of the families that ship with wason (imported only when first used);
families of other packages register through the ``wason.tasks`` entry point group (see
:mod:`wason.core.registry`).
"""

BUILTIN: dict[str, str] = {
    "wilt": "wason.tasks.wilt.family:FAMILY",
    "lists": "wason.tasks.lists.family:FAMILY",
    "aiw": "wason.tasks.aiw.family:FAMILY",
}
