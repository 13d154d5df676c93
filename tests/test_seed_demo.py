"""seed_demo: accounted's tables filled as the intake writes them, only in a replica, every state covered."""

from __future__ import annotations

import datetime as dt
import hashlib
import io
import json
import re
from collections import Counter
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from django.conf import settings as django_settings
from django.contrib.auth import authenticate
from django.contrib.auth.models import User
from django.core.files.storage import storages
from django.core.management import CommandError, call_command
from django.db import connections
from django.test import Client

import clarifications
from devtools.demo import DemoData
from devtools.demo_rows import ITEM_COLUMNS, organisation
from reviewapp.bookkeeping.models import (
    Company,
    DocumentAttachment,
    InboxItem,
    ProcessingHistory,
    WhatsappConversation,
    WhatsappMessage,
    WhatsappPhoneLink,
)
from reviewapp.bookkeeping.routers import BOOKKEEPING_DB
from reviewapp.core import states
from reviewapp.core.stored_json import Undecodable
from reviewapp.models import ClarificationEvent, GoldenCase, IndexedItem
from reviewapp.overview import numbers
from reviewapp.readmodel import sync
from tests.overview.conftest import expected_from_the_log

NOW = "2026-11-30T09:00:00+00:00"
NOW_DT = dt.datetime(2026, 11, 30, 9, tzinfo=dt.UTC)
GOLDEN = Path(django_settings.BASE_DIR).parent / "shared" / "golden" / "clarifications.jsonl"
JS_ISO = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")


def _seed(**options) -> str:  # type: ignore[no-untyped-def]
    out = io.StringIO()
    options.setdefault("no_users", True)
    call_command("seed_demo", stdout=out, now=NOW, allow_production=True, **options)
    return out.getvalue()


def _sql(query: str, params: list | None = None) -> list[tuple]:
    with connections[BOOKKEEPING_DB].cursor() as cursor:
        cursor.execute(query, params or [])
        return list(cursor.fetchall()) if cursor.description else []


def _pending(item: InboxItem) -> dict | None:
    ctx = item.channel_context
    pending = ctx.get("pending_question") if isinstance(ctx, dict) else None
    return pending if isinstance(pending, dict) else None


@pytest.mark.django_db
def test_it_refuses_a_database_that_is_not_a_replica_and_writes_nothing():
    # A real accounted database has no replica mark on its public schema.
    _sql("COMMENT ON SCHEMA public IS NULL")
    with pytest.raises(CommandError, match="not a replica made by create_bookkeeping_replica"):
        call_command("seed_demo", items=20, stdout=io.StringIO(), allow_production=True)
    assert not InboxItem.objects.exists()
    assert not Company.objects.exists()
    assert _sql("SELECT count(*) FROM auth.users") == [(0,)]
    assert not IndexedItem.objects.exists()
    assert not ClarificationEvent.objects.exists()
    assert not User.objects.exists()
    assert not GoldenCase.objects.exists()


@pytest.mark.django_db
def test_a_small_seed_puts_an_item_in_every_state_of_the_list():
    _seed(items=60, seed=3)
    assert IndexedItem.objects.count() == 60
    for key, field in states.STATE_FIELDS.items():
        assert IndexedItem.objects.filter(**{field: True}).exists(), f"no demo item in state {key}"
    for state in ("state_needs_answer", "state_waiting_in_chat"):
        types = set(IndexedItem.objects.filter(**{state: True}).values_list("open_question_type", flat=True))
        assert types == {"representation", "context", "resend"}, state


