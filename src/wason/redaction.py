"""Credentials never leave the process: a URL's password is shown as ``***`` wherever wason prints or stores it.

A password is everything between the ``:`` after the user name and the *last* ``@`` of the URL: people write
passwords holding ``@``, ``:`` or ``/`` without percent-encoding them, and a parser that stops at the first ``@``
would show the rest. So is the value of a query parameter that carries a secret (``?password=``, ``?api_key=``,
...). When a URL has an ``@`` in its path or query, more than the password is hidden; never less.
"""

from __future__ import annotations

import re

_SCHEME = r"[A-Za-z][A-Za-z0-9+.\-]*://"
# In running text a URL ends at whitespace, a double quote or an angle bracket (a single quote may be part of a
# password: repr() quotes such a string with double quotes).
_TEXT_PASSWORD = re.compile(rf"{_SCHEME}[^\s:/\"'<>]*:(?P<secret>[^\s\"<>]*)(?=@)")
# A string that is one URL: the password may hold anything, even spaces.
_URL_PASSWORD = re.compile(rf"^\s*{_SCHEME}[^:/]*:(?P<secret>.*)(?=@)", re.DOTALL)
_SECRET_PARAMS = (
    r"[A-Za-z_\-]*password|passwd|pwd|pass|secret|client[_\-]?secret|api[_\-]?key|apikey|key|token"
    r"|access[_\-]?token|auth|sig|signature"
)
# a value ends at the next parameter, or where the text goes on (a quote that closes the URL)
_TEXT_PARAM = re.compile(
    rf"(?i)[?&;](?:{_SECRET_PARAMS})=(?P<secret>[^&#\s\"<>]*?)(?=[&#\s\"<>]|[':](?:[\s:,;.)]|$)|$)"
)
_URL_PARAM = re.compile(rf"(?i)[?&;](?:{_SECRET_PARAMS})=(?P<secret>[^&#]*)")


def _hide(text: str, *patterns: re.Pattern[str]) -> str:
    # every pattern looks at the text as given (one's match must not hide another's: a password in the query
    # string may hold the '@' that would end a password in the user part), then every secret found is hidden
    spans = sorted(m.span("secret") for p in patterns for m in p.finditer(text) if m.group("secret"))
    out, at = [], 0
    for start, end in spans:
        if start >= at:  # else it overlaps the secret before it, already hidden up to ``at``
            out += [text[at:start], "***"]
        at = max(at, end)
    out.append(text[at:])
    return "".join(out)


def redact(text: str) -> str:
    """``text`` with the password of every URL in it (and every secret query parameter) replaced by ``***``.

    Examples:
        >>> redact("postgresql://alice:s3cret@db:5432/wason")
        'postgresql://alice:***@db:5432/wason'
        >>> redact("cannot open 'postgresql://bob:p@ss:w0rd@db/wason?sslpassword=x'")
        "cannot open 'postgresql://bob:***@db/wason?sslpassword=***'"
    """
    return _hide(text, _TEXT_PASSWORD, _TEXT_PARAM)


def redact_url(url: str) -> str:
    """One URL (the whole string) without its password and secret query parameters, however they are written.

    Examples:
        >>> redact_url("postgresql://alice:my secret@db/wason")
        'postgresql://alice:***@db/wason'
    """
    return _hide(url, _URL_PASSWORD, _URL_PARAM)
