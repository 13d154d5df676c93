"""Login throttling: failures are limited per username and address and per address,
the counts cannot be wiped, and nobody can lock a user out from elsewhere."""

from __future__ import annotations

import itertools
import os
import re
import subprocess
import sys
import threading

import pytest
from django.conf import settings
from django.core.cache import cache
from django.db import connections
from django.test import Client
from django.urls import reverse

from reviewapp.models import LoginThrottle
from reviewapp.web import throttle
from tests import factories

WRONG = "not-the-password"
TOO_MANY = "Too many failed login attempts"
SLOW_DOWN = re.compile(r"For its safety, wait (\d+) seconds?, then log in again\.")


@pytest.fixture
def user(db):  # type: ignore[no-untyped-def]
    return factories.make_user(username="tilda")


@pytest.fixture
def frozen_clock(monkeypatch):  # type: ignore[no-untyped-def]
    """The throttle's clock, at the start of a window, moved by assigning ``now[0]``."""
    window = settings.LOGIN_THROTTLE_WINDOW
    now = [2_000_000 * window + 1.0]
    monkeypatch.setattr(throttle, "clock", lambda: now[0])
    return now


def _login(client: Client, username: str, password: str, address: str = "10.0.0.1"):  # type: ignore[no-untyped-def]
    return client.post(
        reverse("login"),
        {"username": username, "password": password},
        REMOTE_ADDR=address,
        headers={"Accept-Language": "en"},
    )


def _fail_until_locked(client: Client, username: str, address: str = "10.0.0.1") -> None:
    for _ in range(settings.LOGIN_THROTTLE_ATTEMPTS):
        response = _login(client, username, WRONG, address)
        assert response.status_code == 200
        assert TOO_MANY not in response.content.decode()


def _logged_in(response, client: Client, user) -> bool:  # type: ignore[no-untyped-def]
    return response.status_code == 302 and client.session.get("_auth_user_id") == str(user.pk)


def test_the_correct_password_is_refused_after_five_failures_from_the_same_address(client, user):
    assert settings.LOGIN_THROTTLE_ATTEMPTS == 5
    _fail_until_locked(client, "tilda")
    response = _login(client, "tilda", factories.PASSWORD)
    assert response.status_code == 429
    body = response.content.decode()
    # Windows are aligned to the clock, so the wait is at most the 15-minute window.
    wait = re.search(r"Too many failed login attempts\. Try again in (\d+) minutes?\.", body)
    assert wait is not None
    assert 1 <= int(wait.group(1)) <= 15
    assert 1 <= int(response["Retry-After"]) <= 15 * 60
    assert "_auth_user_id" not in client.session


def test_failures_below_the_limit_do_not_stop_a_correct_login(client, user):
    for _ in range(settings.LOGIN_THROTTLE_ATTEMPTS - 1):
        _login(client, "tilda", WRONG)
    response = _login(client, "tilda", factories.PASSWORD)
    assert _logged_in(response, client, user)


def test_a_successful_login_clears_the_earlier_failures(client, user):
    for _ in range(settings.LOGIN_THROTTLE_ATTEMPTS - 1):
        _login(client, "tilda", WRONG)
    assert _login(client, "tilda", factories.PASSWORD).status_code == 302
    client.logout()
    for _ in range(settings.LOGIN_THROTTLE_ATTEMPTS - 1):
        _login(client, "tilda", WRONG)
    assert _login(client, "tilda", factories.PASSWORD).status_code == 302


def test_five_wrong_passwords_from_one_address_do_not_stop_the_right_one_from_another(user):
    _fail_until_locked(Client(), "tilda", "203.0.113.66")  # the attacker
    owner = Client()
    response = _login(owner, "tilda", factories.PASSWORD, "198.51.100.7")
    assert _logged_in(response, owner, user)
    # ... while the attacker's address stays locked for that username.
    assert _login(Client(), "tilda", factories.PASSWORD, "203.0.113.66").status_code == 429


def test_the_lock_is_per_username_and_address(client, user):
    other = factories.make_user(username="otto")
    _fail_until_locked(client, "tilda", "10.0.0.1")
    # Another user from the same address still gets in.
    assert _login(Client(), other.username, factories.PASSWORD, "10.0.0.1").status_code == 302
    # Case and spaces do not make a new username for the throttle.
    assert _login(Client(), " TILDA ", factories.PASSWORD, "10.0.0.1").status_code == 429


