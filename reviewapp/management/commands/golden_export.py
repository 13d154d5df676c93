"""python manage.py golden_export [--output FILE]

Writes the golden cases as JSON Lines in the format of
``../shared/golden/clarifications.jsonl``, in the order they were created,
so importing a file and exporting it again gives the same lines back.
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from reviewapp.models import GoldenCase
from reviewapp.previews.jsonl import to_jsonl, write_file


class Command(BaseCommand):
    help = "Write every golden case as one JSON line: {name, input, expected}."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--output", "-o", metavar="FILE", help="Write to FILE instead of standard output.")

    def handle(self, *args: Any, **options: Any) -> None:
        lines = [to_jsonl(case) + "\n" for case in GoldenCase.objects.order_by("pk")]
        path = options["output"]
        if not path or path == "-":
            for line in lines:
                self.stdout.write(line, ending="")
            return
        try:
            write_file(path, lines)
        except OSError as exc:
            raise CommandError(f"{path}: {exc.strerror}") from None
        self.stderr.write(f"Wrote {len(lines)} golden cases to {path}.")
