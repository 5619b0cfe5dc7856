"""The version ``wason --version`` prints, found without importing anything heavy (issue 39: under 0.3 s)."""

from __future__ import annotations


def version() -> str:
    """The installed distribution's version (the package's own when run from a source tree)."""
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as installed

    try:
        return installed("wason")
    except PackageNotFoundError:  # run from a source tree that was not installed
        from wason import __version__

        return __version__


def version_line() -> str:
    """``wason X.Y.Z``, as ``wason --version`` prints it."""
    return f"wason {version()}"
