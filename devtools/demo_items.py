"""One demo item's story: its document, the chat around it, its events and its booking.

``ItemBuilder`` writes an item as accounted's intake would have left it after
the scenario ``DemoData`` drew for it (``demo.SCENARIOS``): a photo sent on
WhatsApp, a question asked, answered, half answered, denied, moved to the app
by the cron or over the budget, answered in the app and then replaced by a late
reply, booked; or an item that came by e-mail, upload, the mailbox hunt or
Peppol. Its random draws come from the run's ``DemoData``, in a fixed order, so
the same seed gives the same rows.
"""

from __future__ import annotations

import copy
import datetime as dt
import hashlib
import random
import uuid
from typing import TYPE_CHECKING, Any

from devtools.demo_rows import (
    APP_ACTOR,
    BODY_RETENTION,
    CAPTIONS,
    CHAT_WINDOW,
    CRON_ACTOR,
    DENIALS,
    GUESTS,
    HISTORY,
    ITEM_COLUMNS,
    LATE_REPLY_WINDOW,
    NOTES,
    PURPOSES,
    QUESTION_TEXTS,
    SYSTEM_ACTOR,
    TEMPLATES,
    Batch,
    Chat,
    Person,
    Question,
    RawJSON,
    ascii_name,
    iso,
    to_json,
    to_ms,
)
from devtools.receipts import receipt_jpeg
from reviewapp.answers import evidence

if TYPE_CHECKING:
    from devtools.demo import DemoData


class ItemBuilder:
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
            email_from=f"faktura@{ascii_name(self.supplier.split()[0])}.example.se",
            email_subject=f"Faktura {n} från {self.supplier}",
            email_body_text=f"Hej!\n\nBifogat finner ni faktura {n}.\n\nMed vänlig hälsning\n{self.supplier}",
            email_received_at=received,
            resend_email_id=str(self.demo.uuid()),
            resend_attachment_id=f"att_{self.rng.getrandbits(48):012x}",
            raw_email_payload=to_json({"from": f"{self.supplier} <faktura@example.se>", "attachments": 1}),
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
        self.values["channel_context"] = to_json(context)

    def from_whatsapp(self, person: Person, low: int, high: int) -> None:
        demo, rng = self.demo, self.rng
        self.person = person
        self.chat = demo.chats.setdefault(person.id, Chat())
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
            to_json({"template": template}) if template else None,
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
                to_json(payload),
                to_json(actor),
                at,
            )
        )
        self._touch(at)
        return event_id

    def _touch(self, at: dt.datetime) -> None:
        self.updated_at = max(at, self.updated_at or at)

    def _ask(self, qtype: str, status: str, *, in_chat: bool = True) -> Question:
        """The question written to the item; in the chat unless over the budget."""
        asked = self.asked
        self.context["pending_question"] = {"type": qtype, "asked_at": iso(asked), "status": status}
        if qtype == "resend":
            self.context["quality"] = {"resend_requested_at": iso(asked)}
        question = Question(qtype, self.id, asked, status)
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

    def _expire(self, question: Question) -> None:
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

    def _answered(self, question: Question, at: dt.datetime, *, actor: dict[str, str] = SYSTEM_ACTOR) -> uuid.UUID:
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
            self.values["channel_context"] = to_json(self.context)
        if scenario.startswith("booked"):
            self._book()

    def _answered_in_app_then_in_chat(self) -> None:
        """A bookkeeper answers a question moved to the app; the person's late reply in the chat replaces it."""
        rng = self.rng
        question = self._ask("representation", "open")
        self._expire(question)
        before = copy.deepcopy(self.context)
        # Answered when someone is at work, up to three days after the move, leaving the late reply its room before now.
        moved = question.asked_at + CHAT_WINDOW
        room = min(dt.timedelta(hours=72), self.demo.now - moved - dt.timedelta(hours=13))
        at = self.demo.at_work(moved, dt.timedelta(minutes=10), max(room, dt.timedelta(hours=4)))
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
            values["extracted_data"] = to_json(values["extracted_data"])
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
