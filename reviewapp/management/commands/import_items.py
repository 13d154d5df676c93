"""``manage.py import_items FILE``: load items from JSON Lines (see reviewapp.transfer).

FILE may be ``-`` for standard input. Bad lines are reported with their line
numbers and skipped; the exit status is 1 when there was any.
"""

from __future__ import annotations

import sys
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from reviewapp import transfer


class Command(BaseCommand):
    help = "Import inbox items from JSON Lines in the bookkeeping application's row shape (idempotent on id)."

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
        except OSError as exc:
            raise CommandError(f"cannot read {path}: {exc.strerror}") from None
        for number, reason in result.bad:
            self.stderr.write(f"line {number}: {reason}")
        self.stdout.write(
            f"{result.created} created, {result.updated} updated, {result.unchanged} unchanged, "
            f"{len(result.bad)} bad line(s)."
        )
        if result.bad:
            raise CommandError(f"{len(result.bad)} bad line(s) skipped; the other lines were imported.")
