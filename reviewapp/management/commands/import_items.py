"""``manage.py import_items FILE``: upsert inbox items from JSON Lines into the replica (see reviewapp.items.transfer).

FILE may be ``-`` for standard input. Refuses a database that is not a replica
made by ``create_bookkeeping_replica``. Bad lines are reported with their line
numbers and nothing of them is written; the exit status is 1 when there was any.
"""

from __future__ import annotations

import sys
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from reviewapp.bookkeeping import replica
from reviewapp.items import transfer


class Command(BaseCommand):
    help = (
        "Import rows of accounted's invoice_inbox_items (JSON Lines, as export_items writes them) "
        "into the bookkeeping replica, idempotent on id."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file", help="a .jsonl file, or - for standard input")

    def handle(self, *args: Any, **options: Any) -> None:
        path = options["file"]
        try:
            if path == "-":
                result = transfer.import_lines(sys.stdin.buffer)
            else:
                with open(path, "rb") as source:
                    result = transfer.import_lines(source)
        except OSError as error:
            raise CommandError(f"cannot read {path}: {error.strerror}") from None
        except replica.ReplicaRefused as error:
            raise CommandError(f"{error} Nothing was imported.") from None
        for number, reason in result.bad:
            self.stderr.write(f"line {number}: {reason}")
        for key, count in sorted(result.ignored_keys.items()):
            self.stderr.write(f"ignored {key!r} on {count} line(s): the table has no such column")
        self.stdout.write(
            f"{result.created} created, {result.updated} updated, {result.unchanged} unchanged, "
            f"{len(result.bad)} bad line(s)."
        )
        if result.bad:
            raise CommandError(f"{len(result.bad)} bad line(s) skipped; the other lines were imported.")
