"""The conversation about one item: accounted's ``whatsapp_messages`` whose ``inbox_item_id`` is the item.

A message is about the item it names: the photo that created it, the
question sent about it (outbound, ``raw_payload`` ``{"template": ...}``) and
the reply. Messages about another item of the same phone never appear.

What is shown follows accounted's retention and the reader's role:

- the phone only as ``whatsapp_phone_links.phone_masked``, never its hash;
- a body accounted purged (``body_text`` is emptied after 90 days) says so,
  and a recent text message without a body says it has no text;
- media by type and file name, never the file;
- Support and QA (``FULL_PERMISSION``) read the whole transcript; a
  bookkeeper reads only the customer's replies (inbound text messages),
  not the photo or the technical rows.
"""

from __future__ import annotations

import datetime as dt
import uuid
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Final

from django.db.models import OuterRef, Q, QuerySet, Subquery
from django.db.models.expressions import RawSQL
from django.utils import timezone
from django.utils.translation import gettext as _

from reviewapp.bookkeeping.models import InboxItem, WhatsappMessage, WhatsappPhoneLink
from reviewapp.core import roles
from reviewapp.core.rendering_caps import MESSAGE_MAX_CHARS, SHORT_TEXT_MAX_CHARS, TRANSCRIPT_MAX_CHARS, TextBudget
from reviewapp.items.caps import Cuts, with_cuts

#: The most recent messages shown; an item's conversation is short, a looping bot's is not.
TRANSCRIPT_LIMIT: Final = 200

#: accounted empties ``body_text`` this long after a message arrived.
RETENTION: Final = dt.timedelta(days=90)

#: Who reads the whole transcript (Support and QA); everyone else reads the replies.
FULL_PERMISSION: Final = roles.VIEW_RAW

INBOUND: Final = "inbound"  # whatsapp_messages.direction; the other value is "outbound"


class BodyState(StrEnum):
    """What ``body_state`` says about a message's body."""

    TEXT = "text"
    PURGED = "purged"
    NO_TEXT = "no_text"
    NONE = ""


def _text(value: object) -> str | None:
    return value if isinstance(value, str) and value.strip() else None


@dataclass(frozen=True, slots=True)
class MessageView:
    """One message of the conversation, as the item page shows it."""

    id: uuid.UUID
    direction: str
    message_type: str
    body: str | None
    body_state: str
    template: str | None
    media_mime: str | None
    media_filename: str | None
    phone_masked: str | None
    wamid: str | None
    processing_status: str
    created_at: dt.datetime
    # The fields cut to their caps and their length before (``reviewapp.items.caps``).
    cut: dict[str, int] = field(default_factory=dict)

    @property
    def inbound(self) -> bool:
        return self.direction == INBOUND

    @property
    def is_question(self) -> bool:
        """The question sent about the item: an outbound template message."""
        return not self.inbound and self.template is not None

    @property
    def has_media(self) -> bool:
        return bool(self.media_mime or self.media_filename)

    @property
    def label(self) -> str:
        if self.inbound:
            return _("Message received")
        return _("Question sent") if self.is_question else _("Message sent")

    @property
    def detail(self) -> str:
        """What kind of message it was, in a few words: ``image: kvitto.jpg``, ``template repr_q``."""
        parts = [self.message_type]
        if self.media_filename:
            parts.append(self.media_filename)
        elif self.media_mime:
            parts.append(self.media_mime)
        if self.template:
            parts = [_("template %(name)s") % {"name": self.template}]
        return ": ".join(parts)

    def to_json(self) -> dict[str, Any]:
        return with_cuts(
            {
                "id": str(self.id),
                "direction": self.direction,
                "message_type": self.message_type,
                "body": self.body,
                "body_state": self.body_state or None,
                "template": self.template,
                "media": {"mime": self.media_mime, "filename": self.media_filename} if self.has_media else None,
                "phone_masked": self.phone_masked,
                "wamid": self.wamid,
                "processing_status": self.processing_status,
                "created_at": self.created_at.astimezone(dt.UTC).isoformat().replace("+00:00", "Z"),
            },
            self.cut,
        )


