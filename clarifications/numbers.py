"""``Number.prototype.toLocaleString('sv-SE')`` for Python numbers.

V8 hands the double to ICU, which formats the *shortest round-trip decimal*
of the value (what ``repr(float)`` prints), not its exact binary value, and
rounds that half away from zero to at most three decimals. So ``1.0005``,
stored as 1.000499999…, prints as ``1,001``. Verified against Node 20:

====================  ==============================
value                 output
====================  ==============================
1234.5                ``1\\u00a0234,5``
-1234.5678            ``\\u22121\\u00a0234,568``
-0.0, -0.0001         ``\\u22120``
1e21                  ``1\\u00a0000\\u00a0000 …`` (all digits)
inf, -inf, nan        ``∞``, ``\\u2212∞``, ``NaN``
====================  ==============================
"""

import math
from typing import Final

GROUP_SEPARATOR: Final = "\u00a0"
DECIMAL_SEPARATOR: Final = ","
MINUS_SIGN: Final = "\u2212"
INFINITY_SIGN: Final = "∞"
_SAFE_INTEGER: Final = 2**53


def _group(digits: str) -> str:
    if len(digits) <= 3:
        return digits
    head = len(digits) % 3 or 3
    groups = [digits[:head]]
    groups.extend(digits[i : i + 3] for i in range(head, len(digits), 3))
    return GROUP_SEPARATOR.join(groups)


def _decimal_digits(value: float) -> tuple[str, str]:
    """Integer and fraction digits of the shortest repr of a finite value >= 0."""
    text = repr(value)
    mantissa, _, exponent_text = text.partition("e")
    whole, _, fraction = mantissa.partition(".")
    if not exponent_text:
        return whole, fraction.rstrip("0")
    digits = whole + fraction
    point = len(whole) + int(exponent_text)
    if point >= len(digits):
        return digits + "0" * (point - len(digits)), ""
    if point <= 0:
        return "0", "0" * -point + digits
    return digits[:point], digits[point:]


def format_sv(value: float) -> str:
    """Format a JavaScript number the way ``toLocaleString('sv-SE')`` does.

    Integers are first turned into the double JavaScript would hold, so a
    JSON integer beyond 2**53 loses the same digits it loses in Node:
    ``format_sv(2**64)`` is ``18 446 744 073 709 552 000``.
    """
    if isinstance(value, int) and -_SAFE_INTEGER <= value <= _SAFE_INTEGER:
        sign = MINUS_SIGN if value < 0 else ""
        return sign + _group(str(abs(value)))
    try:
        number = float(value)
    except OverflowError:  # an int too large for a double is Infinity in JS
        number = math.inf if value > 0 else -math.inf
    if math.isnan(number):
        return "NaN"
    sign = MINUS_SIGN if math.copysign(1.0, number) < 0 else ""
    number = abs(number)
    if math.isinf(number):
        return sign + INFINITY_SIGN
    whole, fraction = _decimal_digits(number)
    if len(fraction) > 3:
        # Half away from zero on the shortest decimal digits (ICU), not on
        # the binary value: the fourth decimal decides on its own.
        kept = int(whole + fraction[:3])
        if fraction[3] >= "5":
            kept += 1
        padded = str(kept).rjust(4, "0")
        whole, fraction = padded[:-3], padded[-3:].rstrip("0")
    if fraction:
        return sign + _group(whole) + DECIMAL_SEPARATOR + fraction
    return sign + _group(whole)