@pytest.mark.django_db
def test_the_read_model_agrees_with_the_library_on_every_demo_item():
    _seed(items=150, seed=5)
    indexed = {row.pk: row for row in IndexedItem.objects.all()}
    items = list(InboxItem.objects.all())
    assert len(items) == len(indexed) == 150
    for item in items:
        ctx = item.channel_context
        if isinstance(ctx, Undecodable):
            assert set(indexed[item.pk].state_keys) == {"malformed", "no_answers"}
            continue
        # answer_replaced comes from the app's answer log, not the row: its own test is below.
        shown = set(indexed[item.pk].state_keys) - {"answer_replaced"}
        if clarifications.analyse(ctx).problems:
            # Wrong types: the seed's rules do not say what they mean; the row says "malformed".
            assert "malformed" in shown, ctx
            continue
        assert shown == _seed_states(ctx, booked=item.is_booked), ctx


def _trimmed(value: object) -> str | None:
    return value.strip() or None if isinstance(value, str) else None


def _seed_states(ctx: dict | None, *, booked: bool) -> set[str]:
    """The states, written out from the seed's summariseClarifications, not from reviewapp.core.states."""
    found = {"booked"} if booked else set()
    if not ctx:
        return found | {"no_answers"}
    rep = ctx.get("representation") or {}
    denied = rep.get("denied") is True
    participants = [p for p in rep.get("participants") or [] if (p.get("name") or "").strip()]
    purpose = _trimmed(rep.get("purpose"))
    answered_representation = not denied and (participants or purpose)
    note = _trimmed(ctx.get("user_note"))
    context_answer = _trimmed((ctx.get("context_answer") or {}).get("raw_answer"))
    pending = ctx.get("pending_question") or {}
    status = pending.get("status") if pending.get("status") in ("open", "moved_to_app") else None
    if not (answered_representation or denied or note or context_answer or status):
        return found | {"no_answers"}
    if status is None:
        found.add("answered")
    elif status == "moved_to_app" and not booked:
        found.add("needs_answer")
    elif status == "open":
        found.add("waiting_in_chat")
    if denied:
        found.add("denied")
    if not denied and participants and purpose is None:
        found.add("purpose_missing")
    return found


def _rows(seed: int, count: int) -> list:
    data = DemoData(seed=seed, now=NOW_DT, org=organisation(NOW_DT))
    batches = list(data.batches(count, 25))
    tables = [[b.items, b.documents, b.messages, b.photos, b.events, b.app_answers, b.files] for b in batches]
    return [*tables, data.conversations()]


def test_the_same_seed_and_now_give_the_same_rows():
    assert _rows(7, 60) == _rows(7, 60)


def test_another_seed_gives_other_rows():
    first, second = _rows(1, 40), _rows(2, 40)
    assert {row[0] for row in first[0][0]}.isdisjoint({row[0] for row in second[0][0]})
    assert [row[21] for row in first[0][0]] != [row[21] for row in second[0][0]]  # channel_context


@pytest.mark.django_db
def test_loading_the_same_seed_twice_is_refused_and_adds_nothing():
    _seed(items=30, seed=4)
    with pytest.raises(CommandError, match="--seed 4 is in the replica already"):
        _seed(items=30, seed=4)
    assert InboxItem.objects.count() == 30


@pytest.mark.django_db
def test_a_second_seed_is_added_and_listed_although_its_rows_are_older_than_the_last_sync():
    _seed(items=30, seed=1)
    _seed(items=30, seed=2)
    assert InboxItem.objects.count() == 60
    assert IndexedItem.objects.count() == 60
    assert Company.objects.count() == 5  # the same demo companies


@pytest.mark.django_db
def test_if_empty_leaves_a_replica_with_items_alone():
    _seed(items=30, seed=1)
    output = _seed(items=30, seed=9, if_empty=True)
    assert InboxItem.objects.count() == 30
    assert "already has inbox items" in output


