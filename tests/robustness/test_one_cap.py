"""One cap for every printed stored text: a row whose every string is 5 MB stops no page.

The per-field caps (``reviewapp.core.rendering_caps``) bound the fields someone
thought of; these tests walk every page, partial and JSON answer a row
reaches, with every string of the row (names, purpose, raw answers, note,
caption, supplier, company and file names, message bodies, history
payloads and actors, the app's log) 5 MB long, and assert that each answers
200 in under 1 MB. Two of them were measured on the main branch before the
global cap: a half answer with a 2 MB participant name (the answer form
pre-filled it: 3.2 MB) and an app answer replaced by a 5 MB note (the
"replaced" callout printed it whole: 15 MB).
"""

from __future__ import annotations

import datetime as dt
import json
import re
from typing import Any

import pytest
from django import forms
from django.contrib.auth.models import Permission, User
from django.template import engines
from django.test import Client
from django.urls import reverse
from django.utils.safestring import mark_safe

from devtools import intake_simulator as intake
from reviewapp.bookkeeping.models import Company, InboxItem
from reviewapp.core import rendering_caps
from reviewapp.models import ClarificationEvent
from tests import factories
from tests.answers.conftest import HTMX, make_conversation, representation_post
from tests.html import page_of
from tests.items.bookkeeping import accounted_event, app_event, make_document, make_message, make_phone_link

MB = 1_000_000
BIG = 5_000_000
ASKED_AT = "2026-11-01T09:00:00.000Z"


def big(tag: str) -> str:
    """A 5 MB string that starts with ``tag`` (so a test can tell which field leaked)."""
    return tag + " " + "x" * (BIG - len(tag) - 1)


def _huge_company() -> Company:
    return factories.make_company(name=big("company-name"), org_number=big("org-number"))


def _representation(*, status: str) -> dict[str, Any]:
    return {
        "participants": [
            {"name": big("participant-name-1"), "company": big("participant-company-1")},
            {"name": big("participant-name-2"), "company": big("participant-company-2")},
        ],
        "purpose": big("purpose"),
        "event_date": big("event-date"),
        "raw_answer": big("representation-raw-answer"),
        **({"answered_at": "2026-11-02T09:00:00.000Z"} if status == "answered" else {}),
    }


def _everything_huge(company: Company, *, question: str, status: str) -> InboxItem:
    """An item whose every stored string is 5 MB, with messages, history and app log entries to match."""
    document = make_document(
        company, file_name=big("file-name"), mime_type="image/" + big("mime"), storage_path="documents/x/kvitto.png"
    )
    context: dict[str, Any] = {
        "channel": "whatsapp",
        "caption": big("caption"),
        "user_note": big("user-note"),
        "mail_subject": big("mail-subject"),
        "pending_question": {"type": question, "status": status, "asked_at": ASKED_AT},
        "representation": _representation(status=status),
        "context_answer": {"raw_answer": big("context-raw-answer"), "answered_at": "2026-11-02T09:00:00.000Z"},
        big("a-key"): big("a-value"),
    }
    item = factories.make_item(
        company,
        document=document,
        channel_context=context,
        error_message=big("error-message"),
        extracted_data={
            "supplier": {"name": big("supplier")},
            "invoice": {"currency": big("currency"), "invoiceDate": big("invoice-date")},
            "totals": {"total": 125, "vatAmount": 25},
            "lineItems": [{"description": big("line-item")}],
        },
    )
    phone = make_phone_link(company, masked=big("phone-masked"))
    start = dt.datetime(2026, 11, 1, 9, 0, tzinfo=dt.UTC)
    make_message(
        item_id=item.pk,
        when=start,
        message_type="image",
        body=big("message-caption"),
        phone_link_id=phone,
        # Columns under a btree index hold at most about 2 700 bytes, in accounted's database too.
        wamid="wamid." + "w" * 2_000,
        media_mime="image/" + big("media-mime"),
        media_filename=big("media-filename"),
    )
    make_message(item_id=item.pk, when=start + dt.timedelta(minutes=1), body=big("message-body"), phone_link_id=phone)
    make_message(item_id=item.pk, when=start + dt.timedelta(minutes=2), direction="outbound", body=big("outbound-body"))
    accounted_event(
        item,
        "ChannelQuestionAsked",
        "2026-11-01T09:00:00Z",
        actor={"type": big("actor-type"), "id": big("actor-id"), "label": big("actor-label")},
        question_type=big("history-question-type"),
        question_text=big("question-text"),
    )
    accounted_event(
        item,
        "ChannelQuestionAnswered",
        "2026-11-01T10:00:00Z",
        raw_answer=big("history-raw-answer"),
        note=big("history-note"),
        nested={"deeper": [big("history-nested")]},
    )
    app_event(
        item,
        ClarificationEvent.ANSWERED,
        "2026-11-01T12:00:00Z",
        actor_label="handläggare " + "h" * 180,
        question_type="context",
        payload={
            "before": {"channel": "whatsapp", "user_note": big("log-before")},
            "after": {"channel": "whatsapp", "user_note": big("log-after"), "other": big("log-other")},
            "raw_answer_source": big("log-source"),
        },
    )
    return item


