"""Soft reservations: one holder per item, taken over only when expired or one's own, released by the holder."""

from __future__ import annotations

import datetime as dt
import re
import threading
import time
import uuid

import pytest
from django.db import connection, transaction
from django.urls import reverse
from django.utils import timezone

from reviewapp.core import roles
from reviewapp.inbox import reservations
from reviewapp.models import ClarificationEvent, IndexedItem, Reservation
from tests import factories
from tests.inbox.helpers import pending


@pytest.fixture
def anna(db):  # type: ignore[no-untyped-def]
    return factories.make_user(roles.BOOKKEEPER, username="anna")


@pytest.fixture
def bea(db):  # type: ignore[no-untyped-def]
    return factories.make_user(roles.BOOKKEEPER, username="bea")


def _row(body: str, item_id: uuid.UUID) -> str:
    for row in re.findall(r"<tr class=\"inbox-row[^\"]*\" role=\"row\"[^>]*>.*?</tr>", body, re.DOTALL):
        if f"/items/{item_id}/" in row:
            return row
    raise AssertionError(f"item {item_id} is not in the list")


def _expire(item_id: uuid.UUID) -> None:
    Reservation.objects.filter(item_id=item_id).update(expires_at=timezone.now() - dt.timedelta(seconds=1))


@pytest.mark.django_db
def test_a_free_item_is_reserved_for_five_minutes(anna):
    item_id = uuid.uuid4()
    before = timezone.now()
    assert reservations.reserve(item_id, anna).pk == anna.pk
    reservation = Reservation.objects.get(item_id=item_id)
    assert reservation.user_id == anna.pk
    assert before + dt.timedelta(minutes=4) < reservation.expires_at < timezone.now() + dt.timedelta(minutes=6)


@pytest.mark.django_db
def test_someone_else_cannot_take_a_held_item_and_is_told_who_holds_it(anna, bea):
    item_id = uuid.uuid4()
    reservations.reserve(item_id, anna)
    held_until = Reservation.objects.get(item_id=item_id).expires_at
    holder = reservations.reserve(item_id, bea)
    assert (holder.pk, holder.get_username()) == (anna.pk, "anna")
    assert Reservation.objects.get(item_id=item_id).expires_at == held_until


@pytest.mark.django_db
def test_reserving_again_renews_ones_own_reservation(anna):
    item_id = uuid.uuid4()
    reservations.reserve(item_id, anna, minutes=1)
    first = Reservation.objects.get(item_id=item_id).expires_at
    assert reservations.reserve(item_id, anna, minutes=10).pk == anna.pk
    assert Reservation.objects.get(item_id=item_id).expires_at > first + dt.timedelta(minutes=8)


@pytest.mark.django_db
def test_an_expired_reservation_is_taken_over(anna, bea):
    item_id = uuid.uuid4()
    reservations.reserve(item_id, anna)
    _expire(item_id)
    assert reservations.reserve(item_id, bea).pk == bea.pk
    assert Reservation.objects.get(item_id=item_id).user_id == bea.pk


@pytest.mark.django_db
def test_only_the_holder_releases(anna, bea):
    item_id = uuid.uuid4()
    reservations.reserve(item_id, anna)
    assert reservations.release(item_id, bea) is False
    assert Reservation.objects.filter(item_id=item_id, user=anna).exists()
    assert reservations.release(item_id, anna) is True
    assert not Reservation.objects.filter(item_id=item_id).exists()
    assert reservations.reserve(item_id, bea).pk == bea.pk


@pytest.mark.django_db
def test_held_by_others_leaves_out_ones_own_and_expired_reservations(anna, bea):
    mine, theirs, expired = uuid.uuid4(), uuid.uuid4(), uuid.uuid4()
    reservations.reserve(mine, anna)
    reservations.reserve(theirs, bea)
    reservations.reserve(expired, bea)
    _expire(expired)
    assert reservations.held_by_others(anna) == {theirs}
    assert reservations.held_by_others(bea) == {mine}


@pytest.mark.django_db
def test_long_expired_reservations_are_swept_when_someone_reserves(anna, bea):
    old = uuid.uuid4()
    reservations.reserve(old, anna)
    Reservation.objects.filter(item_id=old).update(expires_at=timezone.now() - dt.timedelta(hours=2))
    reservations.reserve(uuid.uuid4(), bea)
    assert not Reservation.objects.filter(item_id=old).exists()


