"""The replica of accounted's tables: for development, tests and CI, never production.

``replica.sql`` is written from the contract (``../shared/bookkeeping/README.md``).
Applying it marks the database's ``public`` schema with a comment, so that the
commands that write demo or simulated intake data (``seed_demo``) can refuse
any database this project did not create: a real accounted database has no
such mark.
"""

from __future__ import annotations

from pathlib import Path
from typing import Final

from django.db import connections
from django.db.backends.base.base import BaseDatabaseWrapper

from reviewapp.bookkeeping.routers import BOOKKEEPING_DB

REPLICA_SQL: Final = Path(__file__).with_name("replica.sql")
MARK: Final = "replica of accounted's tables, created by the review app's create_bookkeeping_replica"


class ReplicaRefused(Exception):
    """The database is not one this project may write demo data into, or already has the tables."""


def has_inbox_table(connection: BaseDatabaseWrapper) -> bool:
    with connection.cursor() as cursor:
        cursor.execute("SELECT to_regclass('public.invoice_inbox_items') IS NOT NULL")
        return bool(cursor.fetchone()[0])


def create(connection: BaseDatabaseWrapper | None = None) -> None:
    """Create accounted's tables on an empty database, in one transaction."""
    connection = connection or connections[BOOKKEEPING_DB]
    if has_inbox_table(connection):
        raise ReplicaRefused(
            f"public.invoice_inbox_items already exists in database {connection.settings_dict['NAME']!r}: "
            "nothing was changed (the replica is only ever created on an empty database)."
        )
    sql = REPLICA_SQL.read_text(encoding="utf-8")
    with connection.cursor() as cursor, connection.connection.transaction():  # type: ignore[union-attr]
        cursor.execute(sql)
        cursor.execute("COMMENT ON SCHEMA public IS %s", [MARK])


def is_replica(connection: BaseDatabaseWrapper | None = None) -> bool:
    """Whether this database's tables were made by ``create`` (so demo data may go in)."""
    connection = connection or connections[BOOKKEEPING_DB]
    with connection.cursor() as cursor:
        cursor.execute("SELECT obj_description('public'::regnamespace, 'pg_namespace')")
        return cursor.fetchone()[0] == MARK


def require_replica(connection: BaseDatabaseWrapper | None = None) -> None:
    connection = connection or connections[BOOKKEEPING_DB]
    if not is_replica(connection):
        raise ReplicaRefused(
            f"Database {connection.settings_dict['NAME']!r} is not a replica made by create_bookkeeping_replica; "
            "demo and simulated intake data are only ever written to such a replica."
        )