def _staff(user: User) -> Client:
    user.is_staff = True
    user.save(update_fields=["is_staff"])
    client = Client()
    client.force_login(user)
    return client


def _long_runs(content: bytes) -> list[str]:
    """What precedes each run of more than 100 000 ``x``: which stored strings came through long."""
    return [f"{content[max(0, m.start() - 40) : m.start()]!r}+{len(m.group())}" for m in _RUN.finditer(content)]


_RUN = re.compile(rb"x{100000,}")


def _check(response: Any, what: str, problems: list[str]) -> None:
    content = response.content if not response.streaming else b"".join(response.streaming_content)
    if response.status_code != 200 or len(content) >= MB:
        problems.append(f"{what}: {response.status_code}, {len(content)} bytes, {_long_runs(content)}")


def _walk(item: InboxItem, bookkeeper: User, support: User, qa: User) -> None:
    """Every page, partial and JSON answer that shows ``item``, each 200 and under 1 MB."""
    problems: list[str] = []
    company = {"company": str(item.company_id)}
    detail = reverse("item_detail", args=[item.pk])
    answer = reverse("item_answer", args=[item.pk])
    clients = {"bookkeeper": Client(), "support": Client(), "qa": Client()}
    for name, user in (("bookkeeper", bookkeeper), ("support", support), ("qa", qa)):
        clients[name].force_login(user)
    # QA sees what Support sees (the raw JSON, the whole conversation); only the preview differs.
    for name in ("bookkeeper", "support"):
        client = clients[name]
        _check(client.get(reverse("inbox"), company), f"list ({name})", problems)
        _check(client.get(reverse("inbox"), company, **HTMX), f"list, htmx ({name})", problems)
        _check(client.get(reverse("inbox"), {"q": "purpose"}), f"list, searched ({name})", problems)
        _check(client.get(detail), f"item page ({name})", problems)
        _check(client.get(detail, **HTMX), f"item page, htmx ({name})", problems)
        _check(client.get(reverse("api_items"), company), f"API list ({name})", problems)
        _check(client.get(reverse("api_item", args=[item.pk])), f"API item ({name})", problems)
    for name in ("qa", "support"):
        _check(clients[name].get(reverse("preview"), {"item": str(item.pk)}), f"preview ?item= ({name})", problems)
    writer = clients["bookkeeper"]
    _check(writer.get(answer), "answer page", problems)
    _check(writer.get(answer, **HTMX), "answer panel, htmx", problems)
    typed = representation_post([("Anna", "Kund AB")], purpose="Avtal", event_date="2026-11-01")
    _check(writer.post(reverse("item_answer_preview", args=[item.pk]), typed, **HTMX), "answer preview, htmx", problems)
    # A post the panel refuses (no participant named) re-renders it with what was typed.
    # A post the panel refuses (no participant named; or of another question: 409) re-renders it.
    refused = representation_post([], purpose="", action="save")
    for headers, what in (({}, "answer refused"), (HTMX, "answer refused, htmx")):
        response = writer.post(answer, refused, **headers)
        if response.status_code not in (200, 409) or len(response.content) >= MB:
            problems.append(f"{what}: {response.status_code}, {len(response.content)} bytes")
    for pk in (str(item.pk),):
        api = writer.post(
            reverse("api_item_answer", args=[pk]),
            json.dumps({"question": "context", "text": "x"}),
            content_type="application/json",
        )
        if api.status_code not in (200, 400, 409) or len(api.content) >= MB:
            problems.append(f"answer API: {api.status_code}, {len(api.content)} bytes")
    admin = _staff(factories.make_user(username="admin-" + str(item.pk)[:8], is_superuser=True))
    event = ClarificationEvent.objects.filter(item_id=item.pk).order_by("-pk").first()
    assert event is not None
    for url in (
        reverse("admin:reviewapp_indexeditem_changelist"),
        reverse("admin:reviewapp_indexeditem_changelist") + f"?company={item.company_id}",
        reverse("admin:reviewapp_indexeditem_change", args=[item.pk]),
        reverse("admin:reviewapp_clarificationevent_changelist"),
        reverse("admin:reviewapp_clarificationevent_change", args=[event.pk]),
    ):
        _check(admin.get(url), url, problems)
    assert problems == [], "\n".join(problems)


