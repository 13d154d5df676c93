"""Settling a resend question in the app: a newer item replaces the old one, or a sharper file is uploaded.

An upload enters accounted's pipeline exactly as a file uploaded in
accounted's own inbox does (``extensions/general/invoice-inbox/index.ts``,
route ``POST /upload``, which calls ``uploadAndExtract`` with source
'upload' and ``deferExtraction: true``; ``lib/upload-and-extract.ts`` and
``lib/core/documents/document-service.ts``; read at erp-mafia/accounted
097a9e4 and 0d5eec7, the route's hand-off asserted by
``__tests__/upload-signed-route.test.ts`` at ae267d3):

- content dedupe first (``uploadDocument``'s ``dedupeByContent``): when the
  company already has a current document (``is_current_version``) with the
  file's sha256, nothing is stored again. If an item holds that document
  (the oldest, as accounted adopts it), the upload is refused with
  ``DuplicateFile`` naming that item, which the bookkeeper may name as the
  replacing item instead; if none does (the document entered outside the
  inbox), the new item is filed for the existing document, as accounted does;
- the file goes into the ``documents`` bucket (``storages["documents"]``)
  under accounted's key ``documents/{company_id}/{user_id}/{epoch_ms}_{name}``
  with accounted's ``sanitizeFileName`` (copied below); the
  ``document_attachments`` row keeps the original file name (control
  characters stripped), ``upload_source`` 'file_upload', ``uploaded_by`` the
  bookkeeper's linked accounted user or NULL;
- ``DocumentIngested`` is appended for the document, with accounted's
  payload and the pseudonymous actor (``writing.actor_for``);
- the new item is written as accounted writes an item it does not extract
  (``reviewapp.answers.unread``): status 'received', accounted's empty
  skeleton, ``extraction_skipped`` true, the document's extraction mirror
  and ``DocumentExtractionAttempted`` (skipped, ``client_opt_out``); source
  'upload', a new correlation id shared with the events. accounted extracts
  a staged upload only inside its own process, so a 'processing' row the app
  wrote was never read: the sweep made it an empty item that looked read.

The row's ``user_id`` (and so the key's user segment) is the old item's
owner: the receipt is still theirs; who uploaded it is ``uploaded_by``. Like
a new photo in the chat, the new item carries no link to the old one in
accounted's data; the app keeps the link in its own log.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import math
import re
import unicodedata
import uuid
from dataclasses import dataclass
from typing import Any, Final

from django.contrib.auth.models import AbstractBaseUser
from django.core.files.base import File
from django.core.files.storage import storages
from django.utils.translation import gettext as _

from reviewapp.answers import unread
from reviewapp.answers.uploads import CheckedFile
from reviewapp.answers.validation import AnswerInvalid, is_short_id
from reviewapp.bookkeeping.models import DocumentAttachment, InboxItem, ProcessingHistory
from reviewapp.core import access, text

DOCUMENTS_STORAGE: Final = "documents"
INGESTED: Final = "DocumentIngested"
# accounted's upload route passes source 'upload' (the item's source and the event's channel).
UPLOAD_SOURCE: Final = "upload"

# document-service.ts sanitizeFileName: these survive in the name, others become "_".
_KEY_SAFE_BASE = re.compile(r"[^a-zA-Z0-9._-]")
_KEY_SAFE_EXT = re.compile(r"[^a-zA-Z0-9.]")
_UNDERSCORES = re.compile(r"_+")
_EDGE_UNDERSCORE = re.compile(r"\A_|_\Z")
MAX_KEY_BASE: Final = 100


def _js_replace(pattern: re.Pattern[str], value: str) -> str:
    """``value.replace(/pattern/g, '_')`` as JavaScript does it: per UTF-16 unit, so 😀 becomes ``__``."""
    return pattern.sub(lambda m: "_" * (2 if ord(m.group()) > 0xFFFF else 1), value)


def sanitize_file_name(name: str) -> str:
    """accounted's ``sanitizeFileName``, line for line: ``Kvitto åäö (2).PNG`` → ``Kvitto_2.PNG``.

    The base keeps ``[a-zA-Z0-9._-]``, runs of ``_`` collapse to one, one
    ``_`` is trimmed at each end, then the first 100 characters, or ``file``;
    the extension (from the last dot, not a leading one) keeps its case.
    """
    dot = name.rfind(".")
    ext = name[dot:] if dot > 0 else ""
    base = name[:dot] if dot > 0 else name
    clean_base = _EDGE_UNDERSCORE.sub("", _UNDERSCORES.sub("_", _js_replace(_KEY_SAFE_BASE, base)))
    return (clean_base[:MAX_KEY_BASE] or "file") + _js_replace(_KEY_SAFE_EXT, ext)


def original_file_name(name: str | None) -> str:
    """The name as uploaded, less control and text-direction characters (never stored: they spoof or break)."""
    kept = text.BIDI_CONTROLS.sub("", text.LINE_CONTROLS.sub("", name or ""))
    return kept if kept.strip() else "file"


def storage_key(company_id: uuid.UUID, user_id: uuid.UUID, file_name: str, now: dt.datetime) -> str:
    """accounted's ``buildDocumentStoragePath``: ``documents/{company}/{user}/{epoch_ms}_{sanitised}``."""
    epoch_ms = int(now.timestamp() * 1000)
    return f"documents/{company_id}/{user_id}/{epoch_ms}_{sanitize_file_name(file_name)}"


