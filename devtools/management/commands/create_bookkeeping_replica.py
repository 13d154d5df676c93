"""``manage.py create_bookkeeping_replica [--if-missing]``: accounted's tables on an empty database."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import connections

from reviewapp.bookkeeping import replica
from reviewapp.bookkeeping.routers import BOOKKEEPING_DB


class Command(BaseCommand):
    help = (
        "Create a replica of accounted's tables (from the contract) in BOOKKEEPING_DATABASE_URL. "
        "Refuses if public.invoice_inbox_items already exists there."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--if-missing",
            action="store_true",
            help="do nothing (successfully) when the tables exist already, as make run wants",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        connection = connections[BOOKKEEPING_DB]
        if options["if_missing"] and replica.has_inbox_table(connection):
            return
        try:
            replica.create(connection)
        except replica.ReplicaRefused as error:
            raise CommandError(str(error)) from None
        self.stdout.write(f"Created the bookkeeping replica in {connection.settings_dict['NAME']!r}.")
