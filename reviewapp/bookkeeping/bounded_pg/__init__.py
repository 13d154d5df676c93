"""accounted's database with limits the app enforces itself: no wait on it is endless, and it never takes every thread.

The settings use this package as the ``ENGINE`` of the ``bookkeeping`` alias
(``reviewapp.bookkeeping.bounded_pg.base``): Django's PostgreSQL backend, whose psycopg
connection gets two limits that hold even when the server stops answering
on a connection that is already open (issue 35: a stuck server, a
saturated pooler, a silent network path, with TCP still up).

- **A deadline on every wait.** Every blocking call of a synchronous psycopg
  connection (a query, a fetch, a COPY block, commit, rollback, Django's
  ``SELECT 1`` health check) goes through ``Connection.wait``; here it
  waits at most ``query_deadline`` seconds (the server's statement timeout
  plus a margin, so the server's own, cleaner error comes first when it
  can still answer). Past it the query is cancelled (a cancel request opens
  a new connection, which may hang too: at most ``cancel_timeout``), the
  connection is closed, and the wait raises ``OperationalError``, which the
  page answers with the usual 503 and ``Retry-After`` (reviewapp/web/outages.py).
  ``connect_timeout`` and ``statement_timeout`` alone do not do this: psycopg
  enforces the first only while connecting, and the second is enforced by
  the very server that no longer answers. Nor do TCP keepalives and
  ``tcp_user_timeout`` (measured: docs/operations.md): a hung server's (or
  a proxy's) kernel still acknowledges every packet.
- **Slots.** At most ``max_concurrent`` threads of the process are in
  accounted's database at once, from their first wait until the connection
  is out of its transaction again (a commit or rollback is never refused
  halfway). A thread that finds no slot within ``slot_wait`` seconds gets
  the same 503 at once, so while accounted hangs the threads left over keep
  serving the pages that read only the app's own database.

Code that lifts the statement timeout on purpose (``SET LOCAL
statement_timeout = 0``: the sync's whole-table pass, the export) gets
``unbounded_deadline`` per wait instead, for as long as that setting holds
(to the end of the transaction for ``SET LOCAL``): still a limit, but one
that a whole-table sort fits in.
"""

from __future__ import annotations

import logging
import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, TypeVar

import psycopg
from psycopg import errors, pq

logger = logging.getLogger(__name__)

RV = TypeVar("RV")

# SET [SESSION|LOCAL] statement_timeout {=|TO} value, as the code writes it.
_SET_STATEMENT_TIMEOUT = re.compile(
    r"""^\s*SET\s+(?:(?P<local>LOCAL)\s+|SESSION\s+)?statement_timeout\s*(?:=|TO)\s*'?(?P<value>\d+)\s*(?P<unit>ms|s|min)?'?\s*;?\s*$""",
    re.IGNORECASE,
)
_OUTSIDE = (pq.TransactionStatus.IDLE, pq.TransactionStatus.UNKNOWN)
_UNIT_SECONDS = {"ms": 0.001, "s": 1.0, "min": 60.0, "": 0.001}  # a bare number is milliseconds


@dataclass(frozen=True)
class Limits:
    """The limits of one alias (settings: DATABASES[alias]["LIMITS"])."""

    query_deadline: float  # seconds one wait may last; 0: none
    unbounded_deadline: float  # the same once the code set statement_timeout = 0; 0: none
    margin: float  # added to a statement timeout the code sets itself
    health_check: float  # seconds Django's health check (SELECT 1 on a kept connection) may last
    cancel_timeout: float  # seconds a cancel request may take before the connection is simply closed
    max_concurrent: int  # threads of this process in this database at once; 0: no limit
    slot_wait: float  # seconds a thread waits for a slot before it is refused

    @classmethod
    def from_settings(cls, settings_dict: dict[str, Any]) -> Limits | None:
        raw = settings_dict.get("LIMITS")
        return None if raw is None else cls(**raw)


class Busy(errors.OperationalError):
    """Every slot for this database is taken: the request is refused at once, not queued."""


class NoAnswer(errors.OperationalError):
    """The server did not answer within the app's own deadline; the connection was closed."""


_slots: dict[str, threading.BoundedSemaphore] = {}
_slots_lock = threading.Lock()


def slots_for(alias: str, size: int) -> threading.BoundedSemaphore | None:
    """The process's semaphore for ``alias`` (one per process: gunicorn's threads share it)."""
    if size <= 0:
        return None
    with _slots_lock:
        if alias not in _slots:
            _slots[alias] = threading.BoundedSemaphore(size)
        return _slots[alias]


class WaitState:
    """One Django connection's limits and its current override (the health check's shorter bound)."""

    def __init__(self, alias: str, limits: Limits) -> None:
        self.alias = alias
        self.limits = limits
        self.slots = slots_for(alias, limits.max_concurrent)
        self.override: float | None = None
        self.holds_slot = False
        # Django makes each thread its own connection object; another thread
        # using this one (a psycopg pool's worker checking it) gets the
        # deadline but neither this thread's slot nor its override.
        self.thread = threading.get_ident()

    def take_slot(self) -> None:
        """Hold one of the process's slots (kept until ``leave_slot``); ``Busy`` when none frees in time."""
        if self.slots is None or self.holds_slot:
            return
        if not self.slots.acquire(timeout=self.limits.slot_wait):
            raise Busy(
                f"{self.alias!r}: all {self.limits.max_concurrent} of this process's slots are "
                "waiting on it; refused at once"
            )
        self.holds_slot = True

    def leave_slot(self) -> None:
        if self.holds_slot:
            self.holds_slot = False
            assert self.slots is not None
            self.slots.release()

    @contextmanager
    def bounded(self, seconds: float) -> Iterator[None]:
        """Every wait inside lasts at most ``seconds`` (or less when the deadline is shorter)."""
        previous, self.override = self.override, seconds
        try:
            yield
        finally:
            self.override = previous