@pytest.mark.django_db
def test_receipt_files_are_in_the_bucket_under_their_storage_path_with_their_sha256():
    _seed(items=40, seed=1)
    documents = list(DocumentAttachment.objects.all())
    assert len(documents) == InboxItem.objects.exclude(document=None).count() >= 30
    bucket = storages["documents"]
    for document in documents:
        item = InboxItem.objects.get(document=document)
        prefix = f"documents/{item.company_id}/{item.user_id}/"
        assert document.storage_path.startswith(prefix)
        assert re.fullmatch(r"\d{13}_" + re.escape(document.file_name), document.storage_path.removeprefix(prefix))
        with bucket.open(document.storage_path, "rb") as handle:
            content = handle.read()
        assert content[:3] == b"\xff\xd8\xff"  # a JPEG
        assert document.sha256_hash == hashlib.sha256(content).hexdigest()
        assert document.file_size_bytes == len(content)


def _history(item: InboxItem) -> list[str]:
    return [event.event_type for event in ProcessingHistory.objects.filter(aggregate_id=item.pk)]


@pytest.mark.django_db
def test_a_context_answer_comes_with_its_photo_question_reply_and_history():
    _seed(items=60, seed=3)
    answered = InboxItem.objects.filter(channel_context__has_key="context_answer")
    item = next(i for i in answered if _history(i) == ["ChannelQuestionAsked", "ChannelQuestionAnswered"])
    ctx = item.channel_context
    photo, question, reply = WhatsappMessage.objects.filter(inbox_item_id=item.pk)
    assert photo.pk == item.whatsapp_message_id
    assert (photo.direction, photo.message_type, photo.media_mime) == ("inbound", "image", "image/jpeg")
    assert photo.media_id
    assert photo.body_text == ctx["caption"]
    assert _sql("SELECT media_sha256 FROM whatsapp_messages WHERE id = %s", [photo.pk]) == [
        (item.document.sha256_hash,)
    ]
    assert (question.direction, question.raw_payload) == ("outbound", {"template": "receipt_question_context"})
    assert (reply.direction, reply.body_text) == ("inbound", ctx["context_answer"]["raw_answer"])
    events = list(ProcessingHistory.objects.filter(aggregate_id=item.pk))
    for event in events:
        assert event.actor == {"type": "system", "id": "whatsapp-inbound"}
        assert event.correlation_id == item.correlation_id
        assert event.aggregate_type == "System"
        assert event.payload == {"channel": "whatsapp", "inbox_item_id": str(item.pk), "question_type": "context"}
    assert events[0].occurred_at == dt.datetime.fromisoformat(ctx["pending_question"]["asked_at"])
    assert events[1].occurred_at == dt.datetime.fromisoformat(ctx["context_answer"]["answered_at"])


@pytest.mark.django_db
def test_a_late_reply_answers_a_question_already_moved_to_the_app():
    _seed(items=60, seed=3)
    late = next(
        i
        for i in InboxItem.objects.filter(channel_context__has_key="context_answer")
        if _history(i) == ["ChannelQuestionAsked", "ChannelQuestionExpired", "ChannelQuestionAnswered"]
    )
    pending = late.channel_context["pending_question"]
    asked = dt.datetime.fromisoformat(pending["asked_at"])
    answered = dt.datetime.fromisoformat(late.channel_context["context_answer"]["answered_at"])
    assert pending["status"] == "answered"
    assert asked + dt.timedelta(hours=48) < answered < asked + dt.timedelta(days=7)


