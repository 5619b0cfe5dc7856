"""wason's version, found without importing anything heavy (``wason --version``, the HTTP client's user agent)."""

from __future__ import annotations

from wason import __version__  # the package is imported before this module anyway


def version() -> str:
    """The installed distribution's version (the package's own when run from a source tree)."""
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as installed

    try:
        return installed("wason")
    except PackageNotFoundError:  # run from a source tree that was not installed
        return __version__