class BoundedConnection(psycopg.Connection[Any]):
    """A psycopg connection whose waits end within the app's limits (see the module docstring).

    Made by re-classing the connection Django opens (``base.DatabaseWrapper``):
    psycopg's ``connect`` builds the class it is called on, and Django calls
    it on the module. The class adds no slots, so the swap is safe.
    """

    _bounded: WaitState
    # A connection no thread has bound yet: one a psycopg pool (DB_POOL=1)
    # opened and checks on its own before handing it out (base.DatabaseWrapper sets it).
    unbound_deadline: float | None = None
    _timeout_set: float | None  # a statement timeout the code set on this session (seconds; 0: none)
    _timeout_local: bool

    def bind(self, state: WaitState) -> None:
        self._bounded = state
        self._timeout_set = None
        self._timeout_local = False
        # Django gives every connection its cursor class; watch what runs through it.
        self.cursor_factory = _watching(self.cursor_factory)

    def deadline(self) -> float | None:
        state = self._bounded
        limits = state.limits
        if self._timeout_set is None:
            seconds = limits.query_deadline
        elif self._timeout_set == 0:
            seconds = limits.unbounded_deadline
        else:
            seconds = self._timeout_set + limits.margin
        if state.override is not None:
            seconds = min(seconds, state.override) if seconds else state.override
        return seconds or None

    def note_statement_timeout(self, query: Any) -> None:
        if not isinstance(query, str | bytes):
            return
        text = query.decode() if isinstance(query, bytes) else query
        match = _SET_STATEMENT_TIMEOUT.match(text)
        if match is None:
            return
        value = int(match["value"]) * _UNIT_SECONDS[(match["unit"] or "").lower()]
        self._timeout_set = value
        self._timeout_local = bool(match["local"])

    def wait(self, gen: Any, interval: float = 0.1, timeout: float | None = None) -> Any:
        if timeout is not None:
            return super().wait(gen, interval, timeout)  # psycopg's own bounded waits (cancel, close)
        if not hasattr(self, "_bounded"):
            return self._wait_without_slot(gen, interval, self.unbound_deadline)
        if threading.get_ident() != self._bounded.thread:
            return self._wait_without_slot(gen, interval, self._bounded.limits.query_deadline or None)
        try:
            self._bounded.take_slot()
        except Busy:
            gen.close()
            raise
        seconds = self.deadline()
        try:
            result = super().wait(gen, interval, seconds)
        except errors._WaitTimeout:
            self._give_up(seconds)
            raise NoAnswer(
                f"{self._bounded.alias!r} did not answer within {seconds:g} s (the app's own limit); "
                "the connection was closed"
            ) from None
        except BaseException:
            if self.out_of_transaction():
                self._bounded.leave_slot()
            raise
        if self.out_of_transaction():
            if self._timeout_local:  # SET LOCAL ends with its transaction
                self._timeout_set, self._timeout_local = None, False
            self._bounded.leave_slot()
        return result

    def _wait_without_slot(self, gen: Any, interval: float, seconds: float | None) -> Any:
        """A wait from a thread other than the one that bound this connection (a pool's worker): the deadline only."""
        try:
            return super().wait(gen, interval, seconds)
        except errors._WaitTimeout:
            # Its protocol state is unknown past the timeout: no one may use it again.
            self.pgconn.finish()
            raise NoAnswer(f"no answer within {seconds:g} s (the app's own limit); the connection was closed") from None

    def out_of_transaction(self) -> bool:
        """Nothing on the server waits for this connection to finish (no open transaction, or no connection)."""
        return self.closed or self.pgconn.transaction_status in _OUTSIDE

    def close(self) -> None:
        try:
            super().close()
        finally:
            if hasattr(self, "_bounded"):
                self._bounded.leave_slot()

    def _give_up(self, seconds: float | None) -> None:
        """Past the deadline: ask the server to stop (bounded: the cancel may hang too), then close."""
        logger.warning(
            "%r did not answer within %s s; cancelling and closing the connection", self._bounded.alias, seconds
        )
        # Under a health check's bound the query is a SELECT 1: nothing to stop on the server.
        if self._bounded.override is None:
            try:
                self.cancel_safe(timeout=self._bounded.limits.cancel_timeout)
            except Exception as error:
                logger.warning("%r: the cancel request failed too (%s)", self._bounded.alias, error)
        # Closing the socket is what frees this thread; the server sees it when it next writes.
        self.pgconn.finish()
        self._bounded.leave_slot()


_watching_classes: dict[type, type] = {}


def _watching(cursor_class: type) -> type:
    """``cursor_class`` that tells its connection about a statement timeout the code sets itself."""
    if cursor_class not in _watching_classes:

        class Watching(cursor_class):  # type: ignore[valid-type,misc]
            def execute(self, query: Any, params: Any = None, **kwargs: Any) -> Any:
                result = super().execute(query, params, **kwargs)
                connection = self.connection
                if isinstance(connection, BoundedConnection):
                    connection.note_statement_timeout(query)
                return result

        Watching.__name__ = Watching.__qualname__ = f"Watching{cursor_class.__name__}"
        _watching_classes[cursor_class] = Watching
    return _watching_classes[cursor_class]