@pytest.mark.django_db
def test_the_list_shows_who_is_answering_each_item(bookkeeper_client, bookkeeper, anna):
    theirs = factories.make_item(channel_context=pending("moved_to_app"))
    mine = factories.make_item(channel_context=pending("moved_to_app"))
    lapsed = factories.make_item(channel_context=pending("moved_to_app"))
    reservations.reserve(theirs.id, anna)
    reservations.reserve(mine.id, bookkeeper)
    reservations.reserve(lapsed.id, anna)
    _expire(lapsed.id)
    body = bookkeeper_client.get(reverse("inbox")).content.decode()
    rows = {item.id: _row(body, item.id) for item in (theirs, mine, lapsed)}
    assert 'class="inbox-row is-held"' in rows[theirs.id]
    assert "anna is answering" in rows[theirs.id]
    assert "You are answering" in rows[mine.id]
    assert "is answering" not in rows[lapsed.id]
    assert 'class="inbox-row"' in rows[lapsed.id]


@pytest.mark.django_db
def test_a_reservation_never_blocks_an_answer(bookkeeper_client, anna):
    item = factories.make_item(channel_context=pending("moved_to_app", type_="context"))
    reservations.reserve(item.id, anna)
    response = bookkeeper_client.post(
        reverse("item_answer", args=[item.pk]), {"question": "context", "text": "Taxi"}, follow=True
    )
    assert response.status_code == 200
    assert "Saved: " in response.content.decode()
    assert not IndexedItem.objects.get(pk=item.pk).state_needs_answer


# --- Races: each thread has its own connection, as two web hosts would -------


def _in_thread(target, *args):  # type: ignore[no-untyped-def]
    def run() -> None:
        try:
            target(*args)
        finally:
            connection.close()

    thread = threading.Thread(target=run)
    thread.start()
    return thread


@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_two_people_reserving_the_same_items_at_once_get_exactly_one_holder_each_time():
    anna = factories.make_user(roles.BOOKKEEPER, username="anna")
    bea = factories.make_user(roles.BOOKKEEPER, username="bea")
    carl = factories.make_user(roles.BOOKKEEPER, username="carl")
    items = [uuid.uuid4() for _ in range(30)]
    # Every other item starts with an expired reservation: both race to take it over.
    for item_id in items[::2]:
        reservations.reserve(item_id, carl)
        _expire(item_id)
    barrier = threading.Barrier(2, timeout=10)
    told: dict[int, list[int]] = {anna.pk: [], bea.pk: []}

    def work(user) -> None:  # type: ignore[no-untyped-def]
        for item_id in items:
            barrier.wait()
            told[user.pk].append(reservations.reserve(item_id, user).pk)

    threads = [_in_thread(work, anna), _in_thread(work, bea)]
    for thread in threads:
        thread.join(timeout=30)
    assert [len(told[anna.pk]), len(told[bea.pk])] == [30, 30]
    for n, item_id in enumerate(items):
        holder = Reservation.objects.get(item_id=item_id).user_id
        # Both were told the same holder, and it is the one stored.
        assert told[anna.pk][n] == told[bea.pk][n] == holder, n
        assert holder in (anna.pk, bea.pk)


