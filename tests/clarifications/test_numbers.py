"""Amounts in the agent view: Number.prototype.toLocaleString('sv-SE').

Every expectation was checked against Node 20 (full ICU). Grouping is
U+00A0, the decimal mark a comma, the minus U+2212; at most three decimals,
rounded half away from zero on the *shortest* decimal form of the double.
"""

import pytest

from clarifications.numbers import format_sv

NB = "\u00a0"
MINUS = "\u2212"

CASES = [
    (0, "0"),
    (99, "99"),
    (1234, f"1{NB}234"),
    # A negative JSON integer (the exact-integer path): the minus sign, then the groups.
    (-7, f"{MINUS}7"),
    (-1234567, f"{MINUS}1{NB}234{NB}567"),
    (123456, f"123{NB}456"),
    (1234.5, f"1{NB}234,5"),
    (132.27, "132,27"),
    (0.5, "0,5"),
    (2.5, "2,5"),
    (-1234.5678, f"{MINUS}1{NB}234,568"),
    # Half away from zero on the shortest digits, not on the binary value
    # (1.0005 is stored as 1.000499999…, 1234.5665 as 1234.566499…).
    (1.0005, "1,001"),
    (1234.5675, f"1{NB}234,568"),
    (1234.5665, f"1{NB}234,567"),
    (0.0125, "0,013"),
    (999.9995, f"1{NB}000"),
    (999.9994999, "999,999"),
    # Negative zero, and negatives that round to zero, keep their sign.
    (-0.0, f"{MINUS}0"),
    (-0.0001, f"{MINUS}0"),
    (-5e-324, f"{MINUS}0"),
    (0.0001, "0"),
    (1e-7, "0"),
    # Large values print every digit, never an exponent.
    (1e21, NB.join(["1"] + ["000"] * 7)),
    (1e16, f"10{NB}000{NB}000{NB}000{NB}000{NB}000"),
    # A JSON integer beyond 2**53 is the double JavaScript would hold.
    (2**64, f"18{NB}446{NB}744{NB}073{NB}709{NB}552{NB}000"),
    (123456789012345678901234567890, f"123{NB}456{NB}789{NB}012{NB}345{NB}680{NB}000{NB}000{NB}000{NB}000"),
    (10**400, "∞"),
    (-(10**400), f"{MINUS}∞"),
    (float("inf"), "∞"),
    (float("-inf"), f"{MINUS}∞"),
    (float("nan"), "NaN"),
]


@pytest.mark.parametrize(("value", "expected"), CASES, ids=[repr(v)[:24] for v, _ in CASES])
def test_amounts_format_like_javascript_in_swedish(value: float, expected: str) -> None:
    assert format_sv(value) == expected