def sha256_of(upload: Any) -> str:
    digest = hashlib.sha256()
    upload.seek(0)
    for chunk in upload.chunks():
        digest.update(chunk)
    upload.seek(0)
    return digest.hexdigest()


def replacement_problem(old: InboxItem, new: InboxItem) -> str | None:
    """Why ``new`` cannot replace ``old`` (both visible to the user), or None."""
    if new.pk == old.pk:
        return _("An item cannot replace itself.")
    if new.company_id != old.company_id:
        return _("That item belongs to another company.")
    if new.created_at <= old.created_at:
        return _("That item is older than this one; only a newer item replaces it.")
    return None


# How many of the items an ambiguous short id matches are named in its error.
MAX_NAMED_MATCHES: Final = 10


def replacement(old: InboxItem, new_id: str, user: AbstractBaseUser, *, confirmed: bool = False) -> InboxItem:
    """The newer item of the same company that replaces ``old``, or ``AnswerInvalid``.

    ``ReplacementUnconfirmed`` (an ``AnswerInvalid``) when the newer item
    differs sharply from ``old`` (``sharp_differences``) and ``confirmed`` is false.

    ``new_id`` is a whole id or, as ``validation.is_short_id`` allows, its
    first 8 or more hex digits, looked up only among ``old``'s company's
    items (a range on the primary key: an index lookup). An item of a
    company ``user`` may not see is no item at all: its id says nothing.
    """
    by_prefix = is_short_id(new_id)
    new = _by_short_id(old.company_id, new_id) if by_prefix else InboxItem.objects.filter(pk=new_id).first()
    if new is None or not access.can_see(user, new.company_id):
        raise AnswerInvalid({"replaced_by": [_("No item has this id.")]})
    problem = replacement_problem(old, new)
    if problem is not None:
        raise AnswerInvalid({"replaced_by": [problem]})
    differences = sharp_differences(old, new)
    if differences and not confirmed:
        raise ReplacementUnconfirmed(new, differences)
    return new


def _by_short_id(company_id: uuid.UUID, prefix: str) -> InboxItem | None:
    """The one item of the company whose id starts with ``prefix``; ``AnswerInvalid`` naming them when several do."""
    digits = prefix.replace("-", "")
    low, high = uuid.UUID(digits.ljust(32, "0")), uuid.UUID(digits.ljust(32, "f"))
    candidates = InboxItem.objects.filter(company_id=company_id, pk__gte=low, pk__lte=high).order_by("id")
    matches = list(candidates[: MAX_NAMED_MATCHES + 1])
    if len(matches) <= 1:
        return matches[0] if matches else None
    named = distinct_prefixes([match.pk for match in matches[:MAX_NAMED_MATCHES]], len(digits))
    if len(matches) > MAX_NAMED_MATCHES:
        named.append("…")
    message = _("%(prefix)s starts the id of several items of this company: %(ids)s. Type more of the id.")
    raise AnswerInvalid({"replaced_by": [message % {"prefix": prefix, "ids": ", ".join(named)}]})


def distinct_prefixes(ids: list[uuid.UUID], typed: int) -> list[str]:
    """The ids' hex digits, each cut to the shortest length past ``typed`` at which they all differ."""
    hexes = [item_id.hex for item_id in ids]
    for length in range(max(typed + 1, 8), 33):
        if len({h[:length] for h in hexes}) == len(hexes):
            return [h[:length] for h in hexes]
    return hexes


@dataclass(frozen=True, slots=True)
class Holder:
    """The item that already holds an uploaded file: what the bookkeeper is shown to recognise it."""

    item_id: uuid.UUID
    received_at: dt.datetime
    supplier: str | None
    # Why it cannot be named as the replacing item; None: it can, in one step.
    problem: str | None
    is_this_item: bool


