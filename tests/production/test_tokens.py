"""API tokens expire, and their owners list, create and revoke them on /account/tokens/."""

from __future__ import annotations

import io
import re
from datetime import timedelta
from unittest import mock

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from reviewapp.core import roles
from reviewapp.models import ApiToken
from reviewapp.web.api_auth import create_token, hash_token
from tests import factories

TOKEN = re.compile(r"rvw_[A-Za-z0-9_-]{40,}")


def _api(token: str):  # type: ignore[no-untyped-def]
    return Client(headers={"authorization": f"Bearer {token}"}).get(reverse("api_items"))


def _stored(raw: str) -> ApiToken:
    return ApiToken.objects.get(key_hash=hash_token(raw))


# --- Expiry ------------------------------------------------------------------------------


def test_a_new_token_expires_after_the_default_ninety_days(bookkeeper):
    before = timezone.now()
    stored = _stored(create_token(bookkeeper))
    assert before + timedelta(days=90) <= stored.expires_at <= timezone.now() + timedelta(days=90)


def test_an_expired_token_is_refused_with_a_json_401_that_says_so(bookkeeper):
    raw = create_token(bookkeeper)
    ApiToken.objects.filter(key_hash=hash_token(raw)).update(expires_at=timezone.now() - timedelta(minutes=1))
    response = _api(raw)
    assert response.status_code == 401
    body = response.json()
    assert body["code"] == "token_expired"
    assert body["error"].startswith(f"API token {raw[:12]}… expired at ")
    assert "/account/tokens/" in body["error"]
    assert _stored(raw).last_used_at is None


def test_a_token_works_until_it_expires_and_records_its_last_use(bookkeeper):
    raw = create_token(bookkeeper)
    ApiToken.objects.filter(key_hash=hash_token(raw)).update(expires_at=timezone.now() + timedelta(minutes=1))
    assert _api(raw).status_code == 200
    assert _stored(raw).last_used_at is not None


def test_an_unknown_token_is_still_just_unknown(db):
    response = _api("rvw_" + "x" * 43)
    assert response.status_code == 401
    assert response.json() == {"error": "invalid or unknown API token"}


def _command(*args: str) -> tuple[str, str]:
    out, err = io.StringIO(), io.StringIO()
    call_command("create_api_token", *args, stdout=out, stderr=err)
    return out.getvalue().strip(), err.getvalue()


def test_create_api_token_takes_a_lifetime_in_days_and_a_name(qa):
    raw, err = _command(qa.username, "--days", "7", "--name", "nightly export")
    stored = _stored(raw)
    assert stored.user == qa
    assert stored.name == "nightly export"
    assert timedelta(days=6, hours=23) < stored.expires_at - timezone.now() <= timedelta(days=7)
    assert f"It expires at {stored.expires_at.isoformat(timespec='minutes')}" in err


@pytest.mark.parametrize("days", ["0", "-3", "366"])
def test_create_api_token_refuses_a_lifetime_out_of_range(qa, days):
    with pytest.raises(CommandError, match="--days must be between 1 and 365"):
        _command(qa.username, "--days", days)
    assert not ApiToken.objects.exists()


# --- The page ----------------------------------------------------------------------------


def test_the_token_page_needs_a_login(db):
    response = Client().get(reverse("api_tokens"))
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("login"))


@pytest.mark.parametrize("role", [roles.BOOKKEEPER, roles.SUPPORT, roles.QA, None])
def test_every_signed_in_user_may_manage_their_tokens(db, role):
    client = Client()
    client.force_login(factories.make_user(role))
    response = client.get(reverse("api_tokens"))
    assert response.status_code == 200
    assert "You have no API tokens." in response.content.decode()


def test_the_page_lists_only_my_own_tokens_with_their_dates(bookkeeper_client, bookkeeper, qa):
    mine = _stored(create_token(bookkeeper, name="invoice robot"))
    ApiToken.objects.filter(pk=mine.pk).update(last_used_at=timezone.now() - timedelta(days=2))
    theirs = _stored(create_token(qa, name="qa script"))
    expired = _stored(create_token(bookkeeper, days=1))
    ApiToken.objects.filter(pk=expired.pk).update(expires_at=timezone.now() - timedelta(hours=1))
    mine.refresh_from_db()
    expired.refresh_from_db()

    body = bookkeeper_client.get(reverse("api_tokens")).content.decode()
    row = body[body.index(f'id="token-{mine.pk}"') :].split("</tr>")[0]
    assert f"<code>{mine.prefix}…</code>" in row
    assert "invoice robot" in row
    assert timezone.localtime(mine.created_at).strftime("%Y-%m-%d %H:%M") in row
    assert timezone.localtime(mine.last_used_at).strftime("%Y-%m-%d %H:%M") in row  # type: ignore[arg-type]
    assert timezone.localtime(mine.expires_at).strftime("%Y-%m-%d %H:%M") in row
    assert "expired" not in row
    expired_row = body[body.index(f'id="token-{expired.pk}"') :].split("</tr>")[0]
    assert ">expired</span>" in expired_row
    assert "never" in expired_row
    assert theirs.prefix not in body
    assert "qa script" not in body


