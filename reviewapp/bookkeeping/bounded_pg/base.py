"""Django's PostgreSQL backend with the app's own limits on every wait (see ``reviewapp.bookkeeping.bounded_pg``)."""

from __future__ import annotations

import math
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from typing import Any

from django.core.exceptions import ImproperlyConfigured
from django.db.backends.postgresql import base

from reviewapp.bookkeeping.bounded_pg import BoundedConnection, Limits, WaitState


class DatabaseWrapper(base.DatabaseWrapper):
    def __init__(self, settings_dict: dict[str, Any], alias: str = "default") -> None:
        super().__init__(settings_dict, alias)
        limits = Limits.from_settings(settings_dict)
        if limits is None:
            raise ImproperlyConfigured(
                f"DATABASES[{alias!r}] uses reviewapp.bookkeeping.bounded_pg but sets no LIMITS."
            )
        self.wait_state = WaitState(alias, limits)
        # Only a pool's own small statements (its check, Django's configure) run on one.
        BoundedConnection.unbound_deadline = limits.health_check
        options = settings_dict["OPTIONS"]
        if options.get("pool"):
            # The pool opens its connections itself (DB_POOL=1): of this class, so that
            # even its own check before handing one out has a deadline.
            pool = {} if options["pool"] is True else options["pool"]
            options["pool"] = {**pool, "connection_class": BoundedConnection}

    @contextmanager
    def bounded(self, seconds: float) -> Iterator[None]:
        """Every wait on this connection inside lasts at most ``seconds``, connecting included."""
        with self.wait_state.bounded(seconds):
            yield

    def get_connection_params(self) -> dict[str, Any]:
        params = super().get_connection_params()
        override = self.wait_state.override
        if override is not None:
            # libpq's connect_timeout is whole seconds (psycopg enforces it on the client).
            current = int(params.get("connect_timeout") or 0)
            bound = max(1, math.ceil(override))
            params["connect_timeout"] = min(current, bound) if current else bound
        return params

    def get_new_connection(self, conn_params: dict[str, Any]) -> Any:
        # Connecting waits too (up to connect_timeout): it takes a slot like a query.
        self.wait_state.take_slot()
        try:
            # With DB_POOL=1 this includes the pool's check of the connection it hands out
            # (a SELECT in effect): bounded like Django's health check.
            with self.wait_state.bounded(self.wait_state.limits.health_check) if self.pool else nullcontext():
                connection = super().get_new_connection(conn_params)
        except BaseException:
            self.wait_state.leave_slot()
            raise
        if not isinstance(connection, BoundedConnection):
            connection.__class__ = BoundedConnection
        connection.bind(self.wait_state)
        if connection.out_of_transaction():
            self.wait_state.leave_slot()  # Django's first statements (time zone, role) take one again
        return connection

    def is_usable(self) -> bool:
        # Django's health check of a kept connection (CONN_HEALTH_CHECKS): a
        # SELECT 1 that must not wait as long as a real query may.
        with self.wait_state.bounded(self.wait_state.limits.health_check):
            return bool(super().is_usable())
