"""Credentials never leave the process: a URL's password is shown as ``***`` wherever wason prints or stores it."""

from __future__ import annotations

import re

# scheme://user:password@host... -> scheme://user:***@host...
_USERINFO = re.compile(r"(?P<head>[A-Za-z][A-Za-z0-9+.\-]*://[^/\s:@]*:)(?P<secret>[^@\s/]+)(?=@)")


def redact(text: str) -> str:
    """``text`` with the password of every URL in it replaced by ``***``.

    Examples:
        >>> redact("postgresql://alice:s3cret@db:5432/wason")
        'postgresql://alice:***@db:5432/wason'
    """
    return _USERINFO.sub(lambda m: m.group("head") + "***", text)


def redact_optional(text: str | None) -> str | None:
    """:func:`redact`, passing ``None`` through."""
    return None if text is None else redact(text)
