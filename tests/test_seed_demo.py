"""seed_demo: every state covered, deterministic, demo users per role."""

from __future__ import annotations

import io

import pytest
from django.contrib.auth import authenticate
from django.core.management import CommandError, call_command

from reviewapp import states
from reviewapp.models import ClarificationEvent, InboxItem

NOW = "2026-11-30T09:00:00+00:00"


def _seed(**options) -> str:
    out = io.StringIO()
    call_command("seed_demo", stdout=out, now=NOW, allow_production=True, **options)
    return out.getvalue()


def _snapshot() -> list[tuple]:
    return list(
        InboxItem.objects.order_by("id").values_list(
            "id", "company_id", "source", "channel_context", "extracted_data", "created_at"
        )
    )


@pytest.mark.django_db
def test_a_small_seed_covers_every_state_and_question_type():
    _seed(items=120, seed=3)
    for key, field in states.STATE_FIELDS.items():
        assert InboxItem.objects.filter(**{field: True}).exists(), f"no demo item in state {key}"
    for status_state in ("state_needs_answer", "state_waiting_in_chat"):
        types = set(InboxItem.objects.filter(**{status_state: True}).values_list("open_question_type", flat=True))
        assert types == {"representation", "context", "resend"}, status_state


@pytest.mark.django_db
def test_demo_states_agree_with_the_library():
    import clarifications

    _seed(items=150, seed=5)
    for item in InboxItem.objects.all():
        expected = states.states_of(clarifications.analyse(item.channel_context))
        stored = {key for key, field in states.STATE_FIELDS.items() if getattr(item, field)}
        assert stored == expected, item.channel_context


@pytest.mark.django_db
def test_the_same_seed_gives_the_same_data():
    _seed(items=80, seed=7, no_users=True)
    first = _snapshot()
    ClarificationEvent.objects.all().delete()
    InboxItem.objects.all().delete()
    _seed(items=80, seed=7, no_users=True)
    assert _snapshot() == first


@pytest.mark.django_db
def test_another_seed_gives_other_data():
    _seed(items=40, seed=1, no_users=True)
    first = {row[3].__repr__() for row in _snapshot()}
    ClarificationEvent.objects.all().delete()
    InboxItem.objects.all().delete()
    _seed(items=40, seed=2, no_users=True)
    assert {row[3].__repr__() for row in _snapshot()} != first


@pytest.mark.django_db
def test_demo_questions_have_their_history():
    _seed(items=120, seed=3, no_users=True)
    moved = InboxItem.objects.filter(state_needs_answer=True).first()
    kinds = list(moved.events.values_list("event_type", flat=True))
    assert kinds == [ClarificationEvent.ASKED, ClarificationEvent.EXPIRED]


@pytest.mark.django_db
def test_if_empty_leaves_existing_items_alone():
    _seed(items=30, seed=1, no_users=True)
    output = _seed(items=30, seed=9, no_users=True, if_empty=True)
    assert InboxItem.objects.count() == 30
    assert "already exist" in output


@pytest.mark.django_db
def test_it_prints_a_working_login_for_each_role():
    output = _seed(items=0)
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


@pytest.mark.django_db
def test_some_demo_items_carry_a_receipt_image():
    _seed(items=60, seed=1, no_users=True)
    with_file = InboxItem.objects.exclude(document_file="")
    assert with_file.exists()
    with with_file.first().document_file.open("rb") as handle:
        assert handle.read(8) == b"\x89PNG\r\n\x1a\n"


def test_demo_receipts_print_amounts_the_swedish_way():
    from reviewapp.demo import _kronor

    assert _kronor(1044.0) == "1\xa0044,00"
    assert _kronor(None) == "-"
