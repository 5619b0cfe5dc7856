"""The Inspect extension (``pip install 'wason[inspect]'``): every registered family an Inspect task
(``inspect eval wason/NAME``), the embedded model an Inspect model provider (``--model wason/local``), the
family's reference solver and a person at the terminal Inspect solvers (``--solver wason/solver``,
``--solver wason/human``), and ``wason import`` of the logs they write. See docs/inspect.md.

Inspect finds it through the ``inspect_ai`` entry point group, which names :mod:`wason.inspect._registry`; nothing
here is imported by the rest of wason, and inspect_ai is imported only by these modules.
"""
