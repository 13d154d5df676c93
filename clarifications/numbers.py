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

from typing import Final

GROUP_SEPARATOR: Final = "\u00a0"
DECIMAL_SEPARATOR: Final = ","
MINUS_SIGN: Final = "\u2212"
INFINITY_SIGN: Final = "∞"
_SAFE_INTEGER: Final = 2**53


def _group(digits: str) -> str:
    if len(digits) <= 3:
        return digits
    if len(digits) <= 6:  # the common amount: one separator, no int round trip
        return digits[:-3] + GROUP_SEPARATOR + digits[-3:]
    return f"{int(digits):,}".replace(",", GROUP_SEPARATOR)


def _scientific_digits(text: str) -> tuple[str, str]:
    """Integer and fraction digits of a repr like ``1e+21`` or ``1.5e-05``."""
    mantissa, _, exponent = text.partition("e")
    whole, _, fraction = mantissa.partition(".")
    digits = whole + fraction
    point = len(whole) + int(exponent)
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
    if isinstance(value, int):
        if -_SAFE_INTEGER <= value <= _SAFE_INTEGER:
            digits = str(abs(value))
            return _group(digits) if value >= 0 else MINUS_SIGN + _group(digits)
        try:
            value = float(value)
        except OverflowError:  # too large for a double: Infinity in JavaScript
            return INFINITY_SIGN if value > 0 else MINUS_SIGN + INFINITY_SIGN
    # repr() is the shortest round-trip decimal, which is what ICU formats.
    text = repr(value if type(value) is float else float(value))
    sign = ""
    if text[0] == "-":
        sign, text = MINUS_SIGN, text[1:]
    if text == "inf":
        return sign + INFINITY_SIGN
    if text == "nan":
        return "NaN"
    if "e" in text:
        whole, fraction = _scientific_digits(text)
    else:
        whole, _, fraction = text.partition(".")
        fraction = fraction.rstrip("0")
    if len(fraction) > 3:
        # Half away from zero on those digits, not on the binary value: the
        # fourth decimal decides on its own.
        kept = int(whole + fraction[:3]) + (fraction[3] >= "5")
        padded = str(kept).rjust(4, "0")
        whole, fraction = padded[:-3], padded[-3:].rstrip("0")
    if fraction:
        return sign + _group(whole) + DECIMAL_SEPARATOR + fraction
    return sign + _group(whole)
