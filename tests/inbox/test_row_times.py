"""The list's waiting times read exactly as Django's ``timesince`` writes them, in each language."""

from __future__ import annotations

import datetime as dt

import pytest
from django.utils import translation
from django.utils.timesince import timesince, timeuntil
from hypothesis import given
from hypothesis import strategies as st

from reviewapp.inbox.page import page_time_strings

NOW = dt.datetime(2026, 11, 30, 12, 0, tzinfo=dt.UTC)
# From a minute to a few years: the list shows questions waiting for hours, weeks or longer.
waits = st.timedeltas(min_value=dt.timedelta(0), max_value=dt.timedelta(days=1500))


@pytest.mark.parametrize("language", ["sv", "en"])
@given(wait=waits)
def test_a_wait_reads_as_timesince_writes_it(language: str, wait: dt.timedelta) -> None:
    with translation.override(language):
        assert timesince(NOW - wait, NOW, time_strings=page_time_strings()) == timesince(NOW - wait, NOW)
        assert timeuntil(NOW + wait, NOW, time_strings=page_time_strings()) == timeuntil(NOW + wait, NOW)


def test_the_same_wait_is_written_in_each_language_the_page_is_shown_in() -> None:
    then = NOW - dt.timedelta(hours=2, minutes=5)
    with translation.override("sv"):
        swedish = timesince(then, NOW, time_strings=page_time_strings())
    with translation.override("en"):
        english = timesince(then, NOW, time_strings=page_time_strings())
    assert (swedish, english) == ("2\xa0timmar, 5\xa0minuter", "2\xa0hours, 5\xa0minutes")
