"""``manage.py replication setup|check|teardown [--keep-slot]``: the review database's subscription to accounted.

``setup`` needs accounted's publication first (its operator runs the SQL in
docs/operations.md; ``setup`` prints it when it is missing) and
``REPLICATION_CONNINFO`` naming the replication role. ``check`` prints the
subscription's state and exits 1 unless it is streaming. ``teardown`` drops
the subscription and its slot on accounted's side (``--keep-slot``: the slot
stays, and keeps WAL on accounted's server until its operator drops it).
"""

from __future__ import annotations

import json
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from reviewapp.readmodel import replication


class Command(BaseCommand):
    help = "Set up, check or tear down the subscription that feeds the read model (SYNC_SOURCE=replication)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("action", choices=["setup", "check", "teardown"])
        parser.add_argument("--keep-slot", action="store_true", help="teardown: leave the slot on accounted's side")

    def handle(self, *args: Any, **options: Any) -> None:
        action = options["action"]
        if action == "setup":
            try:
                self.stdout.write(replication.setup())
            except replication.SetupRefused as error:
                raise CommandError(str(error)) from error
        elif action == "teardown":
            self.stdout.write(replication.teardown(keep_slot=options["keep_slot"]))
        else:
            current = replication.status()
            self.stdout.write(json.dumps(current.as_json(), indent=2))
            if current.state != "streaming":
                raise CommandError(f"the subscription is {current.state}")
