"""Deterministic Swedish demo data covering every clarification state.

``iter_demo_items`` yields unsaved rows so the management command can insert
them in bulk; the same seed and the same ``now`` always give the same rows.
"""

from __future__ import annotations

import datetime as dt
import io
import random
import uuid
from collections.abc import Iterator
from typing import Any

from django.utils.formats import number_format
from django.utils.translation import override

from reviewapp.models import ClarificationEvent, Company, InboxItem

COMPANIES = [
    ("Fjällbacka Konsult AB", "556677-1234"),
    ("Norrsken Redovisning AB", "559012-3456"),
    ("Solberga Bygg & Montage AB", "556123-9876"),
    ("Kvarnholmen Design HB", "969777-1122"),
    ("Tallviken IT-tjänster AB", "559876-5432"),
]

# (supplier, category, typical total range in SEK)
SUPPLIERS = [
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

PEOPLE = [
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

PURPOSES = [
    "Kundmöte om ramavtal 2027",
    "Uppföljning av projektleverans",
    "Rekryteringslunch med kandidat",
    "Säljmöte inför offert",
    "Avtalsförhandling med leverantör",
    "Julbord med kund",
]

NOTES = {
    "taxi": ["Taxi från kundmöte till kontoret", "Resa till Arlanda för konferens"],
    "office": ["Pärmar och papper till kontoret", "Skrivarbläck", "Ny headset till support"],
    "software": ["Licens för designverktyg", "Månadsabonnemang för teamet", "Årsavgift projektverktyg"],
    "travel": ["Tåg till kundbesök i Göteborg", "Hotell under mässan i Malmö"],
    "fuel": ["Tankning av tjänstebilen"],
    "cafe": ["Fika med kollega under workshop", "Kaffe till styrelsemöte"],
    "restaurant": ["Lunch med teamet", "Middag under konferens"],
}

CAPTIONS = ["kvitto", "lunch igår", "här är kvittot!", "taxi", "📎", "till bokföringen"]

QUESTION_TYPES = ("representation", "context", "resend")


def _iso(moment: dt.datetime) -> str:
    return moment.astimezone(dt.UTC).isoformat().replace("+00:00", "Z")


class _Builder:
    def __init__(self, seed: int, now: dt.datetime) -> None:
        self.rng = random.Random(seed)
        self.now = now

    def uuid(self) -> uuid.UUID:
        return uuid.UUID(int=self.rng.getrandbits(128), version=4)

    def ago(self, low_hours: float, high_hours: float) -> dt.datetime:
        return self.now - dt.timedelta(hours=self.rng.uniform(low_hours, high_hours))

    def participants(self, count: int) -> list[dict[str, Any]]:
        chosen = self.rng.sample(PEOPLE, count)
        return [{"name": name, "company": company} for name, company in chosen]

    def extracted(self, supplier: str, low: int, high: int, received: dt.datetime) -> dict[str, Any]:
        total = round(self.rng.uniform(low, high), self.rng.choice([0, 2, 2, 2]))
        vat = round(total * 0.2, 2) if self.rng.random() < 0.7 else round(total * 0.107, 2)
        data: dict[str, Any] = {
            "supplier": {"name": supplier},
            "invoice": {"invoiceDate": (received - dt.timedelta(days=self.rng.randint(0, 3))).date().isoformat()},
            "totals": {"total": total, "vatAmount": vat},
        }
        if self.rng.random() < 0.9:
            data["invoice"]["currency"] = "SEK"
        elif self.rng.random() < 0.5:
            data["invoice"]["currency"] = "EUR"
        if self.rng.random() < 0.03:
            return {}
        return data


# Each scenario: (weight, name). Weights are per mille of the generated items.
SCENARIOS = [
    (90, "no_context"),
    (40, "empty_whatsapp"),
    (70, "caption_only"),
    (40, "open_representation"),
    (30, "open_context"),
    (20, "open_resend"),
    (45, "moved_representation"),
    (40, "moved_context"),
    (20, "moved_resend"),
    (20, "moved_representation_half"),
    (70, "denied"),
    (20, "denied_with_moved_context"),
    (55, "half_answer"),
    (150, "full_answer"),
    (80, "note_only"),
    (80, "context_answered"),
    (30, "mail_hunt"),
    (15, "peppol"),
    (15, "resend_answered"),
    (15, "malformed"),
]
_SCENARIO_NAMES = [name for _, name in SCENARIOS]
_SCENARIO_WEIGHTS = [weight for weight, _ in SCENARIOS]


def _context_for(b: _Builder, scenario: str, category: str) -> tuple[Any, list[tuple[str, str, dt.datetime]]]:
    """The channel_context for one scenario and the events that led to it.

    Events are (event_type, question_type, occurred_at) in the chat's history.
    """
    rng = b.rng
    events: list[tuple[str, str, dt.datetime]] = []
    ctx: dict[str, Any] = {"channel": "whatsapp"}
    if rng.random() < 0.35:
        ctx["caption"] = rng.choice(CAPTIONS)

    def question(qtype: str, status: str, low: float, high: float) -> None:
        asked = b.ago(low, high)
        ctx["pending_question"] = {"type": qtype, "asked_at": _iso(asked), "status": status}
        events.append((ClarificationEvent.ASKED, qtype, asked))
        if status == "moved_to_app":
            events.append((ClarificationEvent.EXPIRED, qtype, asked + dt.timedelta(hours=48)))
        elif status == "answered":
            events.append((ClarificationEvent.ANSWERED, qtype, asked + dt.timedelta(minutes=rng.randint(2, 600))))

    def representation(count: int, purpose: str | None) -> None:
        people = b.participants(count)
        names = ", ".join(p["name"] for p in people)
        ctx["representation"] = {
            "participants": people,
            "purpose": purpose,
            "event_date": (b.now - dt.timedelta(days=rng.randint(1, 9))).date().isoformat()
            if rng.random() < 0.6
            else None,
            "raw_answer": f"{names}{'. ' + purpose if purpose else ''}",
            "answered_at": _iso(b.ago(50, 400)),
        }

    match scenario:
        case "no_context":
            return None, events
        case "empty_whatsapp":
            ctx.pop("caption", None)
        case "caption_only":
            ctx["caption"] = rng.choice(CAPTIONS)
        case "open_representation" | "open_context" | "open_resend":
            question(scenario.removeprefix("open_"), "open", 0.2, 47.5)
        case "moved_representation" | "moved_context" | "moved_resend":
            question(scenario.removeprefix("moved_"), "moved_to_app", 49, 24 * 12)
        case "moved_representation_half":
            representation(rng.randint(1, 3), None)
            question("representation", "moved_to_app", 49, 24 * 8)
        case "denied":
            ctx["representation"] = {
                "participants": [],
                "purpose": None,
                "event_date": None,
                "raw_answer": rng.choice(["nej", "Nej, bara jag", "nej det var ingen representation"]),
                "answered_at": _iso(b.ago(1, 500)),
                "denied": True,
            }
            question("representation", "answered", 60, 600)
        case "denied_with_moved_context":
            ctx["representation"] = {
                "participants": [],
                "purpose": None,
                "raw_answer": "nej",
                "answered_at": _iso(b.ago(100, 500)),
                "denied": True,
            }
            question("context", "moved_to_app", 49, 24 * 6)
        case "half_answer":
            representation(rng.randint(1, 4), None)
        case "full_answer":
            representation(rng.randint(1, 5), rng.choice(PURPOSES))
            if rng.random() < 0.7:
                question("representation", "answered", 50, 700)
        case "note_only":
            ctx["user_note"] = rng.choice(NOTES[category])
        case "context_answered":
            text = rng.choice(NOTES[category])
            ctx["user_note"] = text
            raw = text if rng.random() < 0.6 else text.lower() + " typ"
            ctx["context_answer"] = {"raw_answer": raw, "answered_at": _iso(b.ago(2, 300))}
            question("context", "answered", 60, 400)
        case "mail_hunt":
            ctx = {
                "channel": "mail_hunt",
                "mail_subject": "Kvitto från " + rng.choice(SUPPLIERS)[0],
                "mail_from": "noreply@example.se",
                "company_selected_via": "mailbox",
            }
            if rng.random() < 0.5:
                ctx["user_note"] = rng.choice(NOTES[category])
        case "peppol":
            ctx = {"channel": "peppol", "peppol_message_id": str(b.uuid()), "peppol_sender": "0007:5567321707"}
        case "resend_answered":
            ctx["quality"] = {"resend_requested_at": _iso(b.ago(100, 300)), "resent": True}
            question("resend", "answered", 100, 300)
        case "malformed":
            return _malformed(b), events
    return ctx, events


def _malformed(b: _Builder) -> Any:
    """Shapes the real column has been seen to carry: wrong types where objects belong."""
    return b.rng.choice(
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


def iter_demo_items(
    *, count: int, seed: int, now: dt.datetime, companies: list[Company]
) -> Iterator[tuple[InboxItem, list[ClarificationEvent]]]:
    """Yield ``count`` unsaved items (with derived states computed) and their events."""
    b = _Builder(seed, now)
    rng = b.rng
    # Every scenario at least once, in the first rows, so even a tiny seed covers every state.
    forced = list(_SCENARIO_NAMES)
    for index in range(count):
        scenario = forced[index] if index < len(forced) else rng.choices(_SCENARIO_NAMES, _SCENARIO_WEIGHTS)[0]
        if scenario.endswith("representation") or scenario.startswith(("denied", "full", "half")):
            supplier, category, (low, high) = rng.choice([s for s in SUPPLIERS if s[1] == "restaurant"])
        else:
            supplier, category, (low, high) = rng.choice(SUPPLIERS)
        ctx, history = _context_for(b, scenario, category)
        received = b.ago(0.1, 24 * 60)
        if history:
            # The item arrived shortly before its first question was asked.
            received = min(received, history[0][2] - dt.timedelta(minutes=rng.randint(1, 30)))
        source = {"no_context": "email", "mail_hunt": "email", "peppol": "peppol"}.get(scenario, "whatsapp")
        item = InboxItem(
            id=b.uuid(),
            company=rng.choice(companies),
            status=rng.choice(["pending", "pending", "processing", "needs_review"]),
            source=source,
            document_id=b.uuid() if rng.random() < 0.9 else None,
            extracted_data=b.extracted(supplier, low, high, received),
            channel_context=ctx,
            whatsapp_message_id=f"wamid.HBgL{rng.getrandbits(64):016X}" if source == "whatsapp" else None,
            correlation_id=str(b.uuid()),
            created_at=received,
            updated_at=max([received, *(moment for _, _, moment in history)]),
        )
        item.refresh_states()
        events = [
            ClarificationEvent(
                item=item,
                event_type=event_type,
                question_type=qtype,
                actor_label="whatsapp-intake" if event_type != ClarificationEvent.EXPIRED else "expire_questions",
                channel=ClarificationEvent.Channel.WHATSAPP,
                payload={},
                occurred_at=moment,
            )
            for event_type, qtype, moment in history
        ]
        yield item, events


def demo_companies(seed: int) -> list[Company]:
    rng = random.Random(seed)
    return [
        Company(id=uuid.UUID(int=rng.getrandbits(128), version=4), name=name, organisation_number=number)
        for name, number in COMPANIES
    ]


def _receipt_font(image_font: Any, size: int) -> Any:
    # Pillow's built-in font has no å, ä or ö ("Operak□llaren"); DejaVu Sans
    # (on most Linux machines, and wherever Debian's chromium is installed) has.
    try:
        return image_font.truetype("DejaVuSans.ttf", size)
    except OSError:
        return image_font.load_default(size=size)


def _kronor(amount: float | None) -> str:
    """An amount as a Swedish receipt prints it: ``1044.0`` -> ``1 044,00``."""
    if amount is None:
        return "-"
    with override("sv"):
        return number_format(amount, decimal_pos=2, use_l10n=True, force_grouping=True)


def receipt_png(item: InboxItem) -> bytes:
    """A plain generated receipt image, so the demo's item pages show a document."""
    from PIL import Image, ImageDraw, ImageFont

    image = Image.new("RGB", (420, 560), "white")
    draw = ImageDraw.Draw(image)
    font = _receipt_font(ImageFont, 18)
    small = _receipt_font(ImageFont, 14)
    lines = [
        (item.supplier_name or "Kvitto", font),
        ("Org.nr 556000-0000", small),
        (f"Datum: {item.invoice_date or '-'}", small),
        ("", small),
        ("Varor/tjänster", small),
        ("-" * 40, small),
        (f"Totalt: {_kronor(item.total)} {item.currency}", font),
        (f"varav moms: {_kronor(item.vat_amount)} {item.currency}", small),
        ("", small),
        ("Tack för besöket!", small),
    ]
    y = 30
    for text, face in lines:
        draw.text((30, y), text, fill="black", font=face)
        y += 34
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    return buffer.getvalue()