@pytest.mark.parametrize(
    ("question", "status"),
    [
        pytest.param("representation", "moved_to_app", id="half-answer-in-the-app"),
        pytest.param("context", "moved_to_app", id="context-in-the-app"),
    ],
)
def test_every_page_of_a_row_whose_every_string_is_5_mb_is_under_one_megabyte(
    question, status, bookkeeper, support, qa
):  # type: ignore[no-untyped-def]
    item = _everything_huge(_huge_company(), question=question, status=status)
    make_conversation(
        item,
        context={
            "recent_questions": [
                {"type": question, "inbox_item_id": str(item.pk), "asked_at": ASKED_AT, "status": status}
            ],
            "note": big("conversation-note"),
        },
    )

    _walk(item, bookkeeper, support, qa)


def test_an_app_answer_replaced_by_a_5_mb_note_keeps_every_page_under_one_megabyte(bookkeeper, support, qa):  # type: ignore[no-untyped-def]
    item = _everything_huge(_huge_company(), question="context", status="moved_to_app")
    make_conversation(item)
    writer = Client()
    writer.force_login(bookkeeper)
    saved = writer.post(reverse("item_answer", args=[item.pk]), {"question": "context", "text": "Taxi till kund"})
    assert saved.status_code == 302
    intake.answer_context(item.pk, text=big("replacing-note"))
    item.refresh_from_db()

    page = page_of(writer.get(reverse("item_detail", args=[item.pk])))
    assert "Taxi till kund" in page.text("answer-replaced-yours")
    assert "replacing-note xxx" in page.text("answer-replaced-now")
    _walk(item, bookkeeper, support, qa)


def test_an_app_answer_still_in_place_with_5_mb_texts_keeps_every_page_under_one_megabyte(bookkeeper, support, qa):  # type: ignore[no-untyped-def]
    item = _everything_huge(_huge_company(), question="context", status="moved_to_app")
    writer = Client()
    writer.force_login(bookkeeper)
    saved = writer.post(reverse("item_answer", args=[item.pk]), {"question": "context", "text": "Taxi till kund"})
    assert saved.status_code == 302
    # accounted's screens lengthen the note by appending to it: still the app's answer, now 5 MB.
    intake.follow_up(item.pk, text=big("follow-up"))

    _walk(item, bookkeeper, support, qa)


# --- The two measured cases -------------------------------------------------------------------------


def test_a_half_answer_with_a_2_mb_name_gives_answer_pages_under_one_megabyte(bookkeeper_client, company):  # type: ignore[no-untyped-def]
    name = "Anna " + "n" * 2_000_000
    item = factories.make_item(
        company,
        channel_context={
            "channel": "whatsapp",
            "pending_question": {"type": "representation", "status": "moved_to_app", "asked_at": ASKED_AT},
            "representation": {"participants": [{"name": name, "company": "Kund AB"}], "purpose": "Avtal"},
        },
    )

    for url in (reverse("item_detail", args=[item.pk]), reverse("item_answer", args=[item.pk])):
        response = bookkeeper_client.get(url)
        assert response.status_code == 200
        assert len(response.content) < MB, (url, len(response.content))


def test_an_app_answer_replaced_by_a_5_mb_note_gives_pages_under_one_megabyte(bookkeeper_client, company):  # type: ignore[no-untyped-def]
    item = factories.make_item(
        company,
        channel_context={
            "channel": "whatsapp",
            "pending_question": {"type": "context", "status": "moved_to_app", "asked_at": ASKED_AT},
        },
    )
    bookkeeper_client.post(reverse("item_answer", args=[item.pk]), {"question": "context", "text": "Taxi"})
    intake.answer_context(item.pk, text="n" * BIG)

    for url in (reverse("item_detail", args=[item.pk]), reverse("item_answer", args=[item.pk])):
        response = bookkeeper_client.get(url)
        assert response.status_code == 200
        assert len(response.content) < MB, (url, len(response.content))
    api = bookkeeper_client.get(reverse("api_item", args=[item.pk]))
    assert len(api.content) < MB


# --- Never pre-filled past a field's limit --------------------------------------------------------


def test_a_stored_name_longer_than_its_field_is_not_prefilled_but_quoted_with_a_note(bookkeeper_client, company):  # type: ignore[no-untyped-def]
    name = "Anna " + "n" * 2_000_000
    item = factories.make_item(
        company,
        channel_context={
            "channel": "whatsapp",
            "pending_question": {"type": "representation", "status": "moved_to_app", "asked_at": ASKED_AT},
            "representation": {"participants": [{"name": name, "company": "Kund AB"}], "purpose": "Avtal"},
        },
    )

    page = page_of(bookkeeper_client.get(reverse("item_answer", args=[item.pk])))

    values = page.values()
    assert values["participants-0-name"] in (None, "")
    assert values["participants-0-company"] == "Kund AB"
    assert page.text("id_purpose") == "Avtal"
    help_text = " ".join(page.text("id_participants-0-name_helptext").split())
    assert "The stored value has 2000005 characters, more than the 200 this field takes" in help_text
    assert "enter it anew" in help_text
    assert "It begins: “Anna nnnn" in help_text
    assert "nnn … [cut: the first 200 of 2000005 characters are shown]”" in help_text
    # A bookkeeper may not download the raw JSON: no link.
    assert reverse("item_raw", args=[item.pk, "channel_context"]) not in page.text("id_participants-0-name_helptext")


