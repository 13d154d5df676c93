"""Deterministic Swedish demo data, as accounted's WhatsApp intake writes it.

``DemoData`` yields the rows of accounted's tables (``public.invoice_inbox_items``
and everything around it: ``auth.users``, companies and members, documents,
phone links, conversations, messages, ``processing_history``) in batches of
plain tuples in ``*_COLUMNS`` order, so ``seed_demo`` can COPY them in. The
same seed and the same ``now`` always give the same rows; the people and
companies do not depend on the seed at all, so several runs share them.

Shapes follow ``../shared/bookkeeping/README.md`` ("channel_context, step by
step"): timestamps as JavaScript's ``toISOString()``, a half answer that keeps
the question open, a denial with ``denied: true``, questions over the budget
moved to the app straight away without an event, expiry by the cron.

Every document gets a drawn receipt image (the queue starts with the oldest
items, so they must have one too; a page without its file says so instead).
Drawing one takes about two milliseconds: the lines every receipt prints are
drawn once into a template. A benchmark that seeds a million items passes
``receipt_files`` to draw only about that many of the newest; the older rows
then name a file that is not in the local bucket, as when the app runs without
access to accounted's bucket (their ``sha256_hash`` is of the row's id, their
size unknown).
"""

from __future__ import annotations

import copy
import datetime as dt
import functools
import hashlib
import io
import random
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, Final

import orjson
from django.utils.formats import number_format
from django.utils.translation import override

from reviewapp.answers import evidence

# --- Who: fixed for every run ----------------------------------------------------------

_NAMESPACE: Final = uuid.UUID("6f1c2d4e-8a3b-4c5d-9e7f-0a1b2c3d4e5f")

# (name, org_number, entity_type)
COMPANIES: Final = [
    ("Fjällbacka Konsult AB", "556677-1234", "aktiebolag"),
    ("Norrsken Redovisning AB", "559012-3456", "aktiebolag"),
    ("Solberga Bygg & Montage AB", "556123-9876", "aktiebolag"),
    ("Kvarnholmen Design HB", "969777-1122", "handelsbolag"),
    ("Tallviken IT-tjänster AB", "559876-5432", "aktiebolag"),
]

# Per company: the owner and the members who send receipts from their phones.
STAFF: Final = [
    [("Ingrid", "Fjäll", "owner"), ("Nils", "Åberg", "member"), ("Tove", "Lund", "member")],
    [("Petra", "Norrsken", "owner"), ("Ali", "Rahimi", "member")],
    [("Göran", "Solberg", "owner"), ("Emma", "Strand", "member"), ("Viktor", "Holm", "member")],
    [("Alva", "Kvarn", "owner"), ("Leo", "Ek", "viewer")],
    [("Hanna", "Tall", "owner"), ("Omar", "Said", "member"), ("Julia", "Berg", "admin")],
]
# A bookkeeper at the accounting firm, admin in every company, never on WhatsApp.
ACCOUNTANT: Final = ("Bodil", "Bokför")

# (supplier, category, typical total range in SEK)
SUPPLIERS: Final = [
    ("Restaurang Prinsen", "restaurant", (450, 4800)),
    ("Operakällaren", "restaurant", (900, 9500)),
    ("Pelikan", "restaurant", (380, 3200)),
    ("Sturehof", "restaurant", (520, 6400)),
    ("Espresso House", "cafe", (45, 320)),
    ("Taxi Stockholm", "taxi", (180, 890)),
    ("Uber", "taxi", (120, 640)),
    ("Clas Ohlson", "office", (79, 2400)),
    ("Staples Kontorsvaror", "office", (120, 3900)),
    ("Adobe Systems Software", "software", (239, 1899)),
    ("Microsoft 365", "software", (129, 2390)),
    ("Atlassian", "software", (99, 4200)),
    ("SJ AB", "travel", (195, 1650)),
    ("Scandic Hotels", "travel", (990, 4200)),
    ("Biltema", "office", (59, 1800)),
    ("Circle K", "fuel", (300, 1200)),
]
RESTAURANTS: Final = [s for s in SUPPLIERS if s[1] == "restaurant"]

GUESTS: Final = [
    ("Anna Lindqvist", "Volvo Cars"),
    ("Erik Johansson", "Ericsson"),
    ("Maria Karlsson", None),
    ("Johan Nilsson", "Spotify"),
    ("Sara Andersson", "H&M"),
    ("Lars Svensson", None),
    ("Karin Eriksson", "Skanska"),
    ("Mohammed Ali", "ABB"),
    ("Elin Persson", "IKEA"),
    ("Oskar Berg", None),
    ("Fatima Hassan", "Northvolt"),
    ("Per Olsson", "SEB"),
]

PURPOSES: Final = [
    "Kundmöte om ramavtal 2027",
    "Uppföljning av projektleverans",
    "Rekryteringslunch med kandidat",
    "Säljmöte inför offert",
    "Avtalsförhandling med leverantör",
    "Julbord med kund",
]

NOTES: Final = {
    "taxi": ["Taxi från kundmöte till kontoret", "Resa till Arlanda för konferens"],
    "office": ["Pärmar och papper till kontoret", "Skrivarbläck", "Nytt headset till supporten"],
    "software": ["Licens för designverktyg", "Månadsabonnemang för teamet", "Årsavgift projektverktyg"],
    "travel": ["Tåg till kundbesök i Göteborg", "Hotell under mässan i Malmö"],
    "fuel": ["Tankning av tjänstebilen"],
    "cafe": ["Fika med kollega under workshop", "Kaffe till styrelsemöte"],
    "restaurant": ["Lunch med teamet", "Middag under konferens"],
}

