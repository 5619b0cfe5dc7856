"""The line ``wason --version`` prints, found without importing anything heavy (issue 39: under 0.3 s)."""

from __future__ import annotations

from wason.version import version


def version_line() -> str:
    """``wason X.Y.Z``, as ``wason --version`` prints it."""
    return f"wason {version()}"