def test_a_note_longer_than_the_correction_takes_is_left_out_with_the_download_for_those_who_may(bookkeeper, company):  # type: ignore[no-untyped-def]
    bookkeeper.user_permissions.add(Permission.objects.get(codename="view_raw_context"))
    client = Client()
    client.force_login(User.objects.get(pk=bookkeeper.pk))
    item = factories.make_item(
        company,
        channel_context={
            "channel": "whatsapp",
            "pending_question": {"type": "context", "status": "moved_to_app", "asked_at": ASKED_AT},
        },
    )
    saved = client.post(reverse("item_answer", args=[item.pk]), {"question": "context", "text": "Taxi"})
    assert saved.status_code == 302
    intake.follow_up(item.pk, text="t" * 5_000)  # still the app's answer: a correction pre-fills the note

    response = client.get(reverse("item_detail", args=[item.pk]))

    page = page_of(response)
    assert page.text("id_text") == ""
    assert "has 5005 characters, more than the 2000 this field takes" in " ".join(page.text("id_text_helptext").split())
    links = [attrs.get("href") for _tag, attrs in page.all_tags() if "cut-download" in (attrs.get("class") or "")]
    assert reverse("item_raw", args=[item.pk, "channel_context"]) in links


# --- The one place: Jinja2's finalize, the JSON answers -------------------------------------------


def _render(source: str, **context: Any) -> str:
    return engines["jinja2"].from_string(source).render(context)


def test_every_printed_text_past_the_cap_is_cut_there_and_says_so_wherever_it_stands():
    cap = rendering_caps.PRINTED_TEXT_MAX_CHARS
    long = "<" + "x" * (cap + 99)

    in_text = _render("<p>{{ v }}</p>", v=long)
    in_attribute = _render('<input value="{{ v }}">', v=long)
    through_a_filter = _render("<pre>{{ v|exact_text }}</pre>", v=long)

    note = f" … [cut: the first {cap} of {cap + 100} characters are shown]"
    assert in_text == "<p>&lt;" + "x" * (cap - 1) + note + "</p>"
    assert in_attribute == '<input value="&lt;' + "x" * (cap - 1) + note + '">'
    assert through_a_filter == "<pre>&lt;" + "x" * (cap - 1) + note + "</pre>"
    assert _render("{{ v }}", v="x" * cap) == "x" * cap


def test_html_built_in_python_past_its_cap_is_left_out_not_cut_in_half():
    huge = mark_safe("<b>" + "y" * rendering_caps.PRINTED_MARKUP_MAX_CHARS + "</b>")  # noqa: S308 - a test value

    shown = _render("<div>{{ v }}</div>", v=huge)

    assert shown == f"<div>[left out: {len(huge)} characters, more than a page shows]</div>"
    assert _render("{{ v }}", v=mark_safe("<b>kort</b>")) == "<b>kort</b>"


def test_a_form_field_is_never_prefilled_with_more_than_the_cap():
    class Free(forms.Form):
        text = forms.CharField(widget=forms.Textarea)

    form = Free(initial={"text": "z" * (rendering_caps.PRINTED_TEXT_MAX_CHARS + 1)})

    assert "zzz" not in str(form["text"])
    assert "kort" in str(Free(initial={"text": "kort"})["text"])


def test_every_string_of_a_json_answer_is_cut_at_the_cap_and_its_object_says_where():
    cap = rendering_caps.PRINTED_TEXT_MAX_CHARS
    data = {"a": "x" * (cap + 5), "ok": "kort", "lines": ["l" * (cap + 7)], "inner": {"b": "y" * (cap + 1)}}

    cut = rendering_caps.capped_for_json(data)

    assert cut["a"] == "x" * cap
    assert cut["lines"] == ["l" * cap]
    assert cut["truncated"] == {"a": cap + 5, "lines.0": cap + 7}
    assert cut["inner"] == {"b": "y" * cap, "truncated": {"b": cap + 1}}
    assert data["a"] == "x" * (cap + 5)  # the view's own data is left as it was
    small = {"a": ["b", {"c": "d"}]}
    assert rendering_caps.capped_for_json(small) is small
