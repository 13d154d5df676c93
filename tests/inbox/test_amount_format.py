"""The list's totals read exactly as Django's ``floatformat:"2g"`` writes them, in every language."""

from __future__ import annotations

import pytest
from django.template.defaultfilters import floatformat
from django.utils import translation
from hypothesis import given
from hypothesis import strategies as st

from reviewapp.inbox.page import AmountFormat

# What receipts carry (öre, large invoices, refunds) and what a careless extraction might
# write (many decimals, huge numbers). Below a millionth the filter switches to scientific
# notation ("2.2e-313"), which no receipt total needs; the list prints 0,00 there.
amounts = st.one_of(
    st.integers(min_value=-(10**30), max_value=10**30),
    st.decimals(min_value=-10_000_000, max_value=10_000_000, places=2).map(float),
    st.floats(allow_nan=False, allow_infinity=False).filter(lambda x: x == 0 or abs(x) >= 1e-6),
)


# sv and en are the app's; de swaps the separators, zh-hans groups by four (Django's own formatting path).
@pytest.mark.parametrize("language", ["sv", "en", "de", "zh-hans"])
@given(value=amounts)
def test_a_total_reads_as_the_floatformat_filter_writes_it(language: str, value: float) -> None:
    with translation.override(language):
        assert AmountFormat()(value) == floatformat(value, "2g")


def test_swedish_groups_thousands_with_a_space_and_writes_a_decimal_comma() -> None:
    with translation.override("sv"):
        assert AmountFormat()(1234.5) == "1\xa0234,50"
        assert AmountFormat()(0.125) == "0,13"
        assert AmountFormat()(2.2250738585e-313) == "0,00"
        assert AmountFormat()(-0.0) == "0,00"
        assert AmountFormat()(-1234567.891) == "-1\xa0234\xa0567,89"