@pytest.mark.django_db
def test_an_answer_given_in_the_app_and_replaced_by_a_late_reply_is_listed_as_replaced():
    _seed(items=60, seed=3)
    replaced = IndexedItem.objects.filter(state_answer_replaced=True)
    assert replaced.exists()
    for row in replaced:
        item = InboxItem.objects.get(pk=row.pk)
        [logged] = ClarificationEvent.objects.filter(item_id=item.pk, channel=ClarificationEvent.Channel.APP)
        assert (logged.event_type, logged.question_type) == ("ChannelQuestionAnswered", "representation")
        ours = logged.payload["after"]["representation"]
        live = item.channel_context["representation"]
        assert live != ours
        assert dt.datetime.fromisoformat(live["answered_at"]) > dt.datetime.fromisoformat(ours["answered_at"])
        actors = [(e.event_type, e.actor) for e in ProcessingHistory.objects.filter(aggregate_id=item.pk)]
        # The app's answer names the app (the demo bookkeeper is linked to no accounted user), never a person.
        assert [(event_type, actor["type"]) for event_type, actor in actors] == [
            ("ChannelQuestionAsked", "system"),
            ("ChannelQuestionExpired", "cron"),
            ("ChannelQuestionAnswered", "system"),
            ("ChannelQuestionAnswered", "system"),
        ]
        assert actors[2][1] == {"type": "system", "id": "review-app"}
        assert actors[3][1]["id"] != "review-app"


@pytest.mark.django_db
def test_questions_move_to_the_app_by_the_crons_expiry_or_over_the_budget_without_an_event():
    _seed(items=60, seed=3)
    moved = [item for item in InboxItem.objects.all() if (_pending(item) or {}).get("status") == "moved_to_app"]
    histories = {
        item.pk: [(e.event_type, e.actor["id"]) for e in ProcessingHistory.objects.filter(aggregate_id=item.pk)]
        for item in moved
    }
    assert [("ChannelQuestionAsked", "whatsapp-inbound"), ("ChannelQuestionExpired", "whatsapp-expiry")] in (
        histories.values()
    )
    over_budget = [pk for pk, history in histories.items() if not history]
    assert over_budget, "no question moved to the app over the budget"
    assert not WhatsappMessage.objects.filter(inbox_item_id__in=over_budget, direction="outbound").exists()


@pytest.mark.django_db
def test_a_half_answer_keeps_the_question_open_and_a_denial_answers_it():
    _seed(items=60, seed=3)
    contexts = [i.channel_context for i in InboxItem.objects.all() if isinstance(i.channel_context, dict)]
    half = [
        c
        for c in contexts
        if c.get("representation", {}).get("purpose", "") is None and "denied" not in c["representation"]
    ]
    assert any(c["pending_question"]["status"] == "open" for c in half)
    denials = [c for c in contexts if c.get("representation", {}).get("denied") is True]
    assert denials
    for ctx in denials:
        rep = ctx["representation"]
        assert (rep["participants"], rep["purpose"], rep["event_date"]) == ([], None, None)
        assert JS_ISO.match(rep["answered_at"])
    asked_about_representation = [c for c in denials if c["pending_question"]["type"] == "representation"]
    assert asked_about_representation
    assert {c["pending_question"]["status"] for c in asked_about_representation} == {"answered"}


@pytest.mark.django_db
def test_every_channel_context_timestamp_is_written_as_javascript_writes_it():
    _seed(items=120, seed=6)
    seen = 0
    for item in InboxItem.objects.all():
        ctx = item.channel_context
        if not isinstance(ctx, dict):
            continue
        for node in (
            ctx.get("pending_question"),
            ctx.get("representation"),
            ctx.get("context_answer"),
            ctx.get("quality"),
        ):
            if not isinstance(node, dict):
                continue
            for key in ("asked_at", "answered_at", "resend_requested_at"):
                if isinstance(node.get(key), str):
                    assert JS_ISO.match(node[key]), node[key]
                    seen += 1
    assert seen > 50