def test_unknown_usernames_are_throttled_like_real_ones(client, db):
    _fail_until_locked(client, "nobody-here")
    assert _login(client, "nobody-here", WRONG).status_code == 429


def test_hundreds_of_junk_usernames_do_not_wipe_anyones_count(client, user):
    # The database cache culled a third of its entries past MAX_ENTRIES (300),
    # so a run of junk usernames reset the lock. The throttle table never culls.
    _fail_until_locked(client, "tilda", "10.0.0.1")
    for n in range(400):
        junk = _login(Client(), f"junk-{n}", WRONG, f"10.9.{n // 250}.{n % 250}")
        assert junk.status_code == 200
    assert _login(Client(), "tilda", factories.PASSWORD, "10.0.0.1").status_code == 429
    assert LoginThrottle.objects.count() >= 400


def test_the_counts_live_in_their_own_table_and_never_name_the_user(client, user):
    _fail_until_locked(client, "tilda")
    # Rows of its own, not the cache, which may drop entries (and is each process's own).
    rows = list(LoginThrottle.objects.values_list("key", "count"))
    assert (settings.LOGIN_THROTTLE_ATTEMPTS) in [count for _, count in rows]
    assert all(re.fullmatch(r"[0-9a-f]{64}", key) for key, _ in rows)
    cache.clear()  # what a cull or a cache flush would do
    assert _login(Client(), "tilda", factories.PASSWORD).status_code == 429


def test_one_address_guessing_many_usernames_is_refused_altogether(user, frozen_clock):
    limit = settings.LOGIN_THROTTLE_ADDRESS_ATTEMPTS
    assert limit == 30
    for n in range(limit):
        assert _login(Client(), f"guess-{n}", WRONG, "203.0.113.9").status_code == 200
    # Any username, even a real one with its right password, is now refused from there ...
    response = _login(Client(), "tilda", factories.PASSWORD, "203.0.113.9")
    assert response.status_code == 429
    assert TOO_MANY in response.content.decode()
    # ... but not from another address ...
    assert _login(Client(), "tilda", factories.PASSWORD, "203.0.113.10").status_code == 302
    # ... and again from there once the window has passed.
    frozen_clock[0] += settings.LOGIN_THROTTLE_WINDOW
    assert _login(Client(), "tilda", factories.PASSWORD, "203.0.113.9").status_code == 302


def test_someone_who_logged_in_from_a_shared_address_still_gets_in_when_others_flood_it(user, frozen_clock):
    # An office behind one NAT address: tilda works there; someone else floods it.
    assert _login(Client(), "tilda", factories.PASSWORD, "192.0.2.50").status_code == 302
    for n in range(settings.LOGIN_THROTTLE_ADDRESS_ATTEMPTS + 5):
        _login(Client(), f"guess-{n}", WRONG, "192.0.2.50")
    assert _login(Client(), "otto-never-here", WRONG, "192.0.2.50").status_code == 429
    assert _login(Client(), "tilda", factories.PASSWORD, "192.0.2.50").status_code == 302


def test_a_guessing_run_from_many_addresses_slows_a_new_address_but_never_locks_the_user_out(user, frozen_clock):
    # Ten failures for tilda, five from each of two addresses: both are now locked.
    _fail_until_locked(Client(), "tilda", "203.0.113.1")
    _fail_until_locked(Client(), "tilda", "203.0.113.2")
    assert settings.LOGIN_THROTTLE_USER_ATTEMPTS == 2 * settings.LOGIN_THROTTLE_ATTEMPTS
    owner = Client()
    # From a new address the right password first gets one "wait" ...
    response = _login(owner, "tilda", factories.PASSWORD, "198.51.100.20")
    assert response.status_code == 429
    wait = SLOW_DOWN.search(response.content.decode())
    assert wait is not None
    assert int(wait.group(1)) == settings.LOGIN_THROTTLE_NEW_ADDRESS_WAIT == 30
    assert response["Retry-After"] == "30"
    assert "_auth_user_id" not in owner.session
    # ... trying again too early shows the time left, and does not restart it ...
    frozen_clock[0] += 20
    early = _login(owner, "tilda", factories.PASSWORD, "198.51.100.20")
    assert early.status_code == 429
    assert SLOW_DOWN.search(early.content.decode()).group(1) == "10"  # type: ignore[union-attr]
    # ... and after the wait it is checked, and gets in, within the same window.
    frozen_clock[0] += 10
    response = _login(owner, "tilda", factories.PASSWORD, "198.51.100.20")
    assert _logged_in(response, owner, user)


