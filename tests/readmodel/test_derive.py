"""One row's columns as the read model derives them (``rows.index_values``), without a database."""

from __future__ import annotations

import datetime as dt
import json
import uuid

import pytest

from reviewapp.readmodel.rows import index_values

AT = dt.datetime(2026, 11, 1, 9, 0, tzinfo=dt.UTC)


def _row(extracted: object) -> tuple[object, ...]:
    return (
        uuid.uuid4(),
        uuid.uuid4(),
        "Firma AB",
        AT,
        AT,
        "null",
        json.dumps(extracted),
        False,
        None,
        None,
        None,
        False,
    )


@pytest.mark.parametrize(
    ("name", "shown"), [("Restaurang Tornet", "Restaurang Tornet"), ("   ", None), ("", None), (5, None)]
)
def test_a_blank_or_non_text_supplier_name_is_no_name(name, shown):
    assert index_values(_row({"supplier": {"name": name}}))["supplier_name"] == shown
