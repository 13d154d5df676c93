"""``manage.py export_items [--state KEY ...] [--output FILE]``: rows as JSON Lines (see reviewapp.items.transfer)."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from reviewapp.core import states
from reviewapp.items import transfer


class Command(BaseCommand):
    help = (
        "Export rows of accounted's invoice_inbox_items as JSON Lines, every column, oldest first; "
        "--state picks them through the list's read model."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--state",
            action="append",
            default=[],
            choices=states.STATE_KEYS,
            help="only items in this state; repeat for items in any of several",
        )
        parser.add_argument("--output", help="write to this file (replaced only when complete) instead of stdout")

    def handle(self, *args: Any, **options: Any) -> None:
        lines = transfer.export_lines(state_keys=options["state"])
        if not options["output"]:
            count = transfer.write_jsonl(lines, self.stdout)
            self.stderr.write(f"{count} item(s) exported.")
            return
        target = Path(options["output"])
        # Write beside the target and rename: a reader never sees half a file.
        try:
            fd, temp_name = tempfile.mkstemp(dir=target.parent or ".", prefix=f".{target.name}.", suffix=".part")
        except OSError as error:
            raise CommandError(f"cannot write to {target.parent}: {error.strerror}") from None
        try:
            with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as out:
                count = transfer.write_jsonl(lines, out)
            os.replace(temp_name, target)
        except BaseException:
            Path(temp_name).unlink(missing_ok=True)
            raise
        self.stdout.write(f"{count} item(s) exported to {target}.")