CAPTIONS: Final = ["kvitto", "lunch igår", "här är kvittot!", "taxi", "📎", "till bokföringen"]
DENIALS: Final = ["Nej", "nej", "Nej, bara jag", "nej det var ingen representation"]

# What the intake sends for each question (outbound raw_payload {"template": ...}).
TEMPLATES: Final = {
    "representation": "receipt_question_representation",
    "context": "receipt_question_context",
    "resend": "receipt_question_resend",
}
QUESTION_TEXTS: Final = {
    "representation": "Tack för kvittot! Vilka var med, från vilket företag, och vad var syftet?",
    "context": "Tack för kvittot! Vad gällde köpet?",
    "resend": "Kvittot gick inte att läsa. Kan du skicka en ny, skarpare bild?",
}

SYSTEM_ACTOR: Final = {"type": "system", "id": "whatsapp-inbound"}
CRON_ACTOR: Final = {"type": "cron", "id": "whatsapp-expiry"}
# The demo bookkeeper answering in the review app. accounted's log gets the app's
# pseudonymous actor (reviewapp.answers.writing.actor_for: the demo bookkeeper is
# linked to no accounted user); the name stays in the app's own log.
APP_USER: Final = "bokforare"
APP_ACTOR: Final = {"type": "system", "id": "review-app"}

CHAT_WINDOW: Final = dt.timedelta(hours=48)
LATE_REPLY_WINDOW: Final = dt.timedelta(days=7)
BODY_RETENTION: Final = dt.timedelta(days=90)
HISTORY: Final = dt.timedelta(days=120)  # how far back the demo's receipts go
BENCH_RECEIPT_FILES: Final = 500  # what a benchmark draws: about this many of the newest documents

# --- Columns, in the order the rows are built ----------------------------------------------

USER_COLUMNS: Final = ("id", "email", "created_at")
COMPANY_COLUMNS: Final = ("id", "name", "org_number", "entity_type", "created_by", "created_at")
MEMBER_COLUMNS: Final = ("id", "company_id", "user_id", "role", "created_at")
SUPPLIER_COLUMNS: Final = ("id", "company_id", "name", "created_at")
PHONE_COLUMNS: Final = ("id", "user_id", "phone_hash", "phone_masked", "wa_profile_name", "default_company_id")
CONVERSATION_COLUMNS: Final = (
    "id",
    "phone_link_id",
    "state",
    "context",
    "company_id",
    "service_window_expires_at",
    "last_inbound_at",
    "last_outbound_at",
    "created_at",
)
DOCUMENT_COLUMNS: Final = (
    "id",
    "user_id",
    "company_id",
    "storage_path",
    "file_name",
    "file_size_bytes",
    "mime_type",
    "sha256_hash",
    "uploaded_by",
    "upload_source",
    "digitization_date",
    "created_at",
    "updated_at",
)
BOOKING_COLUMNS: Final = ("id", "company_id", "created_at")  # supplier_invoices and journal_entries
MESSAGE_COLUMNS: Final = (
    "id",
    "direction",
    "wamid",
    "sender_phone_hash",
    "phone_link_id",
    "conversation_id",
    "message_type",
    "body_text",
    "media_id",
    "media_mime",
    "media_sha256",
    "raw_payload",
    "processing_status",
    "attempts",
    "inbox_item_id",
    "delivery_status",
    "correlation_id",
    "acked_at",
    "created_at",
    "updated_at",
)
ITEM_COLUMNS: Final = (
    "id",
    "user_id",
    "company_id",
    "status",
    "source",
    "email_from",
    "email_subject",
    "email_body_text",
    "email_received_at",
    "resend_email_id",
    "resend_attachment_id",
    "document_id",
    "extracted_data",
    "matched_supplier_id",
    "created_supplier_invoice_id",
    "created_journal_entry_id",
    "error_message",
    "raw_email_payload",
    "correlation_id",
    "extraction_skipped",
    "whatsapp_message_id",
    "channel_context",
    "kind_hint",
    "created_at",
    "updated_at",
)
_MESSAGE_ID: Final = ITEM_COLUMNS.index("whatsapp_message_id")
EVENT_COLUMNS: Final = (
    "event_id",
    "company_id",
    "correlation_id",
    "aggregate_type",
    "aggregate_id",
    "event_type",
    "payload",
    "actor",
    "occurred_at",
)


def iso(moment: dt.datetime) -> str:
    """A moment as JavaScript's ``toISOString()`` writes it: ``2026-11-28T09:31:07.123Z``."""
    utc = moment.astimezone(dt.UTC)
    return utc.strftime("%Y-%m-%dT%H:%M:%S.") + f"{utc.microsecond // 1000:03d}Z"


