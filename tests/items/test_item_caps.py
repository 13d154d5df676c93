"""Render caps on the item page and its API.

A 300 KB stored row holding a 26 MB string once gave a 173 MB item page;
20 KB of JSON nested 5 000 deep pretty-printed to 48 MB. Every stored text
is now cut to its cap with a marker, the raw JSON is indented to a fixed
depth and cut, and "Show all" downloads the whole stored value. The bound
(``reviewapp.core.rendering_caps.PAGE_MAX_CHARS``) is 1 MB of stored text per
page or API answer; the tests assert the size of whole responses.
"""

from __future__ import annotations

import datetime as dt
import json
from typing import Any

import pytest
from django.urls import reverse

from clarifications import phrases
from reviewapp.bookkeeping.models import InboxItem
from reviewapp.core import rendering_caps
from reviewapp.models import ClarificationEvent, GoldenCase
from tests import factories
from tests.html import page_of
from tests.items.bookkeeping import accounted_event, app_event, make_document, make_message, resend_answer

MB = 1_000_000
HUGE = 26_000_000
ASKED_AT = "2026-11-01T09:00:00Z"


def _nested(levels: int) -> Any:
    value: Any = "botten"
    for _ in range(levels):
        value = {"a": [value]}
    return value


def page(client, item):  # type: ignore[no-untyped-def]
    return client.get(reverse("item_detail", args=[item.pk]))


def api(client, item):  # type: ignore[no-untyped-def]
    return client.get(reverse("api_item", args=[item.pk]))


def _huge_note_item(company) -> InboxItem:  # type: ignore[no-untyped-def]
    return factories.make_item(
        company,
        channel_context={
            "channel": "whatsapp",
            "user_note": "n" * HUGE,
            "pending_question": {"type": "context", "asked_at": ASKED_AT, "status": "answered"},
        },
    )


# --- A 26 MB string ---------------------------------------------------------------------------------


@pytest.mark.parametrize("who", ["bookkeeper_client", "support_client"])
def test_a_26_mb_note_gives_an_item_page_under_one_megabyte_with_a_marker(who, request, company):
    item = _huge_note_item(company)

    response = page(request.getfixturevalue(who), item)

    assert response.status_code == 200
    assert len(response.content) < MB
    human = page_of(response).text("human-said")
    assert "n" * rendering_caps.HUMAN_TEXT_MAX_CHARS in human
    assert "n" * (rendering_caps.HUMAN_TEXT_MAX_CHARS + 1) not in human
    marker = f"… (cut: the first {rendering_caps.HUMAN_TEXT_MAX_CHARS} of {HUGE} characters are shown)"
    assert marker in " ".join(human.split())


@pytest.mark.parametrize("who", ["bookkeeper_client", "support_client"])
def test_a_26_mb_note_gives_an_api_answer_under_one_megabyte_saying_what_was_cut(who, request, company):
    item = _huge_note_item(company)

    response = api(request.getfixturevalue(who), item)

    assert response.status_code == 200
    assert len(response.content) < MB
    data = response.json()
    assert data["human"]["user_note"] == "n" * rendering_caps.HUMAN_TEXT_MAX_CHARS
    assert data["human"]["truncated"] == {"user_note": HUGE}
    assert len(data["summary"]["userNote"]) <= rendering_caps.HUMAN_TEXT_MAX_CHARS
    assert "summary" in data["truncated"]
    prefix = phrases.USER_NOTE_PREFIX
    assert data["lines"] == [prefix + "n" * (rendering_caps.LINES_MAX_CHARS - len(prefix))]
    assert data["truncated"]["lines"] == len(prefix) + HUGE
    assert "\n".join(data["agent_view"]).endswith("n" * 1000)
    assert len("\n".join(data["agent_view"])) <= rendering_caps.AGENT_VIEW_MAX_CHARS + len(data["agent_view"])


def test_the_api_replaces_a_raw_context_past_the_cap_with_where_to_download_it(support_client, company):
    item = _huge_note_item(company)

    data = api(support_client, item).json()

    download = reverse("item_raw", args=[item.pk, "channel_context"])
    assert data["channel_context"]["truncated"] is True
    assert data["channel_context"]["download"] == download
    assert data["channel_context"]["original_chars"] > HUGE
    whole = b"".join(support_client.get(download).streaming_content)
    assert json.loads(whole)["user_note"] == "n" * HUGE


def test_the_api_gives_a_raw_context_within_the_cap_as_it_is(support_client, company):
    context = {"channel": "whatsapp", "user_note": "kort", "extra": {"deep": [1, 2, {"x": None}]}}
    item = factories.make_item(company, channel_context=context)

    data = api(support_client, item).json()

    assert data["channel_context"] == context
    assert "truncated" not in data


