"""List rules ("Numberwang"): hidden rules over integer lists, labelled by code, played with the pilot's protocol.

Modules: ``rules`` (the published rules as predicates), ``examples`` (generated positive examples), ``game`` (the
game and its judges), ``protocol`` (the pilot's texts and reply parser), ``hypotheses`` and ``generate`` (a
grammar of list rules and the generated split), ``solver`` (the reference scientist). See ``docs/lists.md``.
"""
