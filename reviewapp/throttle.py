"""Login throttling: at most N password checks per username and client address per window.

The counts live in Django's cache, configured as the database cache, so every
gunicorn process and host sees the same counts without another service.

Every attempt first claims one of N numbered slots for the current window with
``cache.add``, which the database cache turns into an INSERT on the cache
table's primary key: two processes can never claim the same slot, so even N
parallel guesses cannot get past the limit. A successful login frees the
slots; a failed one keeps its slot. When all N are taken the attempt is
refused, without checking the password, until the window ends.

Windows are fixed (aligned to multiples of the window length), so the limit
is N per window; across a window boundary at most 2N guesses can come close
together, and never more than N per window over time.
"""

from __future__ import annotations

import hashlib
import math
import time
from dataclasses import dataclass

from django.conf import settings
from django.core.cache import cache
from django.http import HttpRequest

KEY_PREFIX = "login-throttle"


@dataclass(frozen=True, slots=True)
class Verdict:
    allowed: bool
    retry_after: int = 0  # seconds until the next attempt is allowed, when refused

    @property
    def retry_after_minutes(self) -> int:
        return max(1, math.ceil(self.retry_after / 60))


def client_address(request: HttpRequest) -> str:
    """The client's address: REMOTE_ADDR, or the header a trusted proxy sets.

    Behind a proxy every request comes from the proxy's address, so set
    LOGIN_THROTTLE_IP_HEADER (e.g. ``HTTP_X_REAL_IP``) to the header the proxy
    writes; the rightmost entry of a list is the one the proxy appended.
    """
    header = getattr(settings, "LOGIN_THROTTLE_IP_HEADER", "")
    if header:
        value = request.META.get(header, "")
        if value:
            return value.split(",")[-1].strip()
    return request.META.get("REMOTE_ADDR", "") or "unknown"


def _limits() -> tuple[int, int]:
    return max(1, settings.LOGIN_THROTTLE_ATTEMPTS), max(1, settings.LOGIN_THROTTLE_WINDOW)


def _slot_keys(username: str, address: str, now: float) -> tuple[list[str], float]:
    attempts, window = _limits()
    bucket = int(now // window)
    # Hashed: usernames are user input and cache keys have a length limit.
    who = hashlib.sha256(f"{username.strip().casefold()}\x00{address}".encode()).hexdigest()
    keys = [f"{KEY_PREFIX}:{who}:{bucket}:{slot}" for slot in range(attempts)]
    window_ends = (bucket + 1) * window
    return keys, window_ends


def claim_attempt(username: str, address: str, *, now: float | None = None) -> Verdict:
    """Take one attempt from the budget, or refuse when it is spent."""
    now = time.time() if now is None else now
    keys, window_ends = _slot_keys(username, address, now)
    _, window = _limits()
    for key in keys:
        # Kept for two windows so a slot never expires while its window runs.
        if cache.add(key, int(now), timeout=2 * window):
            return Verdict(allowed=True)
    return Verdict(allowed=False, retry_after=max(1, math.ceil(window_ends - now)))


def forget_attempts(username: str, address: str, *, now: float | None = None) -> None:
    """A correct password: the failures before it no longer count."""
    now = time.time() if now is None else now
    keys, _ = _slot_keys(username, address, now)
    cache.delete_many(keys)
