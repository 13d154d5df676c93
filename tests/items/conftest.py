from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _english(settings):  # type: ignore[no-untyped-def]
    # Assertions on wording are in the English source strings; the Swedish
    # catalogue is compiled later and must not break them.
    settings.LANGUAGE_CODE = "en"
