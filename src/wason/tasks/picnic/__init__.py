"""Static Picnic (GuessTheRuleBench): find the categories of a hidden rule over 511 items, judged by code.

The family is :data:`wason.tasks.picnic.family.FAMILY`; see ``docs/picnic.md``.
"""
