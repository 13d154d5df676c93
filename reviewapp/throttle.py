"""Login throttling that an attacker can neither wipe nor turn against a user.

Three counts per window (fixed windows of LOGIN_THROTTLE_WINDOW seconds,
aligned to the clock), each a row of ``LoginThrottle`` in the review
database, so every gunicorn process and host shares them:

- per username *and* address (LOGIN_THROTTLE_ATTEMPTS, 5): the classic lock.
  It only locks that username from that address, so failures from an
  attacker's address never refuse the right password from the user's own.
- per address (LOGIN_THROTTLE_ADDRESS_ATTEMPTS, 30): one address guessing
  many usernames is refused altogether.
- per username from every address (LOGIN_THROTTLE_USER_ATTEMPTS, 10): a
  guessing run spread over many addresses. It refuses nothing for good:
  while it is exceeded, each attempt from an address this user has not
  logged in from before is first asked to wait
  LOGIN_THROTTLE_NEW_ADDRESS_WAIT seconds (one "wait and try again"), then
  the password is checked.

An attempt *claims* its counts before the password is checked (an atomic
``INSERT … ON CONFLICT DO UPDATE … RETURNING``), so parallel guesses cannot
slip past a limit; a correct password gives the claims back and clears the
username-and-address count. An attempt that is refused claims nothing.
Addresses a user logged in from are remembered (``KnownLoginAddress``: an
HMAC of username and address keyed with SECRET_KEY, at most
LOGIN_THROTTLE_KNOWN_ADDRESSES per user, for LOGIN_THROTTLE_KNOWN_ADDRESS_DAYS
after the last login from each). From a known address:

- the per-address and per-username limits do not apply, so a flood from a
  shared office address does not lock out the people who work there;
- the username-and-address limit never locks: past it, each attempt first
  waits LOGIN_THROTTLE_NEW_ADDRESS_WAIT seconds (30), then its password is
  checked. A colleague's typos, or a guesser at the same office address,
  cost the user at most that wait, never the 15-minute lock; the guesser
  gets one guess per wait.

Rows are keyed by a SHA-256 of what they count, never by the typed username;
they are deleted only after they expire, unlike a cache, which may cull
them (the database cache did at 300 entries, so a run of junk usernames
wiped everyone's counts).
"""

from __future__ import annotations

import datetime
import hashlib
import math
import time
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from django.db import connections, router
from django.http import HttpRequest
from django.utils.crypto import salted_hmac

from reviewapp.models import KnownLoginAddress, LoginThrottle

LOCKED = "locked"
SLOW_DOWN = "slow_down"
# Failures at an address the user has logged in from: a wait, not the lock.
SLOW_DOWN_HERE = "slow_down_here"


@dataclass(frozen=True, slots=True)
class Verdict:
    allowed: bool
    retry_after: int = 0  # seconds until the next attempt can be checked, when refused
    reason: str = ""  # LOCKED, SLOW_DOWN or SLOW_DOWN_HERE when refused
    claimed: tuple[str, ...] = field(default=(), repr=False)  # keys to give back on success

    @property
    def retry_after_minutes(self) -> int:
        return max(1, math.ceil(self.retry_after / 60))


def clock() -> float:
    """The time the throttle runs on; tests replace it to move through windows."""
    return time.time()


def client_address(request: HttpRequest) -> str:
    """The client's address: REMOTE_ADDR, or the header a trusted proxy sets.

    Behind a proxy every request comes from the proxy's address, so set
    LOGIN_THROTTLE_IP_HEADER (e.g. ``HTTP_X_REAL_IP``) to the header the proxy
    writes; the rightmost entry of a list is the one the proxy appended.
    Settings refuse to load with SECURE_PROXY_SSL_HEADER on and this unset.
    """
    header = getattr(settings, "LOGIN_THROTTLE_IP_HEADER", "")
    if header:
        value = request.META.get(header, "")
        if value:
            return value.split(",")[-1].strip()
    return request.META.get("REMOTE_ADDR", "") or "unknown"


def _key(kind: str, *parts: str) -> str:
    return hashlib.sha256("\x00".join((kind, *parts)).encode()).hexdigest()


def _at(seconds: float) -> datetime.datetime:
    return datetime.datetime.fromtimestamp(seconds, tz=datetime.UTC)


def _table() -> tuple[str, str]:
    alias = router.db_for_write(LoginThrottle) or "default"
    return alias, connections[alias].ops.quote_name(LoginThrottle._meta.db_table)


def _run(sql: str, params: list[Any]) -> tuple[Any, ...] | None:
    alias, table = _table()
    with connections[alias].cursor() as cursor:
        cursor.execute(sql.replace("{t}", table), params)
        return cursor.fetchone() if cursor.description else None


def _claim(key: str, now: float, expires: float) -> int:
    row = _run(
        "INSERT INTO {t} AS t (key, count, created_at, expires_at) VALUES (%s, 1, %s, %s) "
        "ON CONFLICT (key) DO UPDATE SET count = t.count + 1 RETURNING t.count",
        [key, _at(now), _at(expires)],
    )
    assert row is not None
    return int(row[0])


def _give_back(keys: tuple[str, ...] | list[str]) -> None:
    if keys:
        _run("UPDATE {t} SET count = GREATEST(count - 1, 0) WHERE key = ANY(%s)", [list(keys)])


def _count(key: str) -> int:
    row = _run("SELECT count FROM {t} WHERE key = %s", [key])
    return int(row[0]) if row else 0


