"""Complete task families to read, copy and run: :mod:`wason.examples.hello` is the one docs/families.md walks
through (``wason eval wason/examples/hello.py``; ``wason new NAME`` writes a package around it)."""
