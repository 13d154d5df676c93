"""python manage.py seed_demo [--items N] [--seed S] [--now ISO] [--if-empty] [--no-users] [--receipt-files N]
    [--allow-production]

Fills the bookkeeping replica the way accounted's intake would (``devtools.demo``)
and refuses any database that ``create_bookkeeping_replica`` did not make: a real
accounted database is never written to. Rows go in with COPY in one transaction
(all or nothing); receipt images go to the ``documents`` storage under their
``storage_path``; then the list's read model is brought up to date. Also loads
the shared golden cases when there are none, and creates one demo login per role.
"""

from __future__ import annotations

import datetime as dt
import secrets
import time
import uuid
from collections.abc import Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from django.conf import settings
from django.contrib.auth.models import Group, User
from django.core.files.base import ContentFile
from django.core.files.storage import storages
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import connections, transaction
from django.utils import timezone

from devtools import demo, demo_rows
from reviewapp import readmodel
from reviewapp.bookkeeping import replica
from reviewapp.bookkeeping.models import Company, InboxItem
from reviewapp.bookkeeping.routers import BOOKKEEPING_DB
from reviewapp.core import roles
from reviewapp.models import ClarificationEvent, CompanyAssignment, GoldenCase, SyncState
from reviewapp.previews.jsonl import InvalidCaseFile, import_cases, read_case_file

BATCH = 2_000
INDEX_BATCH = 2_000
GOLDEN_FILE = Path(settings.BASE_DIR).parent / "shared" / "golden" / "clarifications.jsonl"
DEMO_USERS = [
    ("bokforare", "Bea", "Bokförare", roles.BOOKKEEPER),
    ("support", "Sven", "Support", roles.SUPPORT),
    ("qa", "Qarin", "Kvalitet", roles.QA),
]


def _copy(cursor: Any, table: str, columns: Sequence[str], rows: Iterable[Sequence[Any]]) -> None:
    with cursor.copy(f"COPY {table} ({', '.join(columns)}) FROM STDIN") as copy:
        for row in rows:
            copy.write_row(row)


def _insert_new(cursor: Any, table: str, columns: Sequence[str], rows: list[tuple[Any, ...]]) -> None:
    """Rows the demo shares between runs (people, companies): added once, never changed."""
    if rows:
        marks = ", ".join(["%s"] * len(columns))
        cursor.executemany(
            f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({marks}) ON CONFLICT DO NOTHING",  # noqa: S608
            rows,
        )


def _prefetched(batches: Iterator[demo_rows.Batch]) -> Iterator[demo_rows.Batch]:
    """The same batches, the next one made while the database stores this one (COPY waits on the server)."""
    with ThreadPoolExecutor(max_workers=1) as pool:
        pending = pool.submit(next, batches, None)
        while (batch := pending.result()) is not None:
            pending = pool.submit(next, batches, None)
            yield batch