@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_a_reservation_not_yet_committed_makes_the_other_wait_and_then_lose():
    anna = factories.make_user(roles.BOOKKEEPER, username="anna")
    bea = factories.make_user(roles.BOOKKEEPER, username="bea")
    item_id = uuid.uuid4()
    anna_reserved, bea_seen_waiting = threading.Event(), threading.Event()
    bea_backend: list[int] = []
    outcome: dict[str, object] = {}

    def anna_in_a_long_transaction() -> None:
        with transaction.atomic():
            outcome["anna"] = reservations.reserve(item_id, anna).pk
            anna_reserved.set()
            # Holds the row until PostgreSQL shows Bea blocked on it; no clock decides.
            bea_seen_waiting.wait(timeout=30)
            outcome["bea_answered_before_anna_committed"] = "bea" in outcome

    def bea_reserves() -> None:
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_backend_pid()")
            bea_backend.append(cursor.fetchone()[0])
        anna_reserved.wait(timeout=30)
        outcome["bea"] = reservations.reserve(item_id, bea).pk

    threads = [_in_thread(anna_in_a_long_transaction), _in_thread(bea_reserves)]
    deadline = time.monotonic() + 30
    waiting = False
    while not waiting and time.monotonic() < deadline:
        if bea_backend:
            with connection.cursor() as cursor:
                cursor.execute("SELECT wait_event_type FROM pg_stat_activity WHERE pid = %s", [bea_backend[0]])
                row = cursor.fetchone()
            waiting = row is not None and row[0] == "Lock"
        if not waiting:
            time.sleep(0.01)
    bea_seen_waiting.set()
    for thread in threads:
        thread.join(timeout=30)
    assert waiting, "Bea's reservation never waited on Anna's lock"
    assert outcome["bea_answered_before_anna_committed"] is False
    assert outcome["anna"] == anna.pk
    assert outcome["bea"] == anna.pk
    assert Reservation.objects.get(item_id=item_id).user_id == anna.pk


@pytest.mark.django_db
def test_reserving_sweeps_other_items_reservations_an_hour_past_expiry_but_not_recent_ones(anna, bea):
    stale, recent, mine = uuid.uuid4(), uuid.uuid4(), uuid.uuid4()
    reservations.reserve(stale, bea)
    reservations.reserve(recent, bea)
    Reservation.objects.filter(item_id=stale).update(expires_at=timezone.now() - dt.timedelta(hours=2))
    Reservation.objects.filter(item_id=recent).update(expires_at=timezone.now() - dt.timedelta(minutes=10))
    assert reservations.reserve(mine, anna).pk == anna.pk
    assert set(Reservation.objects.values_list("item_id", flat=True)) == {recent, mine}


@pytest.mark.django_db
def test_an_item_whose_own_reservation_is_long_expired_is_taken_over_not_lost(anna, bea):
    item_id = uuid.uuid4()
    reservations.reserve(item_id, bea)
    Reservation.objects.filter(item_id=item_id).update(expires_at=timezone.now() - dt.timedelta(hours=2))
    assert reservations.reserve(item_id, anna).pk == anna.pk
    assert Reservation.objects.get(item_id=item_id).user_id == anna.pk


@pytest.mark.django_db
def test_done_today_counts_ones_own_app_answers_since_stockholm_midnight(anna, bea):
    now = dt.datetime(2026, 11, 2, 10, 0, 30, tzinfo=dt.UTC)  # 11:00:30 in Stockholm (CET)

    def answered(  # type: ignore[no-untyped-def]
        user, at: dt.datetime, *, channel: str = "app", amended: bool = False, kind: str = ClarificationEvent.ANSWERED
    ) -> None:
        ClarificationEvent.objects.create(
            item_id=uuid.uuid4(),
            event_type=kind,
            question_type="context",
            actor=user,
            actor_label=user.get_username(),
            channel=channel,
            payload={"amended": amended},
            occurred_at=at,
        )

    answered(anna, dt.datetime(2026, 11, 1, 23, 30, tzinfo=dt.UTC))  # 00:30 in Stockholm: today
    answered(anna, dt.datetime(2026, 11, 2, 9, 0, tzinfo=dt.UTC))
    answered(anna, dt.datetime(2026, 11, 1, 22, 30, tzinfo=dt.UTC))  # 23:30 yesterday in Stockholm
    answered(anna, dt.datetime(2026, 11, 2, 9, 5, tzinfo=dt.UTC), amended=True)  # a correction
    answered(anna, dt.datetime(2026, 11, 2, 9, 10, tzinfo=dt.UTC), channel="whatsapp")  # not in the app
    answered(bea, dt.datetime(2026, 11, 2, 9, 15, tzinfo=dt.UTC))
    answered(anna, dt.datetime(2026, 11, 1, 23, 0, 10, tzinfo=dt.UTC))  # 00:00:10 in Stockholm: today, its first minute
    answered(anna, dt.datetime(2026, 11, 2, 9, 20, tzinfo=dt.UTC), kind=ClarificationEvent.FIXED)  # a fix, no answer
    assert reservations.done_today(anna, now=now) == 3
    assert reservations.done_today(bea, now=now) == 1
