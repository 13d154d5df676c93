from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _english(settings):  # type: ignore[no-untyped-def]
    # tests/conftest.py already makes the unit tests English; this also
    # covers the item page's own browser tests, which find buttons by their
    # English names ("Copy").
    settings.LANGUAGE_CODE = "en"
