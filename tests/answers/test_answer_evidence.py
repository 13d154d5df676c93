"""Reading a stored raw_answer back into the pieces each source wrote (``reviewapp.answers.evidence``).

No database: the app's log entries are built in memory, as ``ClarificationEvent.objects`` would return them.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

from reviewapp.answers.evidence import RawPart, entered_by_firm, raw_answer_parts
from reviewapp.models import ClarificationEvent

FIRM = "Inmatat av byrån i granskningsappen 2026-08-12 11:31 CEST: Taxi"


def logged(question: str, before: Any, after: Any, **payload: Any) -> ClarificationEvent:
    return ClarificationEvent(
        event_type="ChannelQuestionAnswered",
        question_type=question,
        channel="app",
        payload={"before": before, "after": after, **payload},
        occurred_at=dt.datetime(2026, 8, 12, tzinfo=dt.UTC),
    )


def context(raw: str) -> dict[str, Any]:
    return {"context_answer": {"raw_answer": raw, "answered_at": "2026-08-12T09:31:07.123Z"}}


def test_the_firms_text_says_who_where_and_when_in_stockholm_time():
    summer = dt.datetime(2026, 8, 12, 9, 31, 59, tzinfo=dt.UTC)
    winter = dt.datetime(2026, 12, 31, 23, 5, tzinfo=dt.UTC)
    assert entered_by_firm("Taxi", summer) == FIRM
    assert entered_by_firm("Taxi", winter) == "Inmatat av byrån i granskningsappen 2027-01-01 00:05 CET: Taxi"


def test_text_no_app_answer_wrote_is_the_customers_words_from_the_chat():
    assert raw_answer_parts("nej", "representation", []) == (RawPart("nej", "chat"),)


def test_the_firms_text_and_the_customers_words_are_told_apart_in_one_raw_answer():
    first = logged("context", {}, context(FIRM), raw_answer_added=FIRM, raw_answer_via=None, amended=False)
    both = f"{FIRM}\ntaxin till Volvo"
    second = logged(
        "context", context(FIRM), context(both), raw_answer_added="taxin till Volvo", raw_answer_via="phone"
    )
    assert raw_answer_parts(both, "context", [first, second]) == (
        RawPart(FIRM, "review_app"),
        RawPart("taxin till Volvo", "phone"),
    )


def test_the_chats_half_answer_before_the_apps_answer_stays_the_chats():
    half = {"representation": {"raw_answer": "Elias"}}
    after = {"representation": {"raw_answer": f"Elias\n{FIRM}"}}
    event = logged("representation", half, after, raw_answer_added=FIRM, raw_answer_via=None)
    assert raw_answer_parts(f"Elias\n{FIRM}", "representation", [event]) == (
        RawPart("Elias", "chat"),
        RawPart(FIRM, "review_app"),
    )


@pytest.mark.parametrize(("source", "expected"), [("rendered", "review_app"), ("customer", "customer")])
def test_an_answer_logged_before_pieces_were_kept_is_one_piece_labelled_by_its_log(source, expected):
    event = logged("context", {}, context("Taxi"), raw_answer_source=source)
    assert raw_answer_parts("Taxi", "context", [event]) == (RawPart("Taxi", expected),)


def test_another_questions_answer_is_not_read_as_this_ones():
    event = logged("representation", {}, {"representation": {"raw_answer": "Taxi"}}, raw_answer_added="Taxi")
    assert raw_answer_parts("Taxi", "context", [event]) == (RawPart("Taxi", "chat"),)


def fixed(raw: str, kept: list[dict[str, str]]) -> ClarificationEvent:
    """``manage.py fix_context_answers``'s log entry: the row's raw_answer after the fix, and its pieces."""
    return ClarificationEvent(
        event_type="ContextAnswerFixed",
        question_type="context",
        channel="app",
        payload={"before": {}, "after": context(raw), "kept": kept},
        occurred_at=dt.datetime(2026, 8, 13, tzinfo=dt.UTC),
    )


def test_a_raw_answer_the_fix_left_is_read_as_the_fix_logged_its_pieces():
    # The answers' log alone would call the whole text the chat's; the fix says which piece came by phone.
    kept = [{"text": "lunch", "source": "chat"}, {"text": "\nmed Volvo", "source": "phone"}]
    log = [fixed("lunch\nmed Volvo", kept), fixed("något annat", [{"text": "något annat", "source": "email"}])]
    assert raw_answer_parts("lunch\nmed Volvo", "context", log) == (
        RawPart("lunch", "chat"),
        RawPart("\nmed Volvo", "phone"),
    )
    # A fix of another raw_answer (the row changed since) is not this text's story.
    assert raw_answer_parts("lunch", "context", log) == (RawPart("lunch", "chat"),)