@pytest.mark.django_db
def test_each_phone_has_one_conversation_whose_recent_questions_say_what_the_items_say():
    _seed(items=150, seed=8)
    assert WhatsappConversation.objects.count() == WhatsappPhoneLink.objects.count() > 0
    statuses = set()
    for conversation in WhatsappConversation.objects.all():
        recent = conversation.context["recent_questions"]
        assert len(recent) <= 10
        for position, entry in enumerate(recent):
            statuses.add(entry["status"])
            if any(later["inbox_item_id"] == entry["inbox_item_id"] for later in recent[position + 1 :]):
                # An item asked twice (a denial, then what it was for): the first was answered.
                assert entry["status"] == "answered"
                continue
            pending = _pending(InboxItem.objects.get(pk=entry["inbox_item_id"]))
            assert (entry["type"], entry["status"], entry["asked_at"]) == (
                pending["type"],
                pending["status"],
                pending["asked_at"],
            )
        open_entries = [e for e in recent if e["status"] == "open"]
        if open_entries:
            assert conversation.state == f"awaiting_{open_entries[-1]['type']}"
            assert conversation.context["pending_question"]["inbox_item_id"] == open_entries[-1]["inbox_item_id"]
    assert statuses == {"open", "answered", "moved_to_app"}


@pytest.mark.django_db
def test_phone_numbers_are_stored_only_hashed_and_masked():
    _seed(items=10, seed=1)
    links = list(WhatsappPhoneLink.objects.all())
    assert len(links) == len(organisation(NOW_DT).phone_links) == 12  # every member of a company but its viewer
    for link in links:
        assert re.fullmatch(r"[0-9a-f]{64}", link.phone_hash)
        assert re.fullmatch(r"\+46 7\d \*\*\* \*\* \d\d", link.phone_masked)


@pytest.mark.django_db
def test_booked_items_point_at_a_real_supplier_invoice_or_journal_entry():
    _seed(items=150, seed=2)
    invoices = {pk for (pk,) in _sql("SELECT id FROM supplier_invoices")}
    entries = {pk for (pk,) in _sql("SELECT id FROM journal_entries")}
    booked = InboxItem.objects.exclude(created_supplier_invoice_id=None, created_journal_entry_id=None)
    assert {i.created_supplier_invoice_id for i in booked} - {None} == invoices != set()
    assert {i.created_journal_entry_id for i in booked} - {None} == entries != set()
    assert IndexedItem.objects.filter(state_booked=True).count() == booked.count()


@pytest.mark.django_db
def test_one_row_carries_a_number_python_cannot_read_and_is_listed_as_malformed():
    _seed(items=40, seed=1)
    digits = _sql("SELECT id FROM invoice_inbox_items WHERE length(channel_context ->> 'amount_hint') = 5000")
    assert len(digits) == 1
    item = InboxItem.objects.get(pk=digits[0][0])
    assert isinstance(item.channel_context, Undecodable)
    row = IndexedItem.objects.get(pk=item.pk)
    assert row.state_malformed
    assert "digits" in row.malformed_reason


@pytest.mark.django_db
def test_message_texts_older_than_90_days_are_purged():
    _seed(items=200, seed=5)
    cutoff = NOW_DT - dt.timedelta(days=90)
    texts = WhatsappMessage.objects.filter(direction="inbound", message_type="text")
    assert texts.filter(created_at__lt=cutoff).exists()
    assert not texts.filter(created_at__lt=cutoff).exclude(body_text=None).exists()
    assert not texts.filter(created_at__gte=cutoff, body_text=None).exists()


@pytest.mark.django_db
def test_the_shared_golden_cases_are_loaded_when_there_are_none():
    expected = [json.loads(line)["name"] for line in GOLDEN.read_text(encoding="utf-8").splitlines() if line.strip()]
    _seed(items=0)
    assert sorted(GoldenCase.objects.values_list("name", flat=True)) == sorted(expected)


@pytest.mark.django_db
def test_golden_cases_already_there_are_left_alone():
    GoldenCase.objects.create(name="mine", input={"channel_context": None}, expected={})
    _seed(items=0)
    assert list(GoldenCase.objects.values_list("name", flat=True)) == ["mine"]


@pytest.mark.django_db
def test_it_prints_a_working_login_for_each_role():
    output = _seed(items=0, no_users=False)
    for role, username in (("Bookkeeper", "bokforare"), ("Support", "support"), ("QA", "qa")):
        line = next(line for line in output.splitlines() if f"username: {username} " in line)
        assert role in line
        password = line.rsplit("password: ", 1)[1].strip()
        user = authenticate(username=username, password=password)
        assert user is not None
        assert list(user.groups.values_list("name", flat=True)) == [role]


