"""Reading the app's own log back: which entry is the app's latest answer, and which fix of it counts.

Log entries are built in memory (the functions read only their fields), so each case names exactly
the entries that must be passed over.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from reviewapp.answers.log import latest_for, written_value
from reviewapp.models import ClarificationEvent

T0 = dt.datetime(2026, 11, 2, 9, 0, tzinfo=dt.UTC)


def entry(
    pk: int,
    minutes: int,
    note: str,
    *,
    kind: str = ClarificationEvent.ANSWERED,
    question: str = "context",
    **extra: Any,
) -> ClarificationEvent:
    return ClarificationEvent(
        pk=pk,
        event_type=kind,
        channel=extra.get("channel", ClarificationEvent.Channel.APP),
        question_type=question,
        occurred_at=T0 + dt.timedelta(minutes=minutes),
        payload=extra.get("payload", {"after": {"user_note": note}}),
    )


def test_the_latest_answer_is_the_apps_own_to_this_question():
    own = entry(1, 0, "Taxi")
    later_others = [
        entry(2, 1, "Anna", question="representation"),  # another question
        entry(3, 2, "nej", channel=ClarificationEvent.Channel.WHATSAPP),  # the chat's answer
        entry(4, 3, "Taxi.", kind=ClarificationEvent.FIXED),  # a fix, not an answer
        entry(5, 4, "", payload={"before": {}}),  # an answer logged without "after"
    ]
    assert latest_for([own, *later_others], "context") is own


def test_of_two_fixes_at_the_same_instant_the_later_written_counts():
    answer = entry(1, 0, "Taxi via Anna")
    first_fix, second_fix = (
        entry(pk, 5, note, kind=ClarificationEvent.FIXED) for pk, note in ((2, "Taxi"), (3, "Taxi till kund"))
    )
    assert written_value([answer, first_fix, second_fix], answer, "context")["user_note"] == "Taxi till kund"