def to_ms(moment: dt.datetime) -> dt.datetime:
    """Milliseconds, like every moment the intake stores (JavaScript's clock)."""
    return moment.replace(microsecond=moment.microsecond // 1000 * 1000)


def _json(value: Any) -> str:
    return orjson.dumps(value).decode()


def _fixed(kind: str, name: str) -> uuid.UUID:
    return uuid.uuid5(_NAMESPACE, f"{kind}:{name}")


def _ascii(text: str) -> str:
    return text.lower().translate(str.maketrans("åäöé ", "aaoe.")).replace("&", "")


@dataclass(frozen=True)
class Person:
    id: uuid.UUID
    first: str
    email: str
    role: str
    company_id: uuid.UUID
    phone_link_id: uuid.UUID | None
    phone_hash: str | None
    conversation_id: uuid.UUID | None


@dataclass
class Organisation:
    """The demo's companies and people; the same in every run."""

    created_at: dt.datetime
    users: list[tuple[Any, ...]] = field(default_factory=list)
    companies: list[tuple[Any, ...]] = field(default_factory=list)
    members: list[tuple[Any, ...]] = field(default_factory=list)
    suppliers: list[tuple[Any, ...]] = field(default_factory=list)
    phone_links: list[tuple[Any, ...]] = field(default_factory=list)
    # company id -> its people; supplier name -> id, per company
    people: dict[uuid.UUID, list[Person]] = field(default_factory=dict)
    supplier_ids: dict[tuple[uuid.UUID, str], uuid.UUID] = field(default_factory=dict)

    @property
    def company_ids(self) -> list[uuid.UUID]:
        return [row[0] for row in self.companies]


def organisation(now: dt.datetime) -> Organisation:
    """Companies, their members, phone links and suppliers (fixed ids: runs share them)."""
    org = Organisation(created_at=to_ms(now - HISTORY - dt.timedelta(days=30)))
    accountant_id = _fixed("user", "accountant")
    org.users.append((accountant_id, f"{_ascii(ACCOUNTANT[0])}@byran.example.se", org.created_at))
    for number, ((name, org_number, entity_type), staff) in enumerate(zip(COMPANIES, STAFF, strict=True)):
        company_id = _fixed("company", name)
        domain = _ascii(name.split()[0]) + ".example.se"
        people: list[Person] = []
        for index, (first, last, role) in enumerate(staff):
            user_id = _fixed("user", f"{name}/{first}")
            org.users.append((user_id, f"{_ascii(first)}.{_ascii(last)}@{domain}", org.created_at))
            org.members.append((_fixed("member", f"{name}/{first}"), company_id, user_id, role, org.created_at))
            link_id = conversation_id = phone_hash = None
            if role != "viewer":
                digits = f"70{number}{index}{int(hashlib.sha256(first.encode()).hexdigest(), 16) % 100000:05d}"
                phone = f"+46{digits}"
                phone_hash = hashlib.sha256(phone.encode()).hexdigest()
                link_id = _fixed("phone", phone)
                conversation_id = _fixed("conversation", phone)
                masked = f"+46 {digits[:2]} *** ** {digits[-2:]}"
                org.phone_links.append((link_id, user_id, phone_hash, masked, first, company_id))
            people.append(
                Person(user_id, first, org.users[-1][1], role, company_id, link_id, phone_hash, conversation_id)
            )
        org.companies.append((company_id, name, org_number, entity_type, people[0].id, org.created_at))
        org.members.append((_fixed("member", f"{name}/accountant"), company_id, accountant_id, "admin", org.created_at))
        org.people[company_id] = people
        for supplier, _, _ in SUPPLIERS:
            supplier_id = _fixed("supplier", f"{name}/{supplier}")
            org.suppliers.append((supplier_id, company_id, supplier, org.created_at))
            org.supplier_ids[company_id, supplier] = supplier_id
    return org


# --- What happened to each item ----------------------------------------------------------

# (weight, scenario); weights are per mille of the generated items.
SCENARIOS: Final = [
    (55, "email"),
    (30, "upload"),
    (40, "photo_only"),
    (60, "photo_caption"),
    (40, "open_representation"),
    (30, "open_context"),
    (20, "open_resend"),
    (45, "moved_representation"),
    (40, "moved_context"),
    (20, "moved_resend"),
    (20, "over_budget"),
    (20, "moved_representation_half"),
    (50, "half_answer"),
    (65, "denied"),
    (15, "denied_then_context_moved"),
    (140, "representation_answered"),
    (80, "context_answered"),
    (15, "resend_answered"),
    (20, "late_reply"),
    (5, "app_answer_replaced"),
    (25, "mail_hunt"),
    (15, "peppol"),
    (60, "booked"),
    (10, "booked_with_question_moved"),
    (10, "intake_error"),
    (12, "malformed"),
]
_SCENARIO_NAMES: Final = [name for _, name in SCENARIOS]
_SCENARIO_WEIGHTS: Final = [weight for weight, _ in SCENARIOS]
# Once per run, right after one of each scenario: a number Python cannot read.
HUGE_NUMBER: Final = "malformed_huge_number"
FIRST_SCENARIOS: Final = [*_SCENARIO_NAMES, HUGE_NUMBER]


class RawJSON(str):
    """JSON text written to the database as it is (Python could not read it back)."""

    __slots__ = ()


@dataclass
class Batch:
    """The rows of one batch of items, per table, in ``*_COLUMNS`` order."""

    documents: list[tuple[Any, ...]] = field(default_factory=list)
    supplier_invoices: list[tuple[Any, ...]] = field(default_factory=list)
    journal_entries: list[tuple[Any, ...]] = field(default_factory=list)
    # Photos first (the intake stores the message, then the item), linked afterwards.
    photos: list[tuple[Any, ...]] = field(default_factory=list)
    items: list[tuple[Any, ...]] = field(default_factory=list)
    messages: list[tuple[Any, ...]] = field(default_factory=list)
    events: list[tuple[Any, ...]] = field(default_factory=list)
    # The review app's own answer log (its database, not accounted's): (item id, question, payload, occurred_at)
    app_answers: list[tuple[uuid.UUID, str, dict[str, Any], dt.datetime]] = field(default_factory=list)
    # (storage_path, bytes) of the documents whose image is drawn
    files: list[tuple[str, bytes]] = field(default_factory=list)

    @property
    def item_ids(self) -> list[uuid.UUID]:
        return [row[0] for row in self.items]

    @property
    def photo_links(self) -> list[tuple[uuid.UUID, uuid.UUID]]:
        """(message id, item id) for each photo."""
        return [(row[_MESSAGE_ID], row[0]) for row in self.items if row[_MESSAGE_ID] is not None]


@dataclass
class _Question:
    type: str
    inbox_item_id: uuid.UUID
    asked_at: dt.datetime
    status: str


@dataclass
class _Chat:
    """What one phone's conversation has seen, for its ``context`` at the end."""

    questions: list[_Question] = field(default_factory=list)
    last_inbound: dt.datetime | None = None
    last_outbound: dt.datetime | None = None

    def inbound(self, at: dt.datetime) -> None:
        self.last_inbound = max(at, self.last_inbound or at)

    def outbound(self, at: dt.datetime) -> None:
        self.last_outbound = max(at, self.last_outbound or at)


class DemoData:
    """The demo rows for one ``seed``, relative to ``now``."""

    def __init__(self, *, seed: int, now: dt.datetime, org: Organisation, receipt_files: int | None = None) -> None:
        self.rng = random.Random(seed)
        self.now = to_ms(now)
        self.org = org
        # None: every document gets its image; a number: about that many of the newest.
        self.receipt_files = receipt_files
        self.files_drawn = 0
        self.files_since = self.now
        self.chats: dict[uuid.UUID, _Chat] = {}

    # -- helpers
    def uuid(self) -> uuid.UUID:
        return uuid.UUID(int=self.rng.getrandbits(128), version=4)

    def ago(self, low: dt.timedelta, high: dt.timedelta) -> dt.datetime:
        seconds = self.rng.uniform(low.total_seconds(), high.total_seconds())
        return to_ms(self.now - dt.timedelta(seconds=seconds))

    def later(self, moment: dt.datetime, low: dt.timedelta, high: dt.timedelta) -> dt.datetime:
        seconds = self.rng.uniform(low.total_seconds(), high.total_seconds())
        return min(to_ms(moment + dt.timedelta(seconds=seconds)), self.now)

    def wamid(self) -> str:
        return f"wamid.HBgL{self.rng.getrandbits(128):032X}"

    # -- the whole run
    def batches(self, count: int, size: int) -> Iterator[Batch]:
        if self.receipt_files is None:
            self.files_since = self.now - 2 * HISTORY  # before any receipt of the run
        else:  # a benchmark's run: about receipt_files of the newest
            self.files_since = self.now - HISTORY * min(1.0, self.receipt_files / max(count, 1))
        batch = Batch()
        for index in range(count):
            if index < len(FIRST_SCENARIOS):
                scenario = FIRST_SCENARIOS[index]
            else:
                scenario = self.rng.choices(_SCENARIO_NAMES, _SCENARIO_WEIGHTS)[0]
            self._item(batch, scenario)
            if len(batch.items) >= size:
                yield batch
                batch = Batch()
        if batch.items:
            yield batch

    def conversations(self) -> list[tuple[Any, ...]]:
        """One row per phone that sent something, its ``context`` as the intake left it."""
        rows = []
        for company_id in self.org.company_ids:
            for person in self.org.people[company_id]:
                chat = self.chats.get(person.id)
                if chat is None or person.conversation_id is None:
                    continue
                rows.append(self._conversation(person, chat))
        return rows

    def _conversation(self, person: Person, chat: _Chat) -> tuple[Any, ...]:
        # accounted prunes recent_questions to 7 days and the last 10 entries.
        recent = sorted(
            (q for q in chat.questions if q.asked_at >= self.now - LATE_REPLY_WINDOW), key=lambda q: q.asked_at
        )[-10:]
        context: dict[str, Any] = {"pin_expires_at": iso(self.now + dt.timedelta(hours=self.rng.randint(1, 20)))}
        waiting = [q for q in recent if q.status == "open"]
        state = "idle"
        if waiting:
            newest = waiting[-1]
            state = f"awaiting_{newest.type}"
            context["pending_question"] = {
                "type": newest.type,
                "inbox_item_id": str(newest.inbox_item_id),
                "asked_at": iso(newest.asked_at),
            }
        context["question_queue"] = []
        context["recent_questions"] = [
            {"type": q.type, "inbox_item_id": str(q.inbox_item_id), "asked_at": iso(q.asked_at), "status": q.status}
            for q in recent
        ]
        today = self.now.astimezone(dt.UTC).date()
        asked_today = sum(1 for q in chat.questions if q.asked_at.astimezone(dt.UTC).date() == today)
        context["budget"] = {"day_key": today.isoformat(), "count": min(asked_today, 6)}
        window = chat.last_inbound + dt.timedelta(hours=24) if chat.last_inbound else None
        return (
            person.conversation_id,
            person.phone_link_id,
            state,
            _json(context),
            person.company_id,
            window,
            chat.last_inbound,
            chat.last_outbound,
            self.org.created_at,
        )

    # -- one item
    def _item(self, batch: Batch, scenario: str) -> None:
        rng = self.rng
        company_id = rng.choice(self.org.company_ids)
        people = self.org.people[company_id]
        senders = [p for p in people if p.phone_link_id is not None]
        if scenario.endswith("representation") or scenario.startswith(("denied", "half", "representation")):
            supplier, category, (low, high) = rng.choice(RESTAURANTS)
        else:
            supplier, category, (low, high) = rng.choice(SUPPLIERS)
        item = _ItemBuilder(self, batch, scenario, company_id, supplier, category)
        match scenario:
            case "email":
                item.from_email(people[0], low, high)
            case "upload":
                item.from_upload(rng.choice([p for p in people if p.role != "viewer"]), low, high)
            case "mail_hunt" | "peppol":
                item.from_mailbox(people[0], low, high, peppol=scenario == "peppol")
            case _:
                item.from_whatsapp(rng.choice(senders), low, high)
        item.finish()


class _ItemBuilder:
    """One item and what came with it: its document, messages, events and booking."""

    def __init__(
        self, demo: DemoData, batch: Batch, scenario: str, company_id: uuid.UUID, supplier: str, category: str
    ) -> None:
        self.demo, self.batch, self.scenario = demo, batch, scenario
        self.rng = demo.rng
        self.company_id, self.supplier, self.category = company_id, supplier, category
        self.id = demo.uuid()
        self.correlation_id = demo.uuid()
        self.values: dict[str, Any] = {column: None for column in ITEM_COLUMNS}
        self.values.update(
            id=self.id,
            company_id=company_id,
            status="received",
            correlation_id=self.correlation_id,
            extraction_skipped=False,
        )
        self.updated_at: dt.datetime | None = None

    # -- sources
    def _extracted(self, low: int, high: int, received: dt.datetime) -> dict[str, Any]:
        rng = self.rng
        total = round(rng.uniform(low, high), rng.choice([0, 2, 2, 2]))
        vat = round(total * 0.2, 2) if rng.random() < 0.7 else round(total * 0.107, 2)
        data: dict[str, Any] = {
            "supplier": {"name": self.supplier},
            "invoice": {"invoiceDate": (received - dt.timedelta(days=rng.randint(0, 3))).date().isoformat()},
            "totals": {"total": total, "vatAmount": vat},
        }
        if rng.random() < 0.9:
            data["invoice"]["currency"] = "SEK"
        elif rng.random() < 0.5:
            data["invoice"]["currency"] = "EUR"
        return data

    def _received(self, default_low: dt.timedelta = dt.timedelta(minutes=5)) -> dt.datetime:
        return self.demo.ago(default_low, HISTORY)

    def _document(self, person: Person, received: dt.datetime, name: str, source: str) -> uuid.UUID:
        demo = self.demo
        document_id = demo.uuid()
        epoch_ms = int(received.timestamp() * 1000)
        path = f"documents/{self.company_id}/{person.id}/{epoch_ms}_{name}"
        size: int | None
        drawn_enough = demo.receipt_files is not None and demo.files_drawn >= 2 * demo.receipt_files
        if received >= demo.files_since and not drawn_enough:
            demo.files_drawn += 1
            data = self.values["extracted_data"] or {}
            image = receipt_jpeg(
                supplier=self.supplier,
                date=(data.get("invoice") or {}).get("invoiceDate"),
                total=(data.get("totals") or {}).get("total"),
                vat=(data.get("totals") or {}).get("vatAmount"),
                currency=(data.get("invoice") or {}).get("currency") or "SEK",
            )
            self.batch.files.append((path, image))
            sha, size = hashlib.sha256(image).hexdigest(), len(image)
        else:
            sha, size = hashlib.sha256(document_id.bytes).hexdigest(), None
        self.sha256 = sha
        file_columns = (path, name, size, "image/jpeg", sha)
        self.batch.documents.append(
            (document_id, person.id, self.company_id, *file_columns, person.id, source, received, received, received)
        )
        return document_id

    def from_email(self, owner: Person, low: int, high: int) -> None:
        received = self._received()
        n = self.rng.randint(10000, 99999)
        self.values.update(
            user_id=owner.id,
            source="email",
            email_from=f"faktura@{_ascii(self.supplier.split()[0])}.example.se",
            email_subject=f"Faktura {n} från {self.supplier}",
            email_body_text=f"Hej!\n\nBifogat finner ni faktura {n}.\n\nMed vänlig hälsning\n{self.supplier}",
            email_received_at=received,
            resend_email_id=str(self.demo.uuid()),
            resend_attachment_id=f"att_{self.rng.getrandbits(48):012x}",
            raw_email_payload=_json({"from": f"{self.supplier} <faktura@example.se>", "attachments": 1}),
            extracted_data=self._extracted(low, high, received),
            kind_hint="supplier_invoice",
            created_at=received,
        )
        self.values["document_id"] = self._document(owner, received, f"faktura_{n}.jpg", "email")

    def from_upload(self, person: Person, low: int, high: int) -> None:
        received = self._received()
        self.values.update(
            user_id=person.id, source="upload", extracted_data=self._extracted(low, high, received), created_at=received
        )
        name = f"kvitto_{received:%Y%m%d_%H%M%S}.jpg"
        self.values["document_id"] = self._document(person, received, name, self.rng.choice(["camera", "file_upload"]))
        self.values["kind_hint"] = "receipt"

    def from_mailbox(self, owner: Person, low: int, high: int, *, peppol: bool) -> None:
        received = self._received()
        self.values.update(
            user_id=owner.id,
            source="peppol" if peppol else "mail_hunt",
            extracted_data=self._extracted(low, high, received),
            kind_hint="supplier_invoice",
            created_at=received,
        )
        if peppol:
            context: dict[str, Any] = {"channel": "peppol", "peppol_document_id": str(self.demo.uuid())}
            self.values["document_id"] = self._document(owner, received, "e-faktura.jpg", "e_invoice")
        else:
            context = {
                "channel": "mail_hunt",
                "mail_message_id": f"<{self.rng.getrandbits(64):016x}@mail.example.se>",
                "mail_subject": f"Kvitto från {self.supplier}",
            }
            self.values["document_id"] = self._document(owner, received, "kvitto.jpg", "mail_hunt")
        self.values["channel_context"] = _json(context)

    def from_whatsapp(self, person: Person, low: int, high: int) -> None:
        demo, rng = self.demo, self.rng
        self.person = person
        self.chat = demo.chats.setdefault(person.id, _Chat())
        self.context: Any = {"channel": "whatsapp", "caption": None, "company_selected_via": "pin"}
        if self.scenario == "photo_caption" or (self.scenario != "photo_only" and rng.random() < 0.35):
            self.context["caption"] = rng.choice(CAPTIONS)
        received = self._plan_received()
        self.received = received
        extracted = self._extracted(low, high, received)
        if self.scenario == "intake_error":
            extracted = {}
            self.values.update(status="error", error_message="Kunde inte tolka dokumentet (timeout)")
        self.values.update(
            user_id=person.id, source="whatsapp", extracted_data=extracted, kind_hint="receipt", created_at=received
        )
        name = f"IMG-{received:%Y%m%d}-WA{rng.randint(0, 9999):04d}.jpg"
        self.values["document_id"] = self._document(person, received, name, "whatsapp")
        photo_id = demo.uuid()
        self.values["whatsapp_message_id"] = photo_id
        at = received - dt.timedelta(seconds=rng.randint(2, 20))
        self.batch.photos.append(
            self._message(
                photo_id,
                "inbound",
                "image",
                self.context["caption"],
                at,
                media=(str(rng.randrange(10**15, 10**16)), "image/jpeg", self.sha256),
                link=False,
            )
        )
        self.chat.inbound(at)
        self._chat_story(received)

    def _plan_received(self) -> dt.datetime:
        """When the photo came in: questions in the chat's window must be recent, expired ones older."""
        demo, scenario = self.demo, self.scenario
        hour, day = dt.timedelta(hours=1), dt.timedelta(days=1)
        if scenario.startswith("open_") or scenario == "half_answer":
            self.asked = demo.ago(12 * dt.timedelta(minutes=1), CHAT_WINDOW - hour)
        elif scenario in ("late_reply", "app_answer_replaced"):
            self.asked = demo.ago(CHAT_WINDOW + 6 * hour, LATE_REPLY_WINDOW - hour)
        elif scenario.startswith("moved_") or scenario == "denied_then_context_moved":
            self.asked = demo.ago(CHAT_WINDOW + 10 * dt.timedelta(minutes=1), 30 * day)
        elif scenario.startswith("booked"):
            self.asked = demo.ago(8 * day, HISTORY)
        else:
            self.asked = demo.ago(2 * hour, HISTORY)
        return to_ms(self.asked - dt.timedelta(seconds=self.rng.randint(5, 240)))

    # -- the chat
    def _message(
        self,
        message_id: uuid.UUID,
        direction: str,
        kind: str,
        body: str | None,
        at: dt.datetime,
        *,
        media: tuple[str, str, str] | None = None,
        template: str | None = None,
        link: bool = True,
    ) -> tuple[Any, ...]:
        person = self.person
        if at < self.demo.now - BODY_RETENTION:
            body = None  # accounted purges message texts after 90 days
        media_id, mime, sha = media or (None, None, None)
        inbound = direction == "inbound"
        return (
            message_id,
            direction,
            self.demo.wamid(),
            person.phone_hash if inbound else None,
            person.phone_link_id,
            person.conversation_id,
            kind,
            body,
            media_id,
            mime,
            sha,
            _json({"template": template}) if template else None,
            "done",
            1 if inbound else 0,
            self.id if link else None,
            None if inbound else self.rng.choice(["delivered", "read", "read"]),
            self.correlation_id,
            at if inbound else None,
            at,
            at,
        )

    def _event(
        self, event_type: str, question_type: str, at: dt.datetime, *, actor: dict[str, str] = SYSTEM_ACTOR
    ) -> uuid.UUID:
        payload = {"channel": "whatsapp", "inbox_item_id": str(self.id), "question_type": question_type}
        event_id = self.demo.uuid()
        self.batch.events.append(
            (
                event_id,
                self.company_id,
                self.correlation_id,
                "System",
                self.id,
                event_type,
                _json(payload),
                _json(actor),
                at,
            )
        )
        self._touch(at)
        return event_id

    def _touch(self, at: dt.datetime) -> None:
        self.updated_at = max(at, self.updated_at or at)

    def _ask(self, qtype: str, status: str, *, in_chat: bool = True) -> _Question:
        """The question written to the item; in the chat unless over the budget."""
        asked = self.asked
        self.context["pending_question"] = {"type": qtype, "asked_at": iso(asked), "status": status}
        if qtype == "resend":
            self.context["quality"] = {"resend_requested_at": iso(asked)}
        question = _Question(qtype, self.id, asked, status)
        self._touch(asked)
        if not in_chat:
            return question
        if asked >= self.demo.now - LATE_REPLY_WINDOW:  # older ones are pruned from the conversation anyway
            self.chat.questions.append(question)
        self.batch.messages.append(
            self._message(
                self.demo.uuid(), "outbound", "template", QUESTION_TEXTS[qtype], asked, template=TEMPLATES[qtype]
            )
        )
        self.chat.outbound(asked)
        self._event("ChannelQuestionAsked", qtype, asked)
        return question

    def _expire(self, question: _Question) -> None:
        at = self.demo.later(question.asked_at, CHAT_WINDOW, CHAT_WINDOW + dt.timedelta(seconds=59))
        question.status = "moved_to_app"
        self.context["pending_question"]["status"] = "moved_to_app"
        self._event("ChannelQuestionExpired", question.type, at, actor=CRON_ACTOR)

    def _reply(self, text: str, after: dt.datetime, latest: dt.timedelta = dt.timedelta(hours=10)) -> dt.datetime:
        at = self.demo.later(after, dt.timedelta(minutes=1), latest)
        self.batch.messages.append(self._message(self.demo.uuid(), "inbound", "text", text, at))
        self.chat.inbound(at)
        self._touch(at)
        return at

    def _answered(self, question: _Question, at: dt.datetime, *, actor: dict[str, str] = SYSTEM_ACTOR) -> uuid.UUID:
        question.status = "answered"
        self.context["pending_question"]["status"] = "answered"
        return self._event("ChannelQuestionAnswered", question.type, at, actor=actor)

    def _representation(
        self,
        purpose: str | None,
        after: dt.datetime,
        *,
        two_messages: bool = False,
        latest: dt.timedelta = dt.timedelta(hours=10),
    ) -> dt.datetime:
        rng = self.rng
        guests = rng.sample(GUESTS, rng.randint(1, 4))
        people = [{"name": name, "company": company} for name, company in guests]
        names = ", ".join(name + (f" ({company})" if company else "") for name, company in guests)
        if purpose and two_messages:
            first = self._reply(names, after)
            at = self._reply(purpose, first, dt.timedelta(minutes=20))
            raw = f"{names}\n{purpose}"
        else:
            raw = f"{names}. {purpose}" if purpose else names
            at = self._reply(raw, after, latest)
        event_date = (self.received - dt.timedelta(days=rng.randint(0, 2))).date().isoformat()
        self.context["representation"] = {
            "participants": people,
            "purpose": purpose,
            "event_date": event_date if rng.random() < 0.6 else None,
            "raw_answer": raw,
            "answered_at": iso(at),
        }
        return at

    def _context_answer(self, after: dt.datetime, latest: dt.timedelta = dt.timedelta(hours=10)) -> dt.datetime:
        note = self.rng.choice(NOTES[self.category])
        raw = note if self.rng.random() < 0.6 else note.lower() + " typ"
        at = self._reply(raw, after, latest)
        self.context["user_note"] = note
        self.context["context_answer"] = {"raw_answer": raw, "answered_at": iso(at)}
        return at

    def _deny(self, after: dt.datetime) -> dt.datetime:
        raw = self.rng.choice(DENIALS)
        at = self._reply(raw, after)
        self.context["representation"] = {
            "participants": [],
            "purpose": None,
            "event_date": None,
            "raw_answer": raw,
            "answered_at": iso(at),
            "denied": True,
        }
        return at

    def _chat_story(self, received: dt.datetime) -> None:
        rng, scenario = self.rng, self.scenario
        self._touch(received)
        match scenario:
            case "photo_only" | "photo_caption" | "intake_error":
                pass
            case "open_representation" | "open_context" | "open_resend":
                self._ask(scenario.removeprefix("open_"), "open")
            case "moved_representation" | "moved_context" | "moved_resend":
                self._expire(self._ask(scenario.removeprefix("moved_"), "open"))
            case "over_budget":
                self._ask(rng.choice(("representation", "context", "resend")), "moved_to_app", in_chat=False)
            case "moved_representation_half":
                question = self._ask("representation", "open")
                self._representation(None, question.asked_at)
                self._expire(question)
            case "half_answer":
                question = self._ask("representation", "open")
                self._representation(None, question.asked_at)
            case "denied":
                question = self._ask("representation", "open")
                self._answered(question, self._deny(question.asked_at))
            case "denied_then_context_moved":
                question = self._ask("representation", "open")
                denied_at = self._deny(question.asked_at)
                self._answered(question, denied_at)
                self.asked = self.demo.later(denied_at, dt.timedelta(minutes=1), dt.timedelta(minutes=5))
                self._expire(self._ask("context", "open"))
            case "booked" if rng.random() < 0.5:
                pass  # nothing to ask about this receipt
            case "representation_answered" | "booked":
                question = self._ask("representation", "open")
                at = self._representation(rng.choice(PURPOSES), question.asked_at, two_messages=rng.random() < 0.3)
                self._answered(question, at)
            case "context_answered":
                question = self._ask("context", "open")
                self._answered(question, self._context_answer(question.asked_at))
            case "resend_answered":
                question = self._ask("resend", "open")
                # The new photo is a new item of its own; the old one only learns it was resent.
                at = self.demo.later(question.asked_at, dt.timedelta(minutes=2), dt.timedelta(hours=8))
                self.context["quality"].update(resent=True, superseded=True)
                self._answered(question, at)
            case "late_reply":
                question = self._ask("context", "open")
                self._expire(question)
                expired = question.asked_at + CHAT_WINDOW
                at = self._context_answer(expired, LATE_REPLY_WINDOW - CHAT_WINDOW)
                self._answered(question, at)
            case "app_answer_replaced":
                self._answered_in_app_then_in_chat()
            case "booked_with_question_moved":
                self._expire(self._ask(rng.choice(("representation", "context")), "open"))
            case "malformed":
                self.context = malformed_context(rng)
            case "malformed_huge_number":
                self.context = None
                self.values["channel_context"] = huge_number_context()
        if self.context is not None and not isinstance(self.values["channel_context"], RawJSON):
            self.values["channel_context"] = _json(self.context)
        if scenario.startswith("booked"):
            self._book()

    def _answered_in_app_then_in_chat(self) -> None:
        """A bookkeeper answers a question moved to the app; the person's late reply in the chat replaces it."""
        rng = self.rng
        question = self._ask("representation", "open")
        self._expire(question)
        before = copy.deepcopy(self.context)
        at = self.demo.later(question.asked_at + CHAT_WINDOW, dt.timedelta(minutes=10), dt.timedelta(hours=4))
        guests = rng.sample(GUESTS, rng.randint(1, 3))
        purpose = rng.choice(PURPOSES)
        people = [{"name": name, "company": company} for name, company in guests]
        # What the app writes without the customer's words: the firm's attributed text.
        raw_answer = evidence.entered_by_firm(evidence.representation_words(guests, purpose, ""), at)
        self.context["representation"] = {
            "participants": people,
            "purpose": purpose,
            "event_date": None,
            "raw_answer": raw_answer,
            "answered_at": iso(at),
        }
        history_id = self._answered(question, at, actor=APP_ACTOR)
        payload = {
            "before": before,
            "after": copy.deepcopy(self.context),
            "answer": {
                "participants": people,
                "purpose": purpose,
                "event_date": None,
                "customer_words": None,
                "customer_words_via": None,
            },
            "amended": False,
            "history_event_id": str(history_id),
            "conversations": [],
            "raw_answer_source": "rendered",
            "raw_answer_via": None,
            "raw_answer_added": raw_answer,
        }
        self.batch.app_answers.append((self.id, "representation", payload, at))
        # The reply reaches the intake, which writes it over what is there (contract, step 9).
        late = self._representation(rng.choice(PURPOSES), at, latest=dt.timedelta(hours=12))
        self._event("ChannelQuestionAnswered", "representation", late)

    def _book(self) -> None:
        booked_at = self.demo.later(self.updated_at or self.received, dt.timedelta(days=1), dt.timedelta(days=6))
        booking_id = self.demo.uuid()
        if self.rng.random() < 0.5:
            self.batch.supplier_invoices.append((booking_id, self.company_id, booked_at))
            self.values["created_supplier_invoice_id"] = booking_id
        else:
            self.batch.journal_entries.append((booking_id, self.company_id, booked_at))
            self.values["created_journal_entry_id"] = booking_id
        self._touch(booked_at)

    def finish(self) -> None:
        values = self.values
        if values["source"] != "email" and self.rng.random() < 0.5:
            values["matched_supplier_id"] = self.demo.org.supplier_ids[self.company_id, self.supplier]
        if values["extracted_data"] is not None:
            values["extracted_data"] = _json(values["extracted_data"])
        values["updated_at"] = max(self.updated_at or values["created_at"], values["created_at"])
        self.batch.items.append(tuple(values[column] for column in ITEM_COLUMNS))


def malformed_context(rng: random.Random) -> Any:
    """Shapes the real column has been seen to carry: wrong types where objects belong."""
    return rng.choice(
        [
            {"channel": "whatsapp", "representation": "Anna och Erik, kundmöte"},
            {"channel": "whatsapp", "representation": {"participants": "Anna, Erik", "purpose": 42}},
            {"channel": "whatsapp", "pending_question": ["representation", "open"]},
            {"channel": "whatsapp", "user_note": 12345, "context_answer": "lunch"},
            {"channel": "whatsapp", "representation": {"participants": [{"name": 7}], "denied": "true"}},
            {"channel": "whatsapp", "pending_question": {"type": "budget", "status": "moved_to_app"}},
            "whatsapp",
            [1, 2, 3],
        ]
    )


def huge_number_context() -> RawJSON:
    """A context with a 5 000-digit number: valid for PostgreSQL, unreadable for Python's json."""
    return RawJSON('{"channel": "whatsapp", "caption": "kvitto", "amount_hint": ' + "9" * 5000 + "}")


# --- Receipt images -----------------------------------------------------------------------------


@functools.cache
def _receipt_font(image_font: Any, size: int) -> Any:
    # Pillow's built-in font has no å, ä or ö ("Operak□llaren"); DejaVu Sans
    # (on most Linux machines, and wherever Debian's chromium is installed) has.
    try:
        return image_font.truetype("DejaVuSans.ttf", size)
    except OSError:
        return image_font.load_default(size=size)


def kronor(amount: float | None) -> str:
    """An amount as a Swedish receipt prints it: ``1044.0`` -> ``1 044,00``."""
    if amount is None:
        return "-"
    with override("sv"):
        return number_format(amount, decimal_pos=2, use_l10n=True, force_grouping=True)


_RECEIPT_SIZE: Final = (360, 480)
_LINE_TOP, _LINE_STEP, _LINE_LEFT = 30, 34, 24


@functools.cache
def _receipt_template() -> Any:
    """The lines every receipt prints, drawn once (a text line is most of a receipt's drawing time)."""
    from PIL import Image, ImageDraw, ImageFont

    image = Image.new("L", _RECEIPT_SIZE, 255)
    draw = ImageDraw.Draw(image)
    small = _receipt_font(ImageFont, 14)
    for line, text in ((1, "Org.nr 556000-0000"), (4, "Varor/tjänster"), (5, "-" * 36), (9, "Tack för besöket!")):
        draw.text((_LINE_LEFT, _LINE_TOP + line * _LINE_STEP), text, fill=0, font=small)
    return image


def receipt_jpeg(*, supplier: str, date: str | None, total: float | None, vat: float | None, currency: str) -> bytes:
    """A plain generated receipt photo, so the demo's item pages show a document."""
    from PIL import ImageDraw, ImageFont

    image = _receipt_template().copy()
    draw = ImageDraw.Draw(image)
    font = _receipt_font(ImageFont, 18)
    small = _receipt_font(ImageFont, 14)
    lines = [
        (0, supplier, font),
        (2, f"Datum: {date or '-'}", small),
        (6, f"Totalt: {kronor(total)} {currency}", font),
        (7, f"varav moms: {kronor(vat)} {currency}", small),
    ]
    for line, text, face in lines:
        draw.text((_LINE_LEFT, _LINE_TOP + line * _LINE_STEP), text, fill=0, font=face)
    buffer = io.BytesIO()
    image.save(buffer, format="JPEG", quality=70)
    return buffer.getvalue()
