"""What counts as a valid WILT test value.

The published prompt says values are numbers "that can be typed in 3 or fewer digits, not including signs and
decimal characters (e.g. -11.3 is a valid value)". The reference harness never enforced it (it used ``float()``,
so ``nan``, ``inf`` and ``1e308`` all passed). We enforce it on the *value*: a number is valid when it can be
written with at most three digits, so ``0.001`` (typed ``.001``), ``1.50`` (``1.5``) and ``1e2`` (``100``) are
valid while ``1000``, ``0.0001`` and ``999.999`` are not.
"""

from __future__ import annotations

import re
from decimal import Decimal

MAX_DIGITS = 3

# Plain decimal literals with an optional exponent; anything else (fractions, words, hex) is not a number here.
_NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?")


class InvalidValue(ValueError):
    """A test value that is not allowed; the message is shown to the player."""


def digits_needed(value: Decimal) -> int:
    """Fewest digits needed to type ``value`` (sign and decimal point not counted).

    Leading zeros of the integer part and trailing zeros of the fraction are never needed.
    """
    _sign, digits, exponent = value.normalize().as_tuple()
    if not isinstance(exponent, int):
        raise InvalidValue(f"{value} is not a finite number")
    if digits == (0,):
        return 1
    n = len(digits)
    if exponent >= 0:
        return n + exponent  # e.g. 1E+2 is typed "100"
    # Fractional: digits before the point plus digits after it, without a leading "0." (".001" is 3 digits)
    return max(n, -exponent)


def parse_value(token: str) -> float:
    """Parse one typed test value, or raise :class:`InvalidValue` saying why it is not allowed."""
    text = token.strip()
    if text.lstrip("+-").lower() in {"nan", "inf", "infinity"}:
        raise InvalidValue(f"{text} is not a finite number")
    if not _NUMBER.fullmatch(text):
        raise InvalidValue(f"{text!r} is not a number")
    value = Decimal(text)  # the regex admits only valid, finite literals
    if len(value.as_tuple().digits) > 400 or abs(value.adjusted()) > 400:
        raise InvalidValue(f"{text} has more than {MAX_DIGITS} digits")
    if digits_needed(value) > MAX_DIGITS:
        raise InvalidValue(f"{text} has more than {MAX_DIGITS} digits")
    return float(value)


def format_value(value: float) -> str:
    """Echo a value the way the reference harness does: as a Python float (``1`` -> ``1.0``)."""
    return str(float(value))
