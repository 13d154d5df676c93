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
  while it is exceeded, an attempt from an address this user has not
  logged in from before waits for its *turn* (below), then the password is
  checked.

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
- the username-and-address limit never locks: past it, each attempt waits
  for its turn, then its password is checked. A colleague's typos, or a
  guesser at the same office address, cost the user at most two waits,
  never the 15-minute lock; the guesser gets one guess per wait.

Turns (``_take_turn``): past a limit that asks for a wait, passwords for a
username from an address are checked one per turn, turns
LOGIN_THROTTLE_NEW_ADDRESS_WAIT seconds (30) apart. The 429 hands the client
the next free turn in a ticket (a cookie, TICKET_COOKIE) and says in
Retry-After when it comes; bringing the ticket back then gets the password
checked. Turns are handed out in order and each is used once, so a guesser
polling every half second cannot take the turn of a user who was told to
wait (before: whoever came first after a wait used it up, which was always
the guesser, and its next failure started a new wait, for ever).

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
from django.core import signing
from django.db import connections, router
from django.http import HttpRequest
from django.utils.crypto import salted_hmac

from reviewapp.models import KnownLoginAddress, LoginThrottle

LOCKED = "locked"
SLOW_DOWN = "slow_down"
# Failures at an address the user has logged in from: a wait, not the lock.
SLOW_DOWN_HERE = "slow_down_here"

# The cookie that holds a client's turn past the limit (see _take_turn).
TICKET_COOKIE = "login_turn"
TICKET_SALT = "reviewapp.web.throttle.turn"


@dataclass(frozen=True, slots=True)
class Verdict:
    allowed: bool
    retry_after: int = 0  # seconds until the next attempt can be checked, when refused
    reason: str = ""  # LOCKED, SLOW_DOWN or SLOW_DOWN_HERE when refused
    claimed: tuple[str, ...] = field(default=(), repr=False)  # keys to give back on success
    # The client's ticket cookie (TICKET_COOKIE): None leaves it alone, "" removes it, else its new value.
    ticket: str | None = field(default=None, repr=False)

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


def _run(sql: str, params: list[Any] | dict[str, Any]) -> tuple[Any, ...] | None:
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
    return salted_hmac(
        "reviewapp.web.throttle.known-address", f"{username}\x00{address}", algorithm="sha256"
    ).hexdigest()


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


def _ticket_binding(username: str, address: str) -> str:
    # What a ticket is for, keyed with SECRET_KEY: readable in the cookie, so not a plain hash of the address.
    return salted_hmac(TICKET_SALT, f"{username}\x00{address}", algorithm="sha256").hexdigest()[:32]


def _ticket_slot(ticket: str, username: str, address: str) -> int | None:
    """The turn (microseconds since the epoch) a ticket of ours names for this username and address."""
    if not ticket:
        return None
    try:
        data = signing.loads(ticket, salt=TICKET_SALT)
    except signing.BadSignature:
        return None
    if not isinstance(data, dict) or data.get("for") != _ticket_binding(username, address):
        return None
    slot = data.get("turn")
    return slot if isinstance(slot, int) and not isinstance(slot, bool) else None


def _slot_key(username: str, address: str, slot: int) -> str:
    return _key("turn", username, address, str(slot))


def _take_turn(username: str, address: str, ticket: str, now: float) -> tuple[int, str]:
    """``(0, "")`` when this attempt's password may be checked now; else the seconds to wait and its ticket.

    Past the limit, passwords for this username from this address are
    checked one per *turn*, turns LOGIN_THROTTLE_NEW_ADDRESS_WAIT seconds
    apart. An attempt without a ticket is handed the next free turn, queued
    after those already handed out, in a ticket (a cookie signed with
    SECRET_KEY, naming the username-and-address it is for and its turn); the
    attempt that brings that ticket at or after its turn is checked, and the
    turn is used up (a DELETE, so two processes cannot both use one). So a
    patient client is served at the time it was told, in the order it asked,
    and a guesser polling every half second cannot take its turn: the
    guesser's own ticket names its own turn, and a used turn or a forged
    ticket counts as none, i.e. goes to the back of the queue.

    The queue never runs more than two turns ahead: once it does, a client
    without a ticket shares the last turn (the first to bring a ticket for it
    is checked; the others queue again). Clients that never bring their
    ticket back (a script dropping cookies) therefore cannot push everyone's
    turn into the far future.
    """
    wait = max(0, settings.LOGIN_THROTTLE_NEW_ADDRESS_WAIT)
    if not wait:
        return 0, ""
    keep = max(wait, settings.LOGIN_THROTTLE_WINDOW)  # how long after its turn a ticket may still be used
    slot = _ticket_slot(ticket, username, address)
    if slot is not None:
        if now < slot / 1e6:
            return max(1, math.ceil(slot / 1e6 - now)), ticket
        used = _run(
            "DELETE FROM {t} WHERE key = %s AND expires_at > %s RETURNING 1",
            [_slot_key(username, address, slot), _at(now)],
        )
        if used is not None:
            return 0, ""
        # Used already (by another holder of a shared turn) or too old: queue again.
    # The next turn: a wait after the last one handed out and a wait from now,
    # unless that is more than two waits ahead; then the last one, shared.
    row = _run(
        "INSERT INTO {t} AS t (key, count, created_at, expires_at) VALUES (%(key)s, 0, %(first)s, %(first_ends)s) "
        "ON CONFLICT (key) DO UPDATE SET created_at = CASE "
        "WHEN GREATEST(t.created_at + %(wait)s, EXCLUDED.created_at) <= %(horizon)s "
        "THEN GREATEST(t.created_at + %(wait)s, EXCLUDED.created_at) ELSE t.created_at END, "
        "expires_at = CASE WHEN GREATEST(t.created_at + %(wait)s, EXCLUDED.created_at) <= %(horizon)s "
        "THEN GREATEST(t.created_at + %(wait)s, EXCLUDED.created_at) + %(keep)s ELSE t.expires_at END "
        "RETURNING t.created_at",
        {
            "key": _key("queue", username, address),
            "first": _at(now + wait),
            "first_ends": _at(now + wait + keep),
            "wait": datetime.timedelta(seconds=wait),
            "keep": datetime.timedelta(seconds=keep),
            "horizon": _at(now + 2 * wait),
        },
    )
    assert row is not None
    turn: datetime.datetime = row[0]
    slot = round(turn.timestamp() * 1e6)
    _run(
        "INSERT INTO {t} (key, count, created_at, expires_at) VALUES (%s, 0, %s, %s) ON CONFLICT (key) DO NOTHING",
        [_slot_key(username, address, slot), turn, turn + datetime.timedelta(seconds=keep)],
    )
    ticket = signing.dumps({"for": _ticket_binding(username, address), "turn": slot}, salt=TICKET_SALT)
    return max(1, math.ceil(slot / 1e6 - now)), ticket


