"""python manage.py golden_check [--file FILE ...] [--name NAME ...]

Renders every golden case with the current code and compares the outputs the
case stores; exits 1 with a readable diff on any difference, so CI can run it.
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from reviewapp.models import GoldenCase
from reviewapp.previews.golden import CaseResult, check, check_all
from reviewapp.previews.jsonl import InvalidCaseFile, read_case_file


class Command(BaseCommand):
    help = "Check every golden case against the current renderers; exit non-zero on any difference."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--file",
            action="append",
            default=[],
            metavar="FILE",
            help="Check the cases in this JSON Lines file instead of the database (repeatable).",
        )
        parser.add_argument(
            "--name", action="append", default=[], metavar="NAME", help="Check only this case (repeatable)."
        )

    def handle(self, *args: Any, **options: Any) -> None:
        results = self._results(options["file"], options["name"])
        failed = [result for result in results if not result.passed]
        for result in results:
            if result.passed:
                if options["verbosity"] >= 2:
                    self.stdout.write(f"ok    {result.name}")
                continue
            self.stdout.write(self.style.ERROR(f"FAIL  {result.name}") + f"  (changed: {', '.join(result.changed)})")
            for line in result.diff():
                self.stdout.write(f"    {line}")
        summary = f"{len(results)} golden cases: {len(results) - len(failed)} passed, {len(failed)} failed."
        if failed:
            raise CommandError(summary)
        self.stdout.write(self.style.SUCCESS(summary))

    def _results(self, files: list[str], names: list[str]) -> list[CaseResult]:
        if not files:
            cases = GoldenCase.objects.order_by("pk")
            if names:
                cases = cases.filter(name__in=names)
            return check_all(cases)
        results: list[CaseResult] = []
        for path in files:
            try:
                records = read_case_file(path)
            except InvalidCaseFile as exc:
                raise CommandError(str(exc)) from None
            results.extend(
                check(record.name, record.input, record.expected)
                for record in records
                if not names or record.name in names
            )
        return results
