"""List rules ("Numberwang"): hidden rules over integer lists, labelled by code, and the pilot's protocol.

In progress (issue 5): rules as predicates with their published texts and documented readings, the pilot's
prompt, reply parser and feedback. The game, judges, generated rules and solver are still to come.
"""