def test_a_wrong_password_after_the_wait_needs_a_new_wait(user, frozen_clock):
    _fail_until_locked(Client(), "tilda", "203.0.113.1")
    _fail_until_locked(Client(), "tilda", "203.0.113.2")
    attacker, guesser = "203.0.113.3", Client()
    assert _login(guesser, "tilda", WRONG, attacker).status_code == 429  # the wait starts
    frozen_clock[0] += 30
    assert _login(guesser, "tilda", WRONG, attacker).status_code == 200  # checked, wrong
    assert _login(guesser, "tilda", WRONG, attacker).status_code == 429  # a new wait: one guess per 30 s
    # Without the ticket its 429 handed out (a script dropping cookies), a wait is never over.
    frozen_clock[0] += 30
    assert _login(Client(), "tilda", WRONG, attacker).status_code == 429


def test_an_address_the_user_logged_in_from_before_is_not_slowed(user, frozen_clock):
    assert _login(Client(), "tilda", factories.PASSWORD, "198.51.100.30").status_code == 302
    _fail_until_locked(Client(), "tilda", "203.0.113.1")
    _fail_until_locked(Client(), "tilda", "203.0.113.2")
    owner = Client()
    response = _login(owner, "tilda", factories.PASSWORD, "198.51.100.30")
    assert _logged_in(response, owner, user)


def test_attempts_are_allowed_again_when_the_window_has_passed(db):
    window = settings.LOGIN_THROTTLE_WINDOW
    start = 1_000 * window  # the start of a window
    for _ in range(settings.LOGIN_THROTTLE_ATTEMPTS):
        assert throttle.claim_attempt("tilda", "10.0.0.1", now=start + 1).allowed
    refused = throttle.claim_attempt("tilda", "10.0.0.1", now=start + 60)
    assert not refused.allowed
    assert refused.reason == throttle.LOCKED
    assert refused.retry_after == window - 60
    assert throttle.claim_attempt("tilda", "10.0.0.1", now=start + window).allowed


def test_expired_counts_are_deleted_so_the_table_does_not_grow(db):
    window = settings.LOGIN_THROTTLE_WINDOW
    start = 1_000 * window
    for n in range(20):
        throttle.claim_attempt(f"user-{n}", f"10.0.0.{n}", now=start + 1)
    assert LoginThrottle.objects.count() == 20 * 3  # username+address, address, username
    # Kept through the next window (a count must outlive the window it counts) ...
    throttle.claim_attempt("late", "10.0.1.1", now=start + window + 1)
    assert LoginThrottle.objects.count() == 20 * 3 + 3
    # ... and gone after it.
    throttle.claim_attempt("later", "10.0.1.2", now=start + 2 * window + 1)
    assert LoginThrottle.objects.count() == 3 + 3


@pytest.mark.django_db(transaction=True)
def test_parallel_guesses_cannot_get_past_the_limit():
    # Several gunicorn threads, processes or hosts guessing at once share the same rows.
    start = 3_000 * settings.LOGIN_THROTTLE_WINDOW + 1
    results: list[bool] = []
    barrier = threading.Barrier(12)

    def guess() -> None:
        try:
            barrier.wait()
            results.append(throttle.claim_attempt("tilda", "10.0.0.1", now=start).allowed)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=guess) for _ in range(12)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(results) == [False] * 7 + [True] * 5


def test_admin_login_failures_count_against_the_same_limit(client, user):
    admin_login = reverse("admin:login")
    for _ in range(settings.LOGIN_THROTTLE_ATTEMPTS):
        client.post(admin_login, {"username": "tilda", "password": WRONG}, REMOTE_ADDR="10.0.0.1")
    assert _login(client, "tilda", factories.PASSWORD).status_code == 429


def test_the_address_comes_from_the_proxy_header_when_configured(rf, settings):
    settings.LOGIN_THROTTLE_IP_HEADER = "HTTP_X_FORWARDED_FOR"
    request = rf.get("/", REMOTE_ADDR="127.0.0.1", HTTP_X_FORWARDED_FOR="6.6.6.6, 192.0.2.7")
    assert throttle.client_address(request) == "192.0.2.7"
    settings.LOGIN_THROTTLE_IP_HEADER = ""
    assert throttle.client_address(request) == "127.0.0.1"