def _known_digest(username: str, address: str) -> str:
    # Keyed with SECRET_KEY: a plain hash of an IPv4 address is found by trying all of them.
    return salted_hmac("reviewapp.throttle.known-address", f"{username}\x00{address}", algorithm="sha256").hexdigest()


def _is_known(username: str, address: str, now: float) -> bool:
    return KnownLoginAddress.objects.filter(digest=_known_digest(username, address), expires_at__gt=_at(now)).exists()


def _remember(user_id: int, username: str, address: str, now: float) -> None:
    """Make ``address`` known for the user; keep only their most recently used ones."""
    days = max(0, settings.LOGIN_THROTTLE_KNOWN_ADDRESS_DAYS)
    if not days:
        return
    KnownLoginAddress.objects.bulk_create(
        [
            KnownLoginAddress(
                user_id=user_id,
                digest=_known_digest(username, address),
                last_login_at=_at(now),
                expires_at=_at(now + days * 86400),
            )
        ],
        update_conflicts=True,
        unique_fields=["digest"],
        update_fields=["last_login_at", "expires_at"],
    )
    mine = KnownLoginAddress.objects.filter(user_id=user_id)
    keep = list(
        mine.order_by("-last_login_at", "-pk").values_list("pk", flat=True)[: settings.LOGIN_THROTTLE_KNOWN_ADDRESSES]
    )
    mine.exclude(pk__in=keep).delete()


def _wait_before_checking(username: str, address: str, now: float) -> int:
    """Seconds this address must still wait before its password for ``username`` is checked.

    The first attempt starts the wait; one attempt after it has passed uses it
    up (a DELETE, so two processes cannot both use one).
    """
    wait = max(0, settings.LOGIN_THROTTLE_NEW_ADDRESS_WAIT)
    key = _key("wait", username, address)
    used = _run(
        "DELETE FROM {t} WHERE key = %s AND created_at <= %s AND expires_at > %s RETURNING 1",
        [key, _at(now - wait), _at(now)],
    )
    if used is not None:
        return 0
    # Start the wait, or restart one that expired unused.
    row = _run(
        "INSERT INTO {t} AS t (key, count, created_at, expires_at) VALUES (%s, 0, %s, %s) "
        "ON CONFLICT (key) DO UPDATE SET created_at = CASE WHEN t.expires_at <= EXCLUDED.created_at "
        "THEN EXCLUDED.created_at ELSE t.created_at END, expires_at = CASE WHEN t.expires_at <= "
        "EXCLUDED.created_at THEN EXCLUDED.expires_at ELSE t.expires_at END RETURNING t.created_at",
        [key, _at(now), _at(now + wait + settings.LOGIN_THROTTLE_WINDOW)],
    )
    assert row is not None
    started = row[0].timestamp()
    return max(1, math.ceil(started + wait - now))


def _forget_expired(now: float) -> None:
    _run("DELETE FROM {t} WHERE expires_at <= %s", [_at(now)])
    KnownLoginAddress.objects.filter(expires_at__lte=_at(now)).delete()


def _user(username: str) -> str:
    return username.strip().casefold()


def claim_attempt(username: str, address: str, *, now: float | None = None) -> Verdict:
    """Claim one attempt, or refuse it (and claim nothing) when a limit says so."""
    now = clock() if now is None else now
    user = _user(username)
    window = max(1, settings.LOGIN_THROTTLE_WINDOW)
    bucket = str(int(now // window))
    window_ends = (int(now // window) + 1) * window
    keep_until = window_ends + window
    _forget_expired(now)

    def refuse(claimed: list[str], reason: str, retry_after: float) -> Verdict:
        _give_back(claimed)
        return Verdict(allowed=False, retry_after=max(1, math.ceil(retry_after)), reason=reason)

    known = _is_known(user, address, now)
    pair = _key("pair", user, address, bucket)
    claimed = [pair]
    if _claim(pair, now, keep_until) > max(1, settings.LOGIN_THROTTLE_ATTEMPTS):
        if not known:
            return refuse(claimed, LOCKED, window_ends - now)
        # Where the user has logged in before: a wait, never the lock.
        wait = _wait_before_checking(user, address, now)
        if wait:
            return refuse(claimed, SLOW_DOWN_HERE, wait)
    if known:
        return Verdict(allowed=True, claimed=tuple(claimed))

    by_address = _key("address", address, bucket)
    claimed.append(by_address)
    if _claim(by_address, now, keep_until) > max(1, settings.LOGIN_THROTTLE_ADDRESS_ATTEMPTS):
        return refuse(claimed, LOCKED, window_ends - now)

    by_user = _key("user", user, bucket)
    if _count(by_user) >= max(1, settings.LOGIN_THROTTLE_USER_ATTEMPTS):
        wait = _wait_before_checking(user, address, now)
        if wait:
            return refuse(claimed, SLOW_DOWN, wait)
    _claim(by_user, now, keep_until)
    claimed.append(by_user)
    return Verdict(allowed=True, claimed=tuple(claimed))


def record_success(
    username: str, address: str, verdict: Verdict, *, user_id: int | None = None, now: float | None = None
) -> None:
    """A correct password: this attempt was no failure, and this address is now known for the user."""
    now = clock() if now is None else now
    user = _user(username)
    pair, *others = verdict.claimed or ("",)
    _run("DELETE FROM {t} WHERE key = %s", [pair])
    _give_back(others)
    if user_id is not None:
        _remember(user_id, user, address, now)
