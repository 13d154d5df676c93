"""python manage.py seed_demo [--items N] [--seed S] [--if-empty] [--now ISO]"""

from __future__ import annotations

import datetime as dt
import secrets
import time
from typing import Any

from django.conf import settings
from django.contrib.auth.models import Group, User
from django.core.files.base import ContentFile
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import transaction
from django.utils import timezone

from reviewapp import demo, roles
from reviewapp.models import ClarificationEvent, Company, InboxItem

BATCH = 5000
RECEIPT_IMAGES = 8
DEMO_USERS = [
    ("bokforare", "Bea", "Bokförare", roles.BOOKKEEPER),
    ("support", "Sven", "Support", roles.SUPPORT),
    ("qa", "Qarin", "Kvalitet", roles.QA),
]


class Command(BaseCommand):
    help = "Fill the database with deterministic Swedish demo data and create one demo user per role."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--items", type=int, default=2000, help="How many inbox items (default 2000).")
        parser.add_argument("--seed", type=int, default=1, help="Random seed: same seed, same data.")
        parser.add_argument("--now", help="ISO timestamp the ages are relative to (default: now).")
        parser.add_argument("--if-empty", action="store_true", help="Add items only when there are none.")
        parser.add_argument("--no-users", action="store_true", help="Do not create or reset the demo users.")
        parser.add_argument("--allow-production", action="store_true", help="Run even with DEBUG off (benchmarks).")

    def handle(self, *args: Any, **options: Any) -> None:
        if not settings.DEBUG and not options["allow_production"] and not options["no_users"]:
            raise CommandError(
                "seed_demo creates users with printed passwords; run it with DEBUG=1, "
                "or pass --no-users (data only) or --allow-production."
            )
        if options["items"] < 0:
            raise CommandError("--items must be 0 or more")
        now = self._parse_now(options["now"])
        if options["if_empty"] and InboxItem.objects.exists():
            self.stdout.write("Inbox items already exist; not adding demo data.")
        else:
            self._seed(options["items"], options["seed"], now)
        if not options["no_users"]:
            self._demo_users()

    def _parse_now(self, raw: str | None) -> dt.datetime:
        if raw is None:
            return timezone.now()
        try:
            parsed = dt.datetime.fromisoformat(raw)
        except ValueError:
            raise CommandError(f"--now must be an ISO timestamp, got {raw!r}") from None
        return parsed if parsed.tzinfo else parsed.replace(tzinfo=dt.UTC)

    def _seed(self, count: int, seed: int, now: dt.datetime) -> None:
        started = time.monotonic()
        companies = []
        for company in demo.demo_companies(seed):
            stored, _ = Company.objects.get_or_create(
                id=company.id, defaults={"name": company.name, "organisation_number": company.organisation_number}
            )
            companies.append(stored)
        items: list[InboxItem] = []
        events: list[ClarificationEvent] = []
        written = 0
        with_receipt: list[InboxItem] = []
        for item, item_events in demo.iter_demo_items(count=count, seed=seed, now=now, companies=companies):
            items.append(item)
            events.extend(item_events)
            if len(with_receipt) < RECEIPT_IMAGES and item.source == "whatsapp" and item.extracted_data:
                with_receipt.append(item)
            if len(items) >= BATCH:
                written += self._flush(items, events)
        written += self._flush(items, events)
        for item in with_receipt:
            # Files go through the storage API so a deployment on object storage works too.
            item.document_file.save(f"{item.id}.png", ContentFile(demo.receipt_png(item)), save=False)
            InboxItem.objects.filter(pk=item.pk).update(document_file=item.document_file.name)
        elapsed = time.monotonic() - started
        self.stdout.write(f"Seeded {written} inbox items for {len(companies)} companies in {elapsed:.1f} s.")

    @staticmethod
    def _flush(items: list[InboxItem], events: list[ClarificationEvent]) -> int:
        count = len(items)
        with transaction.atomic():
            InboxItem.objects.bulk_create(items, batch_size=1000)
            ClarificationEvent.objects.bulk_create(events, batch_size=2000)
        items.clear()
        events.clear()
        return count

    def _demo_users(self) -> None:
        self.stdout.write("Demo logins (passwords are new each run):")
        for username, first, last, role in DEMO_USERS:
            password = secrets.token_urlsafe(9)
            user, _ = User.objects.get_or_create(username=username)
            user.first_name, user.last_name = first, last
            # Support may browse the read-only admin as well.
            user.is_staff = role == roles.SUPPORT
            user.set_password(password)
            user.save()
            user.groups.set([Group.objects.get(name=role)])
            self.stdout.write(f"  {role:<11} username: {username:<10} password: {password}")
