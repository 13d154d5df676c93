"""A row whose derivation raised: indexed as malformed with why, its ids and times kept (``rows.Failures``)."""

from __future__ import annotations

import datetime as dt
import uuid

from reviewapp.core import states
from reviewapp.readmodel.rows import FAILURE_MESSAGE_MAX_CHARS, Failures, failure_reason

CREATED = dt.datetime(2026, 11, 1, 9, 0, tzinfo=dt.UTC)
UPDATED = dt.datetime(2026, 11, 2, 9, 0, tzinfo=dt.UTC)


def test_the_reason_keeps_a_200_character_message_whole_and_cuts_a_longer_one():
    assert FAILURE_MESSAGE_MAX_CHARS == 200
    assert failure_reason(ValueError("x" * 200)) == "could not be indexed: ValueError: " + "x" * 200
    assert failure_reason(ValueError("x" * 201)) == "could not be indexed: ValueError: " + "x" * 199 + "…"
    assert failure_reason(OverflowError()) == "could not be indexed: OverflowError"


def test_a_failed_row_keeps_its_ids_and_times_and_says_why():
    item_id, company_id, document_id, correlation_id = (uuid.uuid4() for _ in range(4))
    row = (item_id, company_id, None, CREATED, UPDATED, "{", "{", False, document_id, correlation_id, None, True)
    failures = Failures()

    values = failures.add(row, ValueError("bad JSON"))

    assert item_id in {uuid.UUID(key) for key in failures.errors}
    assert {key: values[key] for key in ("id", "company_id", "company_name", "document_id", "correlation_id")} == {
        "id": str(item_id),
        "company_id": str(company_id),
        "company_name": "",
        "document_id": str(document_id),
        "correlation_id": str(correlation_id),
    }
    assert values["whatsapp_message_id"] is None
    assert values["extraction_skipped"] is True
    assert (values["created_at"], values["source_updated_at"]) == (CREATED.isoformat(), UPDATED.isoformat())
    assert values["malformed_reason"] == "could not be indexed: ValueError: bad JSON"
    assert values[states.STATE_FIELDS[states.MALFORMED]] is True