@pytest.mark.django_db
def test_it_refuses_to_create_demo_users_in_production(settings):
    settings.DEBUG = False
    with pytest.raises(CommandError, match="DEBUG"):
        call_command("seed_demo", items=0, stdout=io.StringIO())
    assert not User.objects.exists()


def test_demo_receipts_print_amounts_the_swedish_way():
    from devtools.receipts import kronor

    assert kronor(1044.0) == "1\xa0044,00"
    assert kronor(None) == "-"


@pytest.mark.django_db
def test_the_demo_bookkeeper_sees_a_queue_from_every_client_but_one():
    _seed(items=400, no_users=False)
    bookkeeper = User.objects.get(username="bokforare")
    client = Client()
    client.force_login(bookkeeper)

    rows = client.get("/api/items", {"state": "needs_answer", "page_size": 500}).json()["results"]

    companies = {row["company"]["id"] for row in rows}
    assert rows, "the demo bookkeeper's queue is empty"
    assert len(companies) == len(set(Company.objects.values_list("id", flat=True))) - 1


def test_every_demo_document_gets_a_receipt_image_the_oldest_too():
    # The queue opens on the oldest items: a run far past a few hundred items still draws every one.
    data = DemoData(seed=5, now=NOW_DT, org=organisation(NOW_DT))
    batches = list(data.batches(1200, 200))
    paths = {row[3] for batch in batches for row in batch.documents}  # storage_path
    drawn = {path for batch in batches for path, _ in batch.files}
    assert len(paths) > 1000
    assert drawn == paths


def test_a_benchmark_draws_only_about_as_many_receipts_as_it_asks_for():
    data = DemoData(seed=5, now=NOW_DT, org=organisation(NOW_DT), receipt_files=50)
    batches = list(data.batches(600, 200))
    assert 25 <= sum(len(batch.files) for batch in batches) <= 100


@pytest.mark.django_db
def test_the_demo_overview_lists_each_person_once_and_adds_up_to_the_log():
    # The demo bookkeeper's answers were logged before she existed: "bokforare: 11" beside "Bea Bokförare: 11".
    _seed(items=400, no_users=False)
    sync.poll()
    support = User.objects.get(username="support")

    data = numbers.overview(support, 90, whole_team=True, now=NOW_DT)
    shown = {person.name: person.per_day for person in data.people}

    assert len(shown) == len(data.people)
    assert "bokforare" not in shown
    assert shown == expected_from_the_log(tuple(day.date for day in data.days))


def test_the_demos_days_look_like_a_working_month_not_the_same_week_again():
    # Issue 37: the overview of `make run` showed one saw-tooth week after another.
    stockholm = ZoneInfo("Europe/Stockholm")
    data = DemoData(seed=1, now=NOW_DT, org=organisation(NOW_DT))
    batches = list(data.batches(1500, 500))
    created = ITEM_COLUMNS.index("created_at")
    received = Counter(row[created].astimezone(stockholm).date() for batch in batches for row in batch.items)
    full_days = [NOW_DT.date() - dt.timedelta(days=n) for n in range(1, 113)]

    def per_day(weekdays: set[int]) -> float:
        days = [day for day in full_days if day.weekday() in weekdays]
        return sum(received[day] for day in days) / len(days)

    # A Saturday or a Sunday brings far fewer receipts than a Monday to Thursday.
    assert per_day({5, 6}) < 0.5 * per_day({0, 1, 2, 3})
    # The weeks differ from one another: the same weekday varies from week to week.
    mondays = [received[day] for day in full_days if day.weekday() == 0]
    assert max(mondays) >= 2 * min(mondays) + 1
