"""``manage.py fix_context_answers``: the app's text out of the customer's own words, in rows written the old way.

The rows are written as the app wrote context answers before the change:
``user_note`` the answer, ``context_answer.raw_answer`` the customer's words
or ``ENTERED_BY_FIRM``, a correction appended after ``"\\n"``, and the app's
log entry with the whole context before and after.
"""

from __future__ import annotations

import copy
import datetime as dt
import io
from typing import Any

from django.core.management import call_command

import clarifications
from reviewapp.answers.evidence import RawPart, raw_answer_parts
from reviewapp.answers.log import app_answer_in_place, app_answers
from reviewapp.bookkeeping.models import InboxItem
from reviewapp.models import ClarificationEvent
from tests.answers.conftest import moved_item, stored_context

T1 = dt.datetime(2026, 8, 12, 9, 31, 7, 123000, tzinfo=dt.UTC)
T2 = T1 + dt.timedelta(minutes=5)
F1 = "Inmatat av byrån i granskningsappen 2026-08-12 11:31 CEST: Taxi"
F2 = "Inmatat av byrån i granskningsappen 2026-08-12 11:36 CEST: Taxi till Volvo"


def agent_lines(ctx: object) -> list[str]:
    summary = clarifications.analyse(ctx).summary
    return list(clarifications.render_lines(summary)) if summary is not None else []


def old_rule_answer(
    item: InboxItem, user: Any, *, text: str, added: str, at: dt.datetime, via: str | None = None, amended: bool = False
) -> dict[str, Any]:
    """One context answer as the app wrote it before: ``added`` appended to ``context_answer.raw_answer``."""
    before = stored_context(item)
    after = copy.deepcopy(before)
    held = (before.get("context_answer") or {}).get("raw_answer")
    stamp = at.strftime("%Y-%m-%dT%H:%M:%S.") + f"{at.microsecond // 1000:03d}Z"
    after["user_note"] = text
    after["context_answer"] = {"raw_answer": f"{held}\n{added}" if held else added, "answered_at": stamp}
    after["pending_question"] = {**before["pending_question"], "status": "answered"}
    InboxItem.objects.filter(pk=item.pk).update(channel_context=after)
    ClarificationEvent.objects.create(
        item_id=item.pk,
        event_type=ClarificationEvent.ANSWERED,
        question_type="context",
        actor=user,
        actor_label=user.get_username(),
        channel=ClarificationEvent.Channel.APP,
        payload={
            "before": before,
            "after": after,
            "amended": amended,
            "raw_answer_source": "customer" if via else "rendered",
            "raw_answer_via": via,
            "raw_answer_added": added,
        },
        occurred_at=at,
    )
    return after


def run(*args: str) -> str:
    out = io.StringIO()
    call_command("fix_context_answers", *args, stdout=out)
    return out.getvalue()


def test_the_dry_run_lists_the_row_and_changes_nothing(bookkeeper):
    item = moved_item("context")
    old = old_rule_answer(item, bookkeeper, text="Taxi", added=F1, at=T1)

    output = run("--dry-run")

    assert f"{item.pk}: would change" in output
    assert "would fix 1, left alone 0" in output
    assert stored_context(item) == old
    assert not ClarificationEvent.objects.filter(event_type=ClarificationEvent.FIXED).exists()


def test_the_firms_answer_and_its_correction_leave_only_the_current_note_for_the_agent(bookkeeper):
    item = moved_item("context")
    old_rule_answer(item, bookkeeper, text="Taxi", added=F1, at=T1)
    old = old_rule_answer(item, bookkeeper, text="Taxi till Volvo", added=F2, at=T2, amended=True)
    assert "användarens egna ord: " + F1 in " ".join(agent_lines(old))  # the old rule's lie

    output = run()

    ctx = stored_context(item)
    assert "context_answer" not in ctx
    assert ctx["user_note"] == "Taxi till Volvo"
    assert agent_lines(ctx) == ["anteckning från användaren: Taxi till Volvo"]
    assert "fixed 1, left alone 0" in output
    # Nothing is lost: the old row is in the app's log, with who and why.
    fix = ClarificationEvent.objects.get(item_id=item.pk, event_type=ClarificationEvent.FIXED)
    assert fix.payload["before"] == old
    assert fix.payload["after"] == ctx
    assert fix.payload["removed"] == [F1, F2]
    assert fix.actor_label == "fix_context_answers"
    assert "reason" in fix.payload
    # A second run finds nothing left to do.
    assert "fixed 0, left alone 0" in run()


