"""No part of a password is shown, however the URL holding it is written."""

from __future__ import annotations

import re

import pytest

from wason.redaction import redact, redact_url

# (URL, its password as written): unencoded '@', ':', '/', '#', '?', quotes and spaces, percent-encoded, no user,
# a user name with '@', passwords in the query string
HOSTILE = [
    ("postgresql+psycopg://user:pA@sS:w0Rd@127.0.0.1:5/db", "pA@sS:w0Rd"),
    ("postgresql+psycopg://user:pA@sS@127.0.0.1:5/db", "pA@sS"),
    ("postgresql+psycopg://user:pA@sS:99@127.0.0.1/db", "pA@sS:99"),
    ("postgresql+psycopg://user:pA%40sS%3Aw0Rd@127.0.0.1:5/db", "pA%40sS%3Aw0Rd"),
    ("postgresql+psycopg://:pA@sS@127.0.0.1:5/db", "pA@sS"),
    ("postgresql://us@er:pA@sS@db/wason", "pA@sS"),
    ("postgresql://user:pA/sS@db/wason", "pA/sS"),
    ("postgresql://user:pA#sS?x@db/wason", "pA#sS?x"),
    ("postgresql://user:pA'sS@db/wason", "pA'sS"),
    ("https://user:pA@sS/w0Rd@api.example.test/v1", "pA@sS/w0Rd"),
    ("postgresql+psycopg://user@127.0.0.1:5/db?password=pA:sS", "pA:sS"),
    ("postgresql+psycopg://127.0.0.1:5/db?user=u&password=pA@sS&sslmode=off", "pA@sS"),
    ("postgresql://user@db/wason?sslpassword=pA'sS", "pA'sS"),
    ("https://api.example.test/v1?api_key=pA-sS&x=1", "pA-sS"),
]


def pieces(password: str) -> list[str]:
    """The parts of a password a parser could show on their own (split where URL parsers split)."""
    return [p for p in re.split(r"[@:/#?&%']|%40|%3A", password) if len(p) >= 2]


@pytest.mark.parametrize(("url", "password"), HOSTILE)
def test_no_part_of_a_password_is_shown(url: str, password: str) -> None:
    shown = [
        redact_url(url),
        redact(url),
        redact(f"cannot open store {url!r}: connection refused"),
        redact(f"cannot reach {url}: All connection attempts failed"),
        redact(f'{{"endpoint": "{url}"}}'),
    ]
    for text in shown:
        assert "***" in text
        for piece in pieces(password):
            assert piece not in text, (piece, text)


def test_what_is_not_a_password_stays() -> None:
    for text in (
        "sqlite:///wason.db",
        "sqlite:////tmp/a:b@c.db",
        "postgresql://alice@db:5432/wason",
        "http://127.0.0.1:8000/v1",
        "run 3 is being worked on by process 4711 on lab-2",
    ):
        assert redact(text) == text and redact_url(text) == text
    assert redact_url("postgresql://alice:s3cret@db:5432/wason") == "postgresql://alice:***@db:5432/wason"
    assert redact("see postgresql://alice:s3cret@db/w and https://bob:pw@h/v1.") == (
        "see postgresql://alice:***@db/w and https://bob:***@h/v1."
    )


def test_a_whole_url_hides_a_password_with_spaces() -> None:
    assert redact_url("postgresql://alice:my s3cret pass@db/wason") == "postgresql://alice:***@db/wason"
