"""The fast paths of a row's derivation read and measure JSON exactly as ``json`` does.

``decode_json`` tries msgspec first and ``states._bounded_summary`` measures a
summary with orjson first; a row must come out the same either way (the same
values of the same types, the same truncation marker), or a re-index would
change what the list shows.
"""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from reviewapp.core import states
from reviewapp.core.stored_json import Undecodable, decode_json

# JSON values as accounted's columns may hold them: integers past 64 bits,
# floats of every size (written as 1e-07 or 1e+16 by json), any text.
scalars = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.integers(min_value=2**63 - 10, max_value=2**70)
    | st.integers(min_value=-(2**70), max_value=-(2**63) + 10)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text()
)
documents = st.recursive(
    scalars, lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(), inner, max_size=5), max_leaves=30
)


def _typed(value: Any) -> Any:
    """The value with every number's type beside it, so 1 and 1.0 (and 10**30 and 1e30) differ."""
    if isinstance(value, dict):
        return {key: _typed(inner) for key, inner in value.items()}
    if isinstance(value, list):
        return [_typed(inner) for inner in value]
    return (type(value).__name__, value)


@settings(max_examples=400, deadline=None)
@given(documents, st.booleans())
def test_a_document_decodes_to_what_json_reads_number_for_number(document: Any, ascii_only: bool) -> None:
    text = json.dumps(document, ensure_ascii=ascii_only)
    assert _typed(decode_json(text)) == _typed(json.loads(text))


def test_integers_past_64_bits_stay_integers_and_bad_text_keeps_json_s_reason() -> None:
    assert decode_json('{"total": 123456789012345678901234567890}') == {"total": 123456789012345678901234567890}
    assert decode_json("[-9223372036854775809]") == [-9223372036854775809]
    assert decode_json('"\\ud800"') == "\ud800"  # a lone surrogate: msgspec refuses it, json reads it
    assert decode_json("[1e400]") == [float("inf")]  # past a double: json's infinity, as before
    refused = decode_json('{"a": ')
    assert isinstance(refused, Undecodable)
    assert refused.reason.startswith("Expecting value")  # json's words, not msgspec's
    deep = decode_json("[" * 10_000 + "]" * 10_000)
    assert isinstance(deep, Undecodable)
    assert deep.reason == "nested too deep to read"
    digits = decode_json("1" * 5_000)  # past Python's 4 300 digits
    assert isinstance(digits, Undecodable)
    assert "4300" in digits.reason


def _as_json_measures_it(summary: dict[str, Any]) -> dict[str, Any]:
    """The rule: kept whole up to SUMMARY_MAX_CHARS of ``json.dumps`` text, else a marker with its size."""
    size = len(json.dumps(summary, ensure_ascii=False))
    return summary if size <= states.SUMMARY_MAX_CHARS else {"truncated": True, "chars": size}


@settings(max_examples=60, deadline=None)
@given(
    st.integers(min_value=states.SUMMARY_MAX_CHARS // 8, max_value=states.SUMMARY_MAX_CHARS // 2),
    st.sampled_from([1, 1e-07, 1e16, "a", "å", None]),
)
def test_a_summary_near_the_limit_is_kept_or_marked_as_json_measures_it(items: int, value: Any) -> None:
    # Many short items: json's ", " separators and exponents make its text
    # longest against orjson's compact form, which the fast path measures.
    summary = {"participants": [value] * items}
    assert states._bounded_summary(summary) == _as_json_measures_it(summary)


def test_a_summary_one_character_over_the_limit_is_marked_with_its_size() -> None:
    filler = "x" * (states.SUMMARY_MAX_CHARS - len(json.dumps({"purpose": ""})))
    assert states._bounded_summary({"purpose": filler}) == {"purpose": filler}
    over = {"purpose": filler + "y"}
    assert states._bounded_summary(over) == {"truncated": True, "chars": states.SUMMARY_MAX_CHARS + 1}