class DuplicateFile(AnswerInvalid):
    """The uploaded file is already a current document of the company, held by ``holder``: nothing is stored."""

    def __init__(self, holder: Holder) -> None:
        if holder.is_this_item:
            message = _("This is the very file this item already holds (item %(id)s); upload the sharper one.")
        else:
            message = _(
                "This file is already in the bookkeeping as item %(id)s, so it was not stored again. "
                "If that item is the sharper receipt, settle this question with “replaced by” that item."
            )
        super().__init__({"file": [message % {"id": holder.item_id}]})
        self.holder = holder


def _current_document(company_id: uuid.UUID, sha256: str) -> DocumentAttachment | None:
    """accounted's ``dedupeByContent``: the company's oldest current document with these bytes."""
    return (
        DocumentAttachment.objects.filter(company_id=company_id, sha256_hash=sha256, is_current_version=True)
        .order_by("created_at", "id")
        .first()
    )


def _holder(old: InboxItem, document: DocumentAttachment) -> Holder | None:
    """The oldest item of the company filed for ``document`` (the one accounted adopts), or None."""
    item = (
        InboxItem.objects.filter(company_id=old.company_id, document_id=document.pk)
        .order_by("created_at", "id")
        .first()
    )
    if item is None:
        return None
    return Holder(
        item_id=item.pk,
        received_at=item.created_at,
        supplier=item.supplier_name,
        problem=replacement_problem(old, item),
        is_this_item=item.pk == old.pk,
    )


@dataclass(frozen=True, slots=True)
class Staged:
    """What an upload wrote: the document (new, or the existing one), its new item, its ``DocumentIngested``.

    ``skipped`` is the new item's ``DocumentExtractionAttempted`` (skipped: accounted has not read it).
    """

    document: DocumentAttachment
    item: InboxItem
    ingested: ProcessingHistory
    skipped: ProcessingHistory | None = None


def store_upload(
    old: InboxItem,
    checked: CheckedFile,
    *,
    uploaded_by: uuid.UUID | None,
    actor: dict[str, str],
    now: dt.datetime,
    stored: list[tuple[Any, str]],
) -> Staged:
    """Stage the file as accounted's upload does (see the module doc); ``stored`` learns the file's key.

    Raises ``DuplicateFile`` (nothing written) when an item already holds these bytes.
    """
    upload = checked.upload
    sha256 = sha256_of(upload)
    document = _current_document(old.company_id, sha256)
    if document is not None:
        holder = _holder(old, document)
        if holder is not None:
            raise DuplicateFile(holder)
    else:
        name = original_file_name(upload.name)
        storage = storages[DOCUMENTS_STORAGE]
        saved = storage.save(storage_key(old.company_id, old.user_id, name, now), File(upload))
        stored.append((storage, saved))
        document = DocumentAttachment.objects.create(
            user_id=old.user_id,
            company_id=old.company_id,
            storage_path=saved,
            file_name=name,
            file_size_bytes=upload.size,
            mime_type=checked.mime_type,
            sha256_hash=sha256,
            version=1,
            is_current_version=True,
            uploaded_by=uploaded_by,
            upload_source="file_upload",
        )
    correlation_id = uuid.uuid4()
    ingested = ProcessingHistory.append(
        company_id=old.company_id,
        correlation_id=correlation_id,
        aggregate_type="Document",
        aggregate_id=document.pk,
        event_type=INGESTED,
        payload={
            "channel": UPLOAD_SOURCE,
            "document_id": str(document.pk),
            "mime_type": checked.mime_type,
            "size_bytes": upload.size,
        },
        actor=actor,
        occurred_at=now,
    )
    new_item = InboxItem.objects.create(
        user_id=old.user_id,
        company_id=old.company_id,
        source=UPLOAD_SOURCE,
        document=document,
        correlation_id=correlation_id,
        channel_context=None,
        **unread.unread_item_fields(),
    )
    unread.mirror_skip(document, now)
    skipped = unread.append_skipped_event(
        new_item, document, actor=actor, occurred_at=now, page_count=unread.page_count_of(checked)
    )
    new_item.refresh_from_db()
    return Staged(document, new_item, ingested, skipped)


# --- A replacing item that differs sharply: asked to confirm -------------------------------
#
# A resend is the same receipt again, sharper: the replacing item should be
# read as the same supplier, amount, currency and date. When what accounted
# read from the two differs sharply, the bookkeeper most likely named the
# wrong item, and the old item would be marked superseded for good; so the
# answer is refused until confirmed, naming the differences. "Sharply"
# (docs/screens.md says the same):
#
# - supplier: the names, normalised (case, accents kept, punctuation and
#   spaces dropped, legal forms such as "AB" dropped), are unequal and
#   neither contains the other ("Restaurang Prinsen" and "Prinsen AB" agree);
# - amount (``totals.total``): apart by more than AMOUNT_TOLERANCE and by more
#   than AMOUNT_SHARE of the larger (a sharper photo fixes a misread digit,
#   not a whole amount);
# - currency (``invoice.currency``): different;
# - date (``invoice.invoiceDate``): more than DATE_TOLERANCE apart.
#
# A value missing on either side (a newer item accounted has not read yet)
# is not compared: there is nothing to contradict.