def test_the_chats_words_stay_verbatim_and_the_firms_text_goes(bookkeeper):
    item = moved_item(
        "context", context_answer={"raw_answer": "lunch med kund", "answered_at": "2026-08-01T10:00:00.000Z"}
    )
    old_rule_answer(item, bookkeeper, text="Lunch med Volvo", added=F1, at=T1)

    run()

    ctx = stored_context(item)
    assert ctx["context_answer"]["raw_answer"] == "lunch med kund"
    assert agent_lines(ctx) == [
        "anteckning från användaren: Lunch med Volvo",
        "användarens egna ord: lunch med kund",
    ]


def test_the_customers_words_given_by_phone_stay_and_the_answer_stays_the_apps_to_correct(bookkeeper):
    item = moved_item("context")
    old_rule_answer(item, bookkeeper, text="Taxi", added="taxin till kunden", at=T1, via="phone")
    old_rule_answer(item, bookkeeper, text="Taxi till Volvo", added=F2, at=T2, amended=True)

    run()

    ctx = stored_context(item)
    assert ctx["context_answer"]["raw_answer"] == "taxin till kunden"
    assert ctx["user_note"] == "Taxi till Volvo"
    # The fixed row is still the app's answer: not "replaced by another program", and still correctable here.
    assert app_answer_in_place(ctx, "context", app_answers(item.pk)) is not None
    # And the words are still labelled as the customer's, by phone.
    assert raw_answer_parts(ctx["context_answer"]["raw_answer"], "context", app_answers(item.pk)) == (
        RawPart("taxin till kunden", "phone"),
    )
    # The fix logs the pieces it kept with their sources (what labels them from now on).
    fix = ClarificationEvent.objects.get(item_id=item.pk, event_type=ClarificationEvent.FIXED)
    assert fix.payload["kept"] == [{"text": "taxin till kunden", "source": "phone"}]


def test_an_empty_note_gets_the_firms_latest_answer(bookkeeper):
    item = moved_item("context")
    old = old_rule_answer(item, bookkeeper, text="Taxi", added=F1, at=T1)
    emptied = {**old, "user_note": ""}
    InboxItem.objects.filter(pk=item.pk).update(channel_context=emptied)

    run()

    assert agent_lines(stored_context(item)) == ["anteckning från användaren: Taxi"]


def test_firm_text_the_log_cannot_place_is_listed_and_left_alone(bookkeeper):
    item = moved_item("context")
    old_rule_answer(item, bookkeeper, text="Taxi", added=F1, at=T1)
    # Someone else rewrote the row since: the log no longer says which piece is whose.
    rewritten = {**stored_context(item), "context_answer": {"raw_answer": "ja\n" + F2, "answered_at": "x"}}
    InboxItem.objects.filter(pk=item.pk).update(channel_context=rewritten)

    output = run()

    assert f"{item.pk}: left alone" in output
    assert stored_context(item) == rewritten


def test_firm_text_among_the_customers_words_leaves_the_row_alone_even_beside_a_placed_answer(bookkeeper):
    # The log places the first (firm) answer, but the second answer's words, given by phone,
    # read like the firm's text: which is whose cannot be told, so nothing is taken out.
    item = moved_item("context")
    old_rule_answer(item, bookkeeper, text="Taxi", added=F1, at=T1)
    before = old_rule_answer(item, bookkeeper, text="Taxi till Volvo", added=F2, at=T2, via="phone", amended=True)

    output = run()

    assert f"{item.pk}: left alone" in output
    assert stored_context(item) == before
