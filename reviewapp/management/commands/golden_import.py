"""python manage.py golden_import FILE [--replace]

Reads JSON Lines in the format of ``../shared/golden/clarifications.jsonl``.
All or nothing: a bad line, or a name already stored with different content
(unless ``--replace``), stops the import before anything is written.
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import DataError

from reviewapp.previews.jsonl import InvalidCaseFile, import_cases, read_case_file


class Command(BaseCommand):
    help = "Load golden cases from a JSON Lines file ({name, input, expected} a line); '-' reads standard input."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file", metavar="FILE", help="The JSON Lines file, or - for standard input.")
        parser.add_argument(
            "--replace", action="store_true", help="Overwrite cases whose name exists with different content."
        )

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            records = read_case_file(options["file"])
        except InvalidCaseFile as exc:
            raise CommandError(str(exc)) from None
        try:
            summary = import_cases(records, replace=options["replace"])
        except DataError as exc:  # PostgreSQL's jsonb refuses a lone UTF-16 surrogate
            raise CommandError(f"Nothing imported: the database refused a value ({exc}).") from None
        if summary.conflicts:
            names = ", ".join(summary.conflicts)
            raise CommandError(
                f"Nothing imported: {len(summary.conflicts)} names exist with different content ({names}). "
                "Use --replace to overwrite them."
            )
        self.stdout.write(
            self.style.SUCCESS(
                f"{len(summary.created)} created, {len(summary.updated)} replaced, "
                f"{len(summary.unchanged)} already present."
            )
        )