def test_behind_the_proxy_each_client_is_throttled_by_its_own_address(user, settings):
    # Every request comes from the proxy (127.0.0.1); X-Real-IP names the client.
    settings.LOGIN_THROTTLE_IP_HEADER = "HTTP_X_REAL_IP"
    for _ in range(settings.LOGIN_THROTTLE_ATTEMPTS):
        Client().post(
            reverse("login"),
            {"username": "tilda", "password": WRONG},
            REMOTE_ADDR="127.0.0.1",
            HTTP_X_REAL_IP="203.0.113.5",
        )
    owner = Client()
    response = owner.post(
        reverse("login"),
        {"username": "tilda", "password": factories.PASSWORD},
        REMOTE_ADDR="127.0.0.1",
        HTTP_X_REAL_IP="198.51.100.5",
    )
    assert _logged_in(response, owner, user)


def _settings_load(**env: str) -> subprocess.CompletedProcess[str]:
    base = {k: v for k, v in os.environ.items() if not k.startswith(("SECURE_", "LOGIN_THROTTLE_"))}
    return subprocess.run(
        [sys.executable, "-c", "import reviewapp.settings as s; print(s.LOGIN_THROTTLE_IP_HEADER)"],
        env={**base, "DEBUG": "0", "SECRET_KEY": "k" * 50, "ALLOWED_HOSTS": "x", **env},
        cwd=settings.BASE_DIR,
        capture_output=True,
        text=True,
        check=False,
    )


def test_behind_a_proxy_the_settings_refuse_to_load_without_the_client_address_header():
    result = _settings_load(SECURE_PROXY_SSL_HEADER="1")
    assert result.returncode != 0
    assert "ImproperlyConfigured" in result.stderr
    assert "set LOGIN_THROTTLE_IP_HEADER" in result.stderr
    ok = _settings_load(SECURE_PROXY_SSL_HEADER="1", LOGIN_THROTTLE_IP_HEADER="HTTP_X_REAL_IP")
    assert ok.returncode == 0, ok.stderr
    assert ok.stdout.strip() == "HTTP_X_REAL_IP"


def test_a_header_name_instead_of_its_meta_key_is_refused():
    result = _settings_load(LOGIN_THROTTLE_IP_HEADER="X-Real-IP")
    assert result.returncode != 0
    assert "must name a request.META key such as HTTP_X_REAL_IP" in result.stderr


# --- Known addresses: a wait at most, never the lock -------------------------------


def test_wrong_passwords_at_an_address_the_user_logged_in_from_cost_a_short_wait_not_the_lock(user, frozen_clock):
    # A shared office address: tilda logged in from it before; then six wrong passwords from there.
    assert _login(Client(), "tilda", factories.PASSWORD, "192.0.2.50").status_code == 302
    for _ in range(settings.LOGIN_THROTTLE_ATTEMPTS + 1):
        _login(Client(), "tilda", WRONG, "192.0.2.50")
    owner = Client()
    response = _login(owner, "tilda", factories.PASSWORD, "192.0.2.50")
    assert response.status_code == 429
    body = response.content.decode()
    assert TOO_MANY not in body
    # Not "from other places": the failures were made here.
    assert "Too many failed logins for this account." in body
    wait = SLOW_DOWN.search(body)
    assert wait is not None
    # The sixth wrong password took the next turn, 30 s on; tilda's is the one after.
    assert int(wait.group(1)) == int(response["Retry-After"]) <= 2 * 30
    frozen_clock[0] += int(response["Retry-After"])
    response = _login(owner, "tilda", factories.PASSWORD, "192.0.2.50")
    assert _logged_in(response, owner, user)
    # An address tilda never logged in from is locked for the window, as before.
    _fail_until_locked(Client(), "tilda", "203.0.113.77")
    frozen_clock[0] += 30
    assert TOO_MANY in _login(Client(), "tilda", factories.PASSWORD, "203.0.113.77").content.decode()