AMOUNT_TOLERANCE: Final = 1.0
AMOUNT_SHARE: Final = 0.10
DATE_TOLERANCE: Final = dt.timedelta(days=7)
MAX_SHOWN_NAME: Final = 120
SUPPLIER: Final = "supplier"
AMOUNT: Final = "amount"
CURRENCY: Final = "currency"
DATE: Final = "date"
# Words of a company's legal form, not of its name.
_LEGAL_FORMS: Final = frozenset(
    {"ab", "publ", "aktiebolag", "hb", "handelsbolag", "kb", "kommanditbolag", "ltd", "inc", "gmbh", "oy", "aps"}
)
_WORD = re.compile(r"[^\W_]+")


@dataclass(frozen=True, slots=True)
class Difference:
    """One sharp difference: ``field`` (supplier, amount, currency, date), as read on this item and the newer one."""

    field: str
    this_item: str
    replacing_item: str

    def to_json(self) -> dict[str, str]:
        return {"field": self.field, "this_item": self.this_item, "replacing_item": self.replacing_item}

    @property
    def label(self) -> str:
        labels = {SUPPLIER: _("Supplier"), AMOUNT: _("Amount"), CURRENCY: _("Currency"), DATE: _("Receipt date")}
        return str(labels.get(self.field, self.field))


def supplier_key(name: str) -> str:
    """``name`` compared: lower case, words only, legal forms dropped (``"Prinsen AB"`` → ``"prinsen"``)."""
    words = _WORD.findall(unicodedata.normalize("NFKC", name).casefold())
    kept = [word for word in words if word not in _LEGAL_FORMS]
    return "".join(kept or words)


def _shown(name: str) -> str:
    """A supplier's name as the differences name it: cut at MAX_SHOWN_NAME (a read name may be any length)."""
    name = name.strip()
    return name if len(name) <= MAX_SHOWN_NAME else name[: MAX_SHOWN_NAME - 1] + "…"


def _amount(item: InboxItem) -> float | None:
    value = item.total
    return float(value) if value is not None and math.isfinite(value) else None


def _currency(item: InboxItem) -> str | None:
    # Not ``item.currency``: it reads a missing currency as SEK, which would contradict a known one.
    value = item.extracted("invoice", "currency")
    return value.strip().upper() if isinstance(value, str) and value.strip() else None


def _date(item: InboxItem) -> dt.date | None:
    try:
        return dt.date.fromisoformat(str(item.invoice_date or "")[:10])
    except ValueError:
        return None


def sharp_differences(old: InboxItem, new: InboxItem) -> list[Difference]:
    """How ``new`` differs sharply from ``old`` as accounted read them (see above); [] when alike or unread."""
    found: list[Difference] = []
    old_name, new_name = old.supplier_name, new.supplier_name
    if old_name and new_name:
        a, b = supplier_key(old_name), supplier_key(new_name)
        if a and b and a not in b and b not in a:
            found.append(Difference(SUPPLIER, _shown(old_name), _shown(new_name)))
    old_amount, new_amount = _amount(old), _amount(new)
    if old_amount is not None and new_amount is not None:
        apart = abs(old_amount - new_amount)
        if apart > AMOUNT_TOLERANCE and apart > AMOUNT_SHARE * max(abs(old_amount), abs(new_amount)):
            found.append(Difference(AMOUNT, f"{old_amount:.2f}", f"{new_amount:.2f}"))
    old_currency, new_currency = _currency(old), _currency(new)
    if old_currency and new_currency and old_currency != new_currency:
        found.append(Difference(CURRENCY, old_currency, new_currency))
    old_date, new_date = _date(old), _date(new)
    if old_date and new_date and abs(old_date - new_date) > DATE_TOLERANCE:
        found.append(Difference(DATE, old_date.isoformat(), new_date.isoformat()))
    return found


class ReplacementUnconfirmed(AnswerInvalid):
    """The replacing item differs sharply from the old one (``differences``), unconfirmed: nothing is written."""

    def __init__(self, new: InboxItem, differences: list[Difference]) -> None:
        named = "; ".join(
            _("%(what)s: %(old)s here, %(new)s there")
            % {"what": difference.label, "old": difference.this_item, "new": difference.replacing_item}
            for difference in differences
        )
        message = _(
            "Item %(id)s differs sharply from this one (%(differences)s). "
            "Confirm that it is the same receipt to settle the question with it."
        ) % {"id": new.pk, "differences": named}
        super().__init__({"confirm": [message]})
        self.new = new
        self.differences = differences
        self.message = message