def test_creating_a_token_shows_it_once_and_it_works(bookkeeper_client, bookkeeper):
    response = bookkeeper_client.post(reverse("api_tokens"), {"name": "my laptop", "days": "30"})
    assert response.status_code == 200
    assert "no-store" in response["Cache-Control"]
    body = response.content.decode()
    shown = TOKEN.findall(body)
    assert len(shown) == 1
    raw = shown[0]
    stored = _stored(raw)
    assert stored.user == bookkeeper
    assert stored.name == "my laptop"
    assert timedelta(days=29, hours=23) < stored.expires_at - timezone.now() <= timedelta(days=30)
    assert _api(raw).status_code == 200
    # Never again: the list shows its prefix only.
    later = bookkeeper_client.get(reverse("api_tokens")).content.decode()
    assert raw not in later
    assert f"<code>{raw[:12]}…</code>" in later


def test_a_lifetime_that_is_not_offered_is_refused_under_its_field(bookkeeper_client):
    response = bookkeeper_client.post(reverse("api_tokens"), {"name": "", "days": "9999"})
    assert response.status_code == 200
    assert "Select a valid choice." in response.content.decode()
    assert not TOKEN.search(response.content.decode())
    assert not ApiToken.objects.exists()


def test_revoking_my_token_deletes_it_and_the_api_refuses_it(bookkeeper_client, bookkeeper):
    raw = create_token(bookkeeper)
    token = _stored(raw)
    response = bookkeeper_client.post(reverse("api_token_revoke", args=[token.pk]))
    assert response.status_code == 302
    assert response["Location"] == reverse("api_tokens")
    assert not ApiToken.objects.filter(pk=token.pk).exists()
    assert _api(raw).status_code == 401
    page = bookkeeper_client.get(reverse("api_tokens")).content.decode()
    assert f"Token {token.prefix}… is revoked" in page


def test_someone_elses_token_is_not_found_and_stays(bookkeeper_client, qa):
    raw = create_token(qa)
    token = _stored(raw)
    response = bookkeeper_client.post(reverse("api_token_revoke", args=[token.pk]))
    assert response.status_code == 404
    assert ApiToken.objects.filter(pk=token.pk).exists()
    assert _api(raw).status_code == 200


def test_revoking_needs_a_post(bookkeeper_client, bookkeeper):
    token = _stored(create_token(bookkeeper))
    assert bookkeeper_client.get(reverse("api_token_revoke", args=[token.pk])).status_code == 405
    assert ApiToken.objects.filter(pk=token.pk).exists()


def test_revoking_and_creating_need_the_csrf_token(bookkeeper):
    token = _stored(create_token(bookkeeper))
    client = Client(enforce_csrf_checks=True)
    client.force_login(bookkeeper)
    assert client.post(reverse("api_token_revoke", args=[token.pk])).status_code == 403
    assert client.post(reverse("api_tokens"), {"days": "30"}).status_code == 403
    assert ApiToken.objects.filter(user=bookkeeper).count() == 1


def test_a_token_is_expired_at_the_very_instant_of_its_expiry(bookkeeper):
    raw = create_token(bookkeeper)
    instant = timezone.now() + timedelta(days=1)
    ApiToken.objects.filter(key_hash=hash_token(raw)).update(expires_at=instant)
    with mock.patch("reviewapp.web.api_auth.timezone.now", return_value=instant):
        response = _api(raw)
    assert response.status_code == 401
    assert response.json()["code"] == "token_expired"


@pytest.mark.parametrize(
    "name", ["", "   ", "\u200b", "laptop\u200f", "\u202ekcor", "ci\u2066runner\u2069", "tab\there"]
)
def test_a_token_name_that_is_empty_invisible_or_holds_a_direction_control_is_refused(bookkeeper_client, name):
    response = bookkeeper_client.post(reverse("api_tokens"), {"name": name, "days": "30"})
    assert response.status_code == 200
    assert not TOKEN.search(response.content.decode())
    assert not ApiToken.objects.exists()