def test_known_addresses_are_stored_per_user_keyed_with_the_secret_key_never_in_clear(user, frozen_clock, settings):
    from reviewapp.models import KnownLoginAddress

    assert _login(Client(), "tilda", factories.PASSWORD, "192.0.2.50").status_code == 302
    row = KnownLoginAddress.objects.get()
    assert row.user_id == user.pk
    assert "192.0.2.50" not in row.digest
    # Not a plain hash anyone could compute for every IPv4 address: it changes with the key.
    settings.SECRET_KEY = "another-key-" + "x" * 40
    for _ in range(settings.LOGIN_THROTTLE_ATTEMPTS):
        _login(Client(), "tilda", WRONG, "192.0.2.50")
    assert _login(Client(), "tilda", factories.PASSWORD, "192.0.2.50").status_code == 429
    assert TOO_MANY in _login(Client(), "tilda", factories.PASSWORD, "192.0.2.50").content.decode()


def test_a_user_has_a_bounded_number_of_known_addresses_the_oldest_go_first(user, frozen_clock, settings):
    from reviewapp.models import KnownLoginAddress

    settings.LOGIN_THROTTLE_KNOWN_ADDRESSES = 3
    for n in range(5):
        frozen_clock[0] += 1
        assert _login(Client(), "tilda", factories.PASSWORD, f"198.51.100.{n}").status_code == 302
    assert KnownLoginAddress.objects.filter(user=user).count() == 3
    # The first address is forgotten: failures there lock again.
    _fail_until_locked(Client(), "tilda", "198.51.100.0")
    assert _login(Client(), "tilda", factories.PASSWORD, "198.51.100.0").status_code == 429
    # The newest is still known: a wait at most.
    for _ in range(settings.LOGIN_THROTTLE_ATTEMPTS):
        _login(Client(), "tilda", WRONG, "198.51.100.4")
    refused = _login(Client(), "tilda", factories.PASSWORD, "198.51.100.4")
    assert SLOW_DOWN.search(refused.content.decode()) is not None


def test_a_known_address_is_forgotten_after_the_days_set(user, frozen_clock):
    from reviewapp.models import KnownLoginAddress

    assert _login(Client(), "tilda", factories.PASSWORD, "192.0.2.50").status_code == 302
    frozen_clock[0] += (settings.LOGIN_THROTTLE_KNOWN_ADDRESS_DAYS + 1) * 86400
    _fail_until_locked(Client(), "tilda", "192.0.2.50")
    response = _login(Client(), "tilda", factories.PASSWORD, "192.0.2.50")
    assert response.status_code == 429
    assert TOO_MANY in response.content.decode()
    assert not KnownLoginAddress.objects.exists()


# --- A guesser at the user's own address: turns, kept in order ----------------------


@pytest.mark.parametrize("guesser_keeps_its_cookies", [True, False], ids=["cookie-keeping", "cookie-dropping"])
@pytest.mark.parametrize("user_arrives_after", [3.0, 29.75, 30.0, 47.25])
def test_a_user_who_waits_as_told_at_a_shared_address_gets_in_however_fast_a_guesser_fails_there(
    user, frozen_clock, guesser_keeps_its_cookies, user_arrives_after
):
    # tilda signed in at the office, so its address is known for her; then a
    # guesser there sends a wrong password every half second for three minutes.
    office, wait = "192.0.2.50", settings.LOGIN_THROTTLE_NEW_ADDRESS_WAIT
    assert _login(Client(), "tilda", factories.PASSWORD, office).status_code == 302
    start = frozen_clock[0]
    guesser, owner = Client(), Client()  # two browsers at one address; tilda's is not the one she signed in with
    checked: list[tuple[float, str]] = []  # when a password was checked, and whose
    told: list[tuple[float, int]] = []  # when tilda was refused, and the Retry-After she was given
    owner_next: float | None = start + user_arrives_after
    logged_in_at = None
    guess_at = start
    while guess_at < start + 180:
        # At the same instant the guesser goes first: the worst case for tilda.
        if owner_next is not None and owner_next < guess_at:
            frozen_clock[0] = owner_next
            response = _login(owner, "tilda", factories.PASSWORD, office)
            if response.status_code == 429:
                told.append((owner_next, int(response["Retry-After"])))
                owner_next += int(response["Retry-After"])  # she waits exactly as told
            else:
                assert _logged_in(response, owner, user)
                checked.append((owner_next, "tilda"))
                logged_in_at, owner_next = owner_next, None
            continue
        frozen_clock[0] = guess_at
        response = _login(guesser if guesser_keeps_its_cookies else Client(), "tilda", WRONG, office)
        assert response.status_code in (200, 429)
        if response.status_code == 200:
            checked.append((guess_at, "guesser"))
        guess_at += 0.5
    # tilda was told to wait once, waited that long, and her password was then checked ...
    assert logged_in_at is not None, f"still refused after 180 s, told {[r for _, r in told]}"
    assert len(told) == 1
    first_refused, retry_after = told[0]
    assert logged_in_at == first_refused + retry_after
    # ... within two waits: one for the turn the guesser may already hold, one for hers.
    assert retry_after <= 2 * wait
    # The guesser had its five attempts before the limit, then at most one check per wait.
    limit = settings.LOGIN_THROTTLE_ATTEMPTS
    assert [who for _, who in checked[:limit]] == ["guesser"] * limit
    guesses = [at for at, who in checked[limit:] if who == "guesser"]
    assert all(later - earlier >= wait for earlier, later in itertools.pairwise(guesses))
    assert len(guesses) <= 180 // wait
    if not guesser_keeps_its_cookies:
        assert guesses == []  # a client that never brings its ticket back is never checked again


