from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

GOLDEN = Path(__file__).resolve().parents[2].parent / "shared" / "golden" / "clarifications.jsonl"


def golden_records() -> list[dict[str, Any]]:
    """Every line of the shared golden file, parsed, in file order."""
    return [json.loads(line) for line in GOLDEN.read_text(encoding="utf-8").splitlines() if line.strip()]


@pytest.fixture(autouse=True)
def _english(settings):  # type: ignore[no-untyped-def]
    # Assertions on wording use the English source strings; the Swedish
    # catalogue is compiled later and must not break them.
    settings.LANGUAGE_CODE = "en"