def body_state(body: str | None, message_type: str, created_at: dt.datetime, now: dt.datetime) -> str:
    """``text``, ``purged`` (no body, older than the retention), ``no_text`` (a recent text without one) or ""."""
    if body is not None and body != "":
        return BodyState.TEXT
    if created_at < now - RETENTION:
        return BodyState.PURGED
    if message_type == "text":
        return BodyState.NO_TEXT
    return BodyState.NONE


def _template(raw_payload: object) -> str | None:
    if not isinstance(raw_payload, dict):
        return None  # absent, or JSON Python cannot decode: no template to name
    value = raw_payload.get("template")
    return value if isinstance(value, str) and value else None


def messages_about(item_id: uuid.UUID, *, full: bool) -> QuerySet[WhatsappMessage]:
    """The item's messages as rows, newest first; only the inbound texts unless ``full``."""
    rows = WhatsappMessage.objects.filter(inbox_item_id=item_id)
    if not full:
        rows = rows.filter(Q(direction=INBOUND) & Q(message_type="text"))
    masked = WhatsappPhoneLink.objects.filter(pk=OuterRef("phone_link_id")).values("phone_masked")[:1]
    # media_filename is not among the unmanaged model's columns; read it by name.
    return rows.annotate(
        phone_masked=Subquery(masked),
        media_filename=RawSQL('"whatsapp_messages"."media_filename"', ()),
    ).order_by("-created_at", "-id")


def item_transcript(item: InboxItem, *, full: bool, now: dt.datetime | None = None) -> tuple[MessageView, ...]:
    """The most recent ``TRANSCRIPT_LIMIT`` messages about the item, oldest first.

    Every text is cut to its cap (a body to ``MESSAGE_MAX_CHARS``, the rest
    to ``SHORT_TEXT_MAX_CHARS``), and all of them together to
    ``TRANSCRIPT_MAX_CHARS``, spent from the newest message back: a
    conversation flooded with long messages still shows its latest ones.
    """
    moment = now or timezone.now()
    budget = TextBudget(TRANSCRIPT_MAX_CHARS)
    views = []
    for row in messages_about(item.pk, full=full)[:TRANSCRIPT_LIMIT]:
        cuts = Cuts(budget)
        body = row.body_text

        def short(name: str, value: str | None, cuts: Cuts = cuts) -> str | None:
            return cuts.text(name, value, max_chars=SHORT_TEXT_MAX_CHARS)

        views.append(
            MessageView(
                id=row.pk,
                direction=row.direction,
                message_type=short("message_type", row.message_type) or "",
                body=cuts.text("body", body, max_chars=MESSAGE_MAX_CHARS) if body else None,
                body_state=body_state(body, row.message_type, row.created_at, moment),
                template=short("template", _template(row.raw_payload)) if row.direction != INBOUND else None,
                media_mime=short("media_mime", _text(row.media_mime)),
                media_filename=short("media_filename", _text(row.media_filename)),  # type: ignore[attr-defined]
                phone_masked=short("phone_masked", _text(row.phone_masked)),  # type: ignore[attr-defined]
                wamid=short("wamid", _text(row.wamid)),
                processing_status=row.processing_status,
                created_at=row.created_at,
                cut=cuts.original,
            )
        )
    return tuple(reversed(views))


def photo_wamid(item: InboxItem) -> str | None:
    """The WhatsApp id (``wamid``) of the photo message the item was made from, if there is one.

    Read with the item when it came through ``items.describe.page_queryset``.
    """
    if item.whatsapp_message_id is None:
        return None
    if hasattr(item, "photo_message_wamid"):
        return _text(item.photo_message_wamid)
    value = WhatsappMessage.objects.filter(pk=item.whatsapp_message_id).values_list("wamid", flat=True).first()
    return _text(value)