def test_a_26_mb_supplier_name_is_cut_in_the_title_the_header_and_the_api(bookkeeper_client, company):
    item = factories.make_item(company, extracted_data={"supplier": {"name": "S" * HUGE}, "totals": {"total": 5}})

    response = page(bookkeeper_client, item)
    data = api(bookkeeper_client, item).json()

    assert len(response.content) < MB
    cap = rendering_caps.SHORT_TEXT_MAX_CHARS
    assert f"<title>{'S' * cap}" in response.content.decode()
    assert data["supplier"] == "S" * cap
    assert data["truncated"]["supplier"] == HUGE
    assert len(api(bookkeeper_client, item).content) < MB


def test_a_huge_company_and_file_name_are_cut_where_they_stand(bookkeeper_client):
    company = factories.make_company(name="Bolag " + "b" * 100_000)
    document = make_document(company, file_name="kvitto " + "k" * 100_000 + ".png")
    item = factories.make_item(company, document=document)

    response = page(bookkeeper_client, item)
    data = api(bookkeeper_client, item).json()

    cap = rendering_caps.SHORT_TEXT_MAX_CHARS
    assert len(response.content) < 100_000
    assert data["company"]["name"] == ("Bolag " + "b" * 100_000)[:cap]
    assert data["company"]["truncated"] == {"name": len("Bolag ") + 100_000}
    assert data["document"]["file_name"] == ("kvitto " + "k" * 100_000)[:cap]
    assert data["document"]["truncated"] == {"file_name": len("kvitto ") + 100_000 + len(".png")}
    facts = page_of(response).words("document-facts")
    assert f"(cut: the first {cap} of {len('kvitto ') + 100_004} characters are shown)" in facts


def test_the_agent_view_is_shown_whole_and_exact_past_the_cap_of_one_text(bookkeeper_client, company):
    # Longer than what the human said may show (10 000), shorter than the agent view's cap.
    note = "ord " * 12_000
    item = factories.make_item(company, channel_context={"channel": "whatsapp", "user_note": note})

    shown = page_of(page(bookkeeper_client, item))
    data = api(bookkeeper_client, item).json()

    agent = shown.text("agent-view-text")
    assert phrases.USER_NOTE_PREFIX + note.strip() in agent
    assert agent == "\n".join(data["agent_view"])
    assert not shown.has("agent-view-cut")
    assert "agent_view" not in data.get("truncated", {})


def test_an_agent_view_past_its_cap_says_so_and_support_can_download_the_whole(support_client, company):
    item = _huge_note_item(company)

    shown = page_of(page(support_client, item))

    assert len(shown.text("agent-view-text")) <= rendering_caps.AGENT_VIEW_MAX_CHARS + 10
    warning = shown.words("agent-view-cut")
    told = len("  • invoice_inbox: ") < len(shown.text("agent-view-text"))
    assert told
    assert warning.startswith("The agent is told ")
    assert f"only the first {len(shown.text('agent-view-text'))} are shown here" in warning
    links = [attrs["href"] for tag, attrs in shown.all_tags() if "cut-download" in (attrs.get("class") or "")]
    assert reverse("item_raw", args=[item.pk, "channel_context"]) in links


# --- JSON nested 5 000 deep -----------------------------------------------------------------------


def test_json_nested_5000_deep_renders_a_bounded_page_indented_to_a_fixed_depth(support_client, company):
    context = {"channel": "whatsapp", "deep": _nested(2_500)}  # 5 000 levels, about 20 KB
    item = factories.make_item(company, channel_context=context)

    response = page(support_client, item)

    assert response.status_code == 200
    assert len(json.dumps(context)) < 25_000
    assert len(response.content) < 200_000
    raw = page_of(response).text("raw-context-text")
    assert json.loads(raw) == context
    deepest = max(len(line) - len(line.lstrip(" ")) for line in raw.split("\n"))
    assert deepest == 2 * rendering_caps.JSON_INDENT_DEPTH
    api_response = api(support_client, item)
    assert api_response.status_code == 200
    assert len(api_response.content) < 200_000


def test_the_raw_panel_past_its_cap_links_the_download_of_the_whole_value(support_client, company):
    context = {"channel": "whatsapp", "caption": "ä" * 300_000, "user_note": "kort"}
    item = factories.make_item(company, channel_context=context)

    shown = page_of(page(support_client, item))

    raw = shown.text("raw-context-text")
    assert len(raw) == rendering_caps.RAW_JSON_MAX_CHARS
    assert raw.startswith('{\n  "caption": "ääää')  # jsonb keeps shorter keys first
    (download,) = [attrs["href"] for tag, attrs in shown.all_tags() if attrs.get("id") == "raw-context-download"]
    assert download == reverse("item_raw", args=[item.pk, "channel_context"])
    whole = b"".join(support_client.get(download).streaming_content)
    assert json.loads(whole) == context


