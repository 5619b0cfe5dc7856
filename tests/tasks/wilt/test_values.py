import math

import pytest

from wason.tasks.wilt.values import InvalidValue, digits_needed, parse_value


@pytest.mark.parametrize(
    "token, value",
    [
        ("1", 1.0),
        ("-11.3", -11.3),
        ("999", 999.0),
        ("-999", -999.0),
        (".001", 0.001),
        ("0.001", 0.001),  # typed ".001": three digits
        ("1.50", 1.5),  # trailing zero not needed
        ("1e2", 100.0),
        ("+7", 7.0),
        ("0", 0.0),
        ("-0.5", -0.5),
        ("12.5", 12.5),
        ("007", 7.0),
    ],
)
def test_valid_values(token: str, value: float) -> None:
    assert parse_value(token) == value


@pytest.mark.parametrize(
    "token, why",
    [
        ("1000", "digits"),
        ("999.999", "digits"),
        ("0.0001", "digits"),
        ("1e308", "digits"),
        ("1e-300", "digits"),
        ("12.34", "digits"),
        ("nan", "finite"),
        ("-inf", "finite"),
        ("Infinity", "finite"),
        ("x", "not a number"),
        ("1/2", "not a number"),
        ("0x10", "not a number"),
        ("", "not a number"),
        ("1e99999999999", "digits"),
    ],
)
def test_invalid_values(token: str, why: str) -> None:
    with pytest.raises(InvalidValue, match=why):
        parse_value(token)


def test_digits_needed_counts_typed_digits() -> None:
    from decimal import Decimal

    assert digits_needed(Decimal("100")) == 3
    assert digits_needed(Decimal("0.25")) == 2
    assert digits_needed(Decimal("10.5")) == 3
    assert digits_needed(Decimal("-0")) == 1
    assert math.isclose(parse_value("-.5"), -0.5)
