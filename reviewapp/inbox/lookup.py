"""An exact id typed into the list's search, resolved to the one item it names.

Support is handed ids, not words: the item id from a link, the document id
from accounted's screens, a correlation id from a log line, the WhatsApp
message id, or WhatsApp's own ``wamid`` from the customer's phone. Each
finds the item straight away:

- a full UUID is compared with the list's read model (``IndexedItem``:
  ``id``, ``document_id``, ``correlation_id``, ``whatsapp_message_id``, all
  indexed), so it costs one index lookup per column;
- a ``wamid.…`` string is looked up in accounted's ``whatsapp_messages``
  (inbound messages: the photo and the replies, which is what a customer
  can quote) and gives that message's ``inbox_item_id``.

The short id the list shows (the first 8 hex digits of the item id, or
more, dashes allowed) opens the item too, when it names one item and no
other item's words match it (``item_for_short_id``); the list searches for
it otherwise.

An id that names more than one item (two items sharing a document) or none
answers None, and the list simply searches for the text.

``company_ids`` (``reviewapp.core.access.company_ids(user)``; None for every
company) limits the search to the companies a user may see before the
"exactly one" rule: an item of another company is not found, and it cannot
make an id ambiguous either, so the answer is the same as if it did not exist.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Collection, Iterable
from typing import Final

from django.db.models import Q

from reviewapp.bookkeeping.models import InboxItem, WhatsappMessage
from reviewapp.models import IndexedItem

WAMID_PREFIX: Final = "wamid."

# The start of an item id as the list shows it (8 hex digits) or longer, dashes allowed.
SHORT_ID: Final = re.compile(r"[0-9a-f-]{8,36}")
MIN_SHORT_ID_DIGITS: Final = 8

# A wamid is base64 of a few dozen bytes; nothing longer is one.
MAX_WAMID_LENGTH: Final = 200


def _only(ids: Iterable[uuid.UUID | None]) -> uuid.UUID | None:
    found = {value for value in ids if value is not None}
    return found.pop() if len(found) == 1 else None


def item_for_wamid(wamid: str, *, company_ids: Collection[uuid.UUID] | None = None) -> uuid.UUID | None:
    """The item an inbound WhatsApp message (by its ``wamid``) is about, or None.

    Only inbound messages: accounted's unique index on ``wamid`` covers
    those alone, so an outbound wamid could only be found by reading the
    whole table. The message's item is checked in accounted's table, which
    ``sync_index`` may not have copied to the read model yet.
    """
    rows = WhatsappMessage.objects.filter(direction="inbound", wamid=wamid, inbox_item_id__isnull=False)
    found = _only(rows.values_list("inbox_item_id", flat=True)[:2])
    if found is None or company_ids is None:
        return found
    return found if InboxItem.objects.filter(pk=found, company_id__in=list(company_ids)).exists() else None


def item_for_uuid(value: uuid.UUID, *, company_ids: Collection[uuid.UUID] | None = None) -> uuid.UUID | None:
    """The one indexed item (of ``company_ids``) whose id, document, correlation or WhatsApp message id is ``value``."""
    matches = IndexedItem.objects.for_companies(company_ids).filter(
        Q(pk=value) | Q(document_id=value) | Q(correlation_id=value) | Q(whatsapp_message_id=value)
    )
    return _only(matches.values_list("pk", flat=True)[:2])


def item_for_short_id(text: str, *, company_ids: Collection[uuid.UUID] | None = None) -> uuid.UUID | None:
    """The one indexed item (of ``company_ids``) whose id starts with ``text`` (``"3f2504e0"``), or None.

    None as well when another item's words hold ``text`` (an invoice number
    "20240815" is also 8 hex digits): the list then shows them all.
    """
    value = text.strip().lower()
    digits = value.replace("-", "")
    if not SHORT_ID.fullmatch(value) or not MIN_SHORT_ID_DIGITS <= len(digits) < 32:
        return None
    found = _only(IndexedItem.objects.for_companies(company_ids).search(value).values_list("pk", flat=True)[:2])
    return found if found is not None and found.hex.startswith(digits) else None


def item_for_exact_id(text: str, *, company_ids: Collection[uuid.UUID] | None = None) -> uuid.UUID | None:
    """The item ``text`` names exactly (see the module), or None; only items of ``company_ids`` when given.

    ``" 3F2504E0-4F89-11D3-9A0C-0305E82C3301 "`` is a UUID (any case, spaces
    around ignored); ``"3f2504e0"`` is not, and neither is ``"wamid."`` alone.
    """
    value = text.strip()
    if value.startswith(WAMID_PREFIX):
        if len(value) == len(WAMID_PREFIX) or len(value) > MAX_WAMID_LENGTH or any(c.isspace() for c in value):
            return None
        return item_for_wamid(value, company_ids=company_ids)
    if len(value) != 36 or value.count("-") != 4:
        return None  # only the canonical 8-4-4-4-12 form is an id someone copied
    try:
        key = uuid.UUID(value)
    except ValueError:
        return None
    return item_for_uuid(key, company_ids=company_ids)