def test_a_bookkeeper_gets_the_markers_but_no_download_link(bookkeeper_client, company):
    item = factories.make_item(company, channel_context={"channel": "whatsapp", "caption": "c" * 50_000})

    response = page(bookkeeper_client, item)

    assert "cut-marker" in response.content.decode()
    assert reverse("item_raw", args=[item.pk, "channel_context"]) not in response.content.decode()


# --- Lists of anything ------------------------------------------------------------------------------


def test_ten_thousand_participants_show_the_first_hundred_and_say_how_many_there_were(bookkeeper_client, company):
    people = [{"name": f"Gäst {n} " + "x" * 1_000, "company": "Bolag " + "y" * 1_000} for n in range(10_000)]
    context = {"channel": "whatsapp", "representation": {"participants": people, "purpose": "möte"}}
    item = factories.make_item(company, channel_context=context)

    response = page(bookkeeper_client, item)
    data = api(bookkeeper_client, item).json()

    assert len(response.content) < MB
    assert len(api(bookkeeper_client, item).content) < MB
    human = page_of(response).words("human-said")
    assert "Gäst 99 " in human
    assert "Gäst 100 " not in human
    assert "(cut: the first 100 of 10000 are shown)" in human
    assert len(data["human"]["participants"]) == rendering_caps.PARTICIPANTS_MAX
    assert data["human"]["truncated"]["participants"] == 10_000
    first = data["human"]["participants"][0]
    assert first["name"] == ("Gäst 0 " + "x" * 1_000)[: rendering_caps.PERSON_TEXT_MAX_CHARS]
    assert first["truncated"] == {"name": len("Gäst 0 ") + 1_000, "company": len("Bolag ") + 1_000}


def test_a_flooded_conversation_shows_its_latest_messages_within_the_bound(support_client, company):
    item = factories.make_item(company)
    start = dt.datetime(2026, 11, 1, 9, 0, tzinfo=dt.UTC)
    for n in range(250):
        make_message(item_id=item.pk, when=start + dt.timedelta(minutes=n), body=f"meddelande {n:03} " + "m" * 20_000)

    response = page(support_client, item)
    data = api(support_client, item).json()

    assert len(response.content) < MB
    assert len(api(support_client, item).content) < MB
    messages = data["conversation"]["messages"]
    latest = messages[-1]
    assert latest["body"].startswith("meddelande 249 ")
    assert len(latest["body"]) == rendering_caps.MESSAGE_MAX_CHARS
    assert latest["truncated"] == {"body": len("meddelande 249 ") + 20_000}
    assert sum(len(m["body"] or "") for m in messages) <= rendering_caps.TRANSCRIPT_MAX_CHARS
    assert "meddelande 249 " in page_of(response).text("conversation")


def test_a_flooded_history_stays_within_the_bound(bookkeeper_client, bookkeeper, company):
    item = factories.make_item(company)
    for n in range(250):
        actor = {"type": "user", "id": f"u{n}", "label": f"handläggare {n:03} " + "h" * 5_000}
        accounted_event(item, "ChannelQuestionAsked", f"2026-11-01T09:{n // 60:02}:{n % 60:02}Z", actor=actor)
    big = {"channel": "whatsapp", "user_note": "f" * 100_000, **{f"nyckel{n}" + "k" * 600: n for n in range(100)}}
    app_event(
        item,
        ClarificationEvent.ANSWERED,
        "2026-11-02T09:00:00Z",
        actor=bookkeeper,
        payload={"before": {"channel": "whatsapp"}, "after": big},
    )

    response = page(bookkeeper_client, item)
    data = api(bookkeeper_client, item).json()

    assert len(response.content) < MB
    assert len(api(bookkeeper_client, item).content) < MB
    answered = data["events"][-1]
    assert answered["event_type"] == ClarificationEvent.ANSWERED
    change = answered["change"]
    assert len(change["changed_keys"]) == 50
    assert change["truncated"]["changed_keys"] == 101
    assert change["changed_keys"][1]["truncated"] == {"key": len("nyckel0") + 600}
    assert len("\n".join(change["lines_after"])) <= rendering_caps.CHANGE_LINES_MAX_CHARS
    assert change["truncated"]["lines_after"] == len(phrases.USER_NOTE_PREFIX) + 100_000
    actors = [event["actor"] for event in data["events"] if event["source"] == "accounted"]
    assert actors[-1].startswith("handläggare 249 ")
    assert len(actors[-1]) == rendering_caps.SHORT_TEXT_MAX_CHARS