class Command(BaseCommand):
    help = (
        "Fill the bookkeeping replica with deterministic Swedish demo data, as accounted's intake writes it, "
        "and create one demo user per role. Refuses a database that is not such a replica."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--items", type=int, default=2000, help="How many inbox items (default 2000).")
        parser.add_argument("--seed", type=int, default=1, help="Random seed: same seed (and --now), same data.")
        parser.add_argument("--now", help="ISO timestamp the ages are relative to (default: now).")
        parser.add_argument("--if-empty", action="store_true", help="Add items only when the replica has none.")
        parser.add_argument("--no-users", action="store_true", help="Do not create or reset the demo users.")
        parser.add_argument(
            "--receipt-files",
            type=int,
            default=None,
            help="Draw receipt images for only about this many of the newest documents (benchmarks; default: all).",
        )
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
        try:
            replica.require_replica(connections[BOOKKEEPING_DB])
        except replica.ReplicaRefused as error:
            raise CommandError(f"{error} Nothing was written.") from None
        if options["if_empty"] and InboxItem.objects.exists():
            self.stdout.write("The replica already has inbox items; not adding demo data.")
        else:
            self._seed(options["items"], options["seed"], now, options["receipt_files"], not options["no_users"])
        self._golden_cases()
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

    def _seed(
        self, count: int, seed: int, now: dt.datetime, receipt_files: int | None = None, with_users: bool = True
    ) -> None:
        started = time.monotonic()
        org = demo_rows.organisation(now)
        data = demo.DemoData(seed=seed, now=now, org=org, receipt_files=receipt_files)
        bucket = storages["documents"]
        item_ids: list[uuid.UUID] = []
        app_answers: list[tuple[uuid.UUID, str, dict[str, Any], dt.datetime]] = []
        with transaction.atomic(using=BOOKKEEPING_DB), connections[BOOKKEEPING_DB].cursor() as cursor:
            _insert_new(cursor, "auth.users", demo_rows.USER_COLUMNS, org.users)
            _insert_new(cursor, "public.companies", demo_rows.COMPANY_COLUMNS, org.companies)
            _insert_new(cursor, "public.company_members", demo_rows.MEMBER_COLUMNS, org.members)
            _insert_new(cursor, "public.suppliers", demo_rows.SUPPLIER_COLUMNS, org.suppliers)
            _insert_new(cursor, "public.whatsapp_phone_links", demo_rows.PHONE_COLUMNS, org.phone_links)
            for batch in _prefetched(data.batches(count, BATCH)):
                if not item_ids:
                    self._refuse_a_seed_already_loaded(cursor, batch.items[0][0], seed)
                self._write(cursor, batch)
                for path, content in batch.files:
                    # Write-once, as accounted's bucket: a path names one document of one seed, so a
                    # file left by a run that failed later holds the same bytes.
                    if not bucket.exists(path):
                        bucket.save(path, ContentFile(content))
                item_ids.extend(batch.item_ids)
                app_answers.extend(batch.app_answers)
            self._write_conversations(cursor, data.conversations())
        self._write_app_answers(app_answers, with_users=with_users)
        written = time.monotonic() - started
        self._index(item_ids)
        self.stdout.write(
            f"Seeded {len(item_ids)} inbox items for {len(org.companies)} companies in {written:.1f} s "
            f"(read model updated in {time.monotonic() - started - written:.1f} s)."
        )

    def _refuse_a_seed_already_loaded(self, cursor: Any, first_id: uuid.UUID, seed: int) -> None:
        cursor.execute("SELECT 1 FROM public.invoice_inbox_items WHERE id = %s", [first_id])
        if cursor.fetchone():
            raise CommandError(f"The demo data of --seed {seed} is in the replica already; use another --seed.")

    def _write(self, cursor: Any, batch: demo_rows.Batch) -> None:
        _copy(cursor, "public.document_attachments", demo_rows.DOCUMENT_COLUMNS, batch.documents)
        _copy(cursor, "public.supplier_invoices", demo_rows.BOOKING_COLUMNS, batch.supplier_invoices)
        _copy(cursor, "public.journal_entries", demo_rows.BOOKING_COLUMNS, batch.journal_entries)
        # The photo is stored before its item and linked to it once the item exists, as the intake does.
        _copy(cursor, "public.whatsapp_messages", demo_rows.MESSAGE_COLUMNS, batch.photos)
        _copy(cursor, "public.invoice_inbox_items", demo_rows.ITEM_COLUMNS, batch.items)
        _copy(cursor, "public.whatsapp_messages", demo_rows.MESSAGE_COLUMNS, batch.messages)
        _copy(cursor, "public.processing_history", demo_rows.EVENT_COLUMNS, batch.events)
        links = batch.photo_links
        if links:
            messages = [message for message, _ in links]
            # "m.id = ANY" makes it look the photos up by primary key instead of hashing the whole table.
            cursor.execute(
                """UPDATE public.whatsapp_messages m SET inbox_item_id = link.item_id
                   FROM unnest(%s::uuid[], %s::uuid[]) AS link(message_id, item_id)
                   WHERE m.id = link.message_id AND m.id = ANY(%s::uuid[])""",
                [messages, [item for _, item in links], messages],
            )

    def _write_conversations(self, cursor: Any, rows: list[tuple[Any, ...]]) -> None:
        if not rows:
            return
        columns = demo_rows.CONVERSATION_COLUMNS
        changed = ", ".join(f"{name} = EXCLUDED.{name}" for name in columns[2:-1])
        cursor.executemany(
            f"""INSERT INTO public.whatsapp_conversations ({", ".join(columns)})
                VALUES ({", ".join(["%s"] * len(columns))})
                ON CONFLICT (phone_link_id) DO UPDATE SET {changed}""",  # noqa: S608 - names are constants
            rows,
        )

    def _write_app_answers(
        self, answers: list[tuple[uuid.UUID, str, dict[str, Any], dt.datetime]], *, with_users: bool
    ) -> None:
        """The review app's own log of the answers the demo bookkeeper gave in the app."""
        # The demo bookkeeper exists before her answers are logged: logged without her (the users
        # are created after the items), they stayed a second line "bokforare" beside "Bea Bokförare"
        # in the overview (issue 37). _demo_users gives her a name, a role and a password.
        # With --no-users nobody is created: the answers are hers if she exists already.
        user = User.objects.filter(username=demo_rows.APP_USER).first()
        if user is None and with_users:
            user = User(username=demo_rows.APP_USER)
            user.set_unusable_password()
            user.save()
        ClarificationEvent.objects.bulk_create(
            ClarificationEvent(
                item_id=item_id,
                event_type=ClarificationEvent.ANSWERED,
                question_type=question,
                actor=user,
                actor_label=demo_rows.APP_USER,
                channel=ClarificationEvent.Channel.APP,
                payload=payload,
                occurred_at=moment,
            )
            for item_id, question, payload, moment in answers
        )

    def _index(self, item_ids: list[uuid.UUID]) -> None:
        """Bring the list's read model up to date with the new rows."""
        first_pass = not SyncState.objects.filter(pk=1, watermark__isnull=False).exists()
        report = readmodel.poll()
        if first_pass and report.ran:
            return  # the first poll reads the whole table
        # A poll reads only rows whose updated_at is recent, and the demo's are not.
        for start in range(0, len(item_ids), INDEX_BATCH):
            readmodel.index_items(item_ids[start : start + INDEX_BATCH])

    def _golden_cases(self) -> None:
        """The shared golden cases, so QA's list does not start empty."""
        if GoldenCase.objects.exists() or not GOLDEN_FILE.exists():
            return
        try:
            records = read_case_file(str(GOLDEN_FILE))
        except InvalidCaseFile as error:
            raise CommandError(str(error)) from None
        summary = import_cases(records)
        self.stdout.write(f"Loaded {len(summary.created)} golden cases from {GOLDEN_FILE}.")

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
            if role == roles.BOOKKEEPER:
                self._assign_clients(user)
            self.stdout.write(f"  {role:<11} username: {username:<10} password: {password}")

    def _assign_clients(self, user: User) -> None:
        """The demo bookkeeper's clients: every company but the last, so the demo shows what access hides."""
        companies = list(Company.objects.order_by("name").values_list("id", flat=True))
        assigned = companies[:-1] if len(companies) > 1 else companies
        CompanyAssignment.objects.filter(user=user).exclude(company_id__in=assigned).delete()
        for company_id in assigned:
            CompanyAssignment.objects.get_or_create(user=user, company_id=company_id)
