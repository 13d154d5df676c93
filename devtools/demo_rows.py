"""accounted's rows as the demo writes them: the people, what the chat says, the tables' columns.

Nothing here draws at random: the companies and people (fixed ids, so several
runs share them), the texts of questions and replies, the time windows of the
intake's chat, the columns of each table in COPY order, and the containers one
batch of items fills (``Batch``). ``demo_items`` tells one item's story with
them; ``demo`` runs the stories.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import uuid
from dataclasses import dataclass, field
from typing import Any, Final

import orjson

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


def to_json(value: Any) -> str:
    return orjson.dumps(value).decode()


def _fixed(kind: str, name: str) -> uuid.UUID:
    return uuid.uuid5(_NAMESPACE, f"{kind}:{name}")


def ascii_name(text: str) -> str:
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
    org.users.append((accountant_id, f"{ascii_name(ACCOUNTANT[0])}@byran.example.se", org.created_at))
    for number, ((name, org_number, entity_type), staff) in enumerate(zip(COMPANIES, STAFF, strict=True)):
        company_id = _fixed("company", name)
        domain = ascii_name(name.split()[0]) + ".example.se"
        people: list[Person] = []
        for index, (first, last, role) in enumerate(staff):
            user_id = _fixed("user", f"{name}/{first}")
            org.users.append((user_id, f"{ascii_name(first)}.{ascii_name(last)}@{domain}", org.created_at))
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
class Question:
    type: str
    inbox_item_id: uuid.UUID
    asked_at: dt.datetime
    status: str


@dataclass
class Chat:
    """What one phone's conversation has seen, for its ``context`` at the end."""

    questions: list[Question] = field(default_factory=list)
    last_inbound: dt.datetime | None = None
    last_outbound: dt.datetime | None = None

    def inbound(self, at: dt.datetime) -> None:
        self.last_inbound = max(at, self.last_inbound or at)

    def outbound(self, at: dt.datetime) -> None:
        self.last_outbound = max(at, self.last_outbound or at)