def test_every_text_huge_at_once_stays_under_the_bound(support_client, support, company):
    """The worst row: every stored text the page shows is huge, every list full."""
    long = "w" * 2_000_000
    document = make_document(company, file_name="f" * 100_000 + ".png", mime_type="image/" + "p" * 100_000)
    people = [{"name": long[:50_000], "company": long[:50_000]} for _ in range(200)]
    context = {
        "channel": "c" * 100_000,
        "caption": long,
        "user_note": long,
        "event_date": long,
        "representation": {"participants": people, "purpose": long, "raw_answer": long},
        "context_answer": {"raw_answer": long + "x"},
        "pending_question": {"type": "t" * 100_000, "asked_at": ASKED_AT, "status": "moved_to_app"},
        **{f"bad{n}": None for n in range(10)},
    }
    item = factories.make_item(
        company,
        document=document,
        channel_context=context,
        extracted_data={"supplier": {"name": long}, "invoice": {"currency": long, "invoiceDate": long}},
    )
    start = dt.datetime(2026, 11, 1, 9, 0, tzinfo=dt.UTC)
    for n in range(210):
        make_message(
            item_id=item.pk,
            when=start + dt.timedelta(minutes=n),
            body="b" * 10_000,
            media_filename="m" * 10_000,
            media_mime="image/" + "i" * 10_000,
        )
        actor = {"type": "u" * 1_000, "id": "x", "label": "a" * 10_000}
        accounted_event(item, "ChannelQuestionAsked", (start + dt.timedelta(minutes=n)).isoformat(), actor=actor)
    for _ in range(25):
        resend_answer(item, factories.make_item(company, extracted_data={"supplier": {"name": long}}), ASKED_AT)
        resend_answer(factories.make_item(company), item, ASKED_AT)

    response = page(support_client, item)
    api_response = api(support_client, item)

    assert response.status_code == api_response.status_code == 200
    assert len(response.content) < 1.2 * MB
    assert len(api_response.content) < 1.2 * MB


# --- The preview and golden cases load only what they can show ---------------------------------------


def test_the_preview_refuses_to_load_an_item_larger_than_it_accepts(qa_client, company):
    item = _huge_note_item(company)

    response = qa_client.get(reverse("preview") + f"?item={item.pk}")

    assert response.status_code == 200
    assert len(response.content) < 200_000
    assert "cannot be loaded: its channel_context is more than the 256 KiB the preview accepts" in (
        response.content.decode()
    )


def test_a_golden_case_is_not_saved_from_an_item_larger_than_the_preview_accepts(qa_client, company):
    item = _huge_note_item(company)

    response = qa_client.post(reverse("golden_case_create"), {"item": str(item.pk), "name": "jätte"})

    assert response.status_code == 200
    assert len(response.content) < 200_000
    assert not GoldenCase.objects.filter(name="jätte").exists()


# --- A value too long to render whole (issue 35) ----------------------------------------------------


def test_a_giant_note_past_the_rendering_bound_says_where_it_is_cut(support_client, company):
    # Whitespace-heavy, so rendering it whole would mean collapsing 26 MB.
    note = "Middag  med\n\tkunden " * (HUGE // 20)
    item = factories.make_item(company, channel_context={"channel": "whatsapp", "user_note": note})

    response = page(support_client, item)
    data = api(support_client, item).json()

    shown = page_of(response)
    agent = shown.text("agent-view-text")
    # The seed's rule: every white-space run becomes one space.
    assert "    - anteckning från användaren: Middag med kunden Middag med kunden " in agent
    warning = shown.words("agent-view-cut")
    assert warning.startswith("The agent is told at most ")
    assert "(a stored text is too long to render whole here)" in warning
    assert f"only the first {len(agent)} are shown here" in warning
    human = " ".join(shown.text("human-said").split())
    trimmed = len(note) - 1  # the note is trimmed, as the seed's `user_note?.trim()`
    assert f"(cut: the first {rendering_caps.HUMAN_TEXT_MAX_CHARS} of {trimmed} characters are shown)" in human
    assert data["rendered_whole"] is False
    assert data["truncated"]["lines"] <= len("anteckning från användaren: ") + len(note)
    assert data["lines"][0].startswith("anteckning från användaren: Middag med kunden Middag")


def test_a_note_within_every_cap_is_not_said_to_be_cut(support_client, company):
    item = factories.make_item(company, channel_context={"channel": "whatsapp", "user_note": "  Lunch\n\nmed  kunden "})

    shown = page_of(page(support_client, item))
    data = api(support_client, item).json()

    assert "    - anteckning från användaren: Lunch med kunden" in shown.text("agent-view-text")
    assert not shown.has("agent-view-cut")
    assert "rendered_whole" not in data
    assert "truncated" not in data