def test_a_ticket_cannot_be_forged_replayed_or_used_for_another_username(user, frozen_clock):
    office = "192.0.2.50"
    assert _login(Client(), "tilda", factories.PASSWORD, office).status_code == 302
    for _ in range(settings.LOGIN_THROTTLE_ATTEMPTS):
        _login(Client(), "tilda", WRONG, office)
    guesser = Client()
    first = _login(guesser, "tilda", WRONG, office)
    assert first.status_code == 429
    ticket = guesser.cookies[throttle.TICKET_COOKIE].value
    frozen_clock[0] += int(first["Retry-After"])
    # Altered: a ticket is signed with SECRET_KEY, so a changed one is none, and the client queues again.
    forged = Client()
    forged.cookies[throttle.TICKET_COOKIE] = ticket[:-2] + ("AA" if not ticket.endswith("AA") else "BB")
    assert _login(forged, "tilda", WRONG, office).status_code == 429
    # For another username or address it is no ticket either: tilda at a second known
    # address, otto at the office, both past the limit there.
    assert _login(Client(), "tilda", factories.PASSWORD, "192.0.2.51").status_code == 302
    otto = factories.make_user(username="otto")
    assert _login(Client(), "otto", factories.PASSWORD, office).status_code == 302
    for _ in range(settings.LOGIN_THROTTLE_ATTEMPTS):
        _login(Client(), "tilda", WRONG, "192.0.2.51")
        _login(Client(), "otto", WRONG, office)
    elsewhere = Client()
    elsewhere.cookies[throttle.TICKET_COOKIE] = ticket
    assert _login(elsewhere, "tilda", WRONG, "192.0.2.51").status_code == 429
    borrowed = Client()
    borrowed.cookies[throttle.TICKET_COOKIE] = ticket
    assert _login(borrowed, otto.username, WRONG, office).status_code == 429
    # The real one is checked once; a copy of it kept aside is used up.
    copy = Client()
    copy.cookies[throttle.TICKET_COOKIE] = ticket
    assert _login(guesser, "tilda", WRONG, office).status_code == 200
    assert throttle.TICKET_COOKIE not in guesser.cookies or not guesser.cookies[throttle.TICKET_COOKIE].value
    assert _login(copy, "tilda", WRONG, office).status_code == 429


def test_the_admin_login_keeps_a_waiting_clients_turn_too(frozen_clock, db):
    factories.make_user(username="ada", is_staff=True, is_superuser=True)
    admin_login, office = reverse("admin:login"), "192.0.2.50"

    def admin(client: Client, password: str):  # type: ignore[no-untyped-def]
        return client.post(admin_login, {"username": "ada", "password": password}, REMOTE_ADDR=office)

    assert admin(Client(), factories.PASSWORD).status_code == 302  # the office is now known for ada
    guesser, owner = Client(), Client()
    for _ in range(settings.LOGIN_THROTTLE_ATTEMPTS + 1):
        admin(guesser, WRONG)
    assert throttle.TICKET_COOKIE in guesser.cookies  # the sixth was told to wait, with a turn
    assert admin(owner, factories.PASSWORD).status_code == 200  # refused: wait for the turn after the guesser's
    frozen_clock[0] += 2 * settings.LOGIN_THROTTLE_NEW_ADDRESS_WAIT
    admin(guesser, WRONG)  # the guesser uses its turn first
    response = admin(owner, factories.PASSWORD)
    assert response.status_code == 302
    assert owner.session.get("_auth_user_id") is not None