def _forget_expired(now: float) -> None:
    _run("DELETE FROM {t} WHERE expires_at <= %s", [_at(now)])
    KnownLoginAddress.objects.filter(expires_at__lte=_at(now)).delete()


def _user(username: str) -> str:
    return username.strip().casefold()


def claim_attempt(username: str, address: str, *, ticket: str = "", now: float | None = None) -> Verdict:
    """Claim one attempt, or refuse it (and claim nothing) when a limit says so.

    ``ticket`` is the client's TICKET_COOKIE, if any; the verdict says what to
    put in it.
    """
    now = clock() if now is None else now
    user = _user(username)
    window = max(1, settings.LOGIN_THROTTLE_WINDOW)
    bucket = str(int(now // window))
    window_ends = (int(now // window) + 1) * window
    keep_until = window_ends + window
    _forget_expired(now)

    def refuse(claimed: list[str], reason: str, retry_after: float, ticket: str | None = None) -> Verdict:
        _give_back(claimed)
        return Verdict(allowed=False, retry_after=max(1, math.ceil(retry_after)), reason=reason, ticket=ticket)

    known = _is_known(user, address, now)
    pair = _key("pair", user, address, bucket)
    claimed = [pair]
    used: str | None = None  # "" once this attempt has used its turn: the cookie goes
    if _claim(pair, now, keep_until) > max(1, settings.LOGIN_THROTTLE_ATTEMPTS):
        if not known:
            return refuse(claimed, LOCKED, window_ends - now)
        # Where the user has logged in before: a wait for a turn, never the lock.
        wait, new_ticket = _take_turn(user, address, ticket, now)
        if wait:
            return refuse(claimed, SLOW_DOWN_HERE, wait, new_ticket)
        used = ""
    if known:
        return Verdict(allowed=True, claimed=tuple(claimed), ticket=used)

    by_address = _key("address", address, bucket)
    claimed.append(by_address)
    if _claim(by_address, now, keep_until) > max(1, settings.LOGIN_THROTTLE_ADDRESS_ATTEMPTS):
        return refuse(claimed, LOCKED, window_ends - now)

    by_user = _key("user", user, bucket)
    if _count(by_user) >= max(1, settings.LOGIN_THROTTLE_USER_ATTEMPTS):
        wait, new_ticket = _take_turn(user, address, ticket, now)
        if wait:
            return refuse(claimed, SLOW_DOWN, wait, new_ticket)
        used = ""
    _claim(by_user, now, keep_until)
    claimed.append(by_user)
    return Verdict(allowed=True, claimed=tuple(claimed), ticket=used)


def record_success(
    username: str, address: str, verdict: Verdict, *, user_id: int | None = None, now: float | None = None
) -> None:
    """A correct password: this attempt was no failure, and this address is now known for the user."""
    now = clock() if now is None else now
    user = _user(username)
    if verdict.ticket == "":
        # It came in on a turn: the failures before it may be a guesser's at
        # the same address, who would otherwise get the limit's free guesses
        # again each time the user logs in. Only this attempt is given back.
        _give_back(verdict.claimed)
    else:
        pair, *others = verdict.claimed or ("",)
        _run("DELETE FROM {t} WHERE key = %s", [pair])
        _give_back(others)
    if user_id is not None:
        _remember(user_id, user, address, now)
