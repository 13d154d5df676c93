"""Settling a resend question in the app: a newer item replaces the old one, or a sharper file is uploaded.

An upload is what accounted's own upload does: the file goes into the
``documents`` bucket (``storages["documents"]``, a local folder in
development, an S3-compatible bucket by settings) under
``documents/{company_id}/{user_id}/{epoch_ms}_{sanitised_name}``, a
``document_attachments`` row records it (sha256, size, type,
``upload_source`` 'file_upload') and a new ``invoice_inbox_items`` row
(status 'received', source 'upload', the old item's user and company) holds
it. Like a new photo in the chat, the new item carries no link to the old
one in accounted's data; the app keeps the link in its own log.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import re
import uuid
from pathlib import PurePath
from typing import Any, Final

from django.contrib.auth.models import AbstractBaseUser
from django.core.files.base import File
from django.core.files.storage import storages
from django.utils.translation import gettext as _

from reviewapp import access
from reviewapp.answers.uploads import CheckedFile
from reviewapp.answers.validation import AnswerInvalid
from reviewapp.bookkeeping.models import DocumentAttachment, InboxItem

DOCUMENTS_STORAGE: Final = "documents"
MAX_STORED_NAME: Final = 100
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def sanitised_name(name: str | None, extension: str) -> str:
    """A file name safe in a storage key: ``Kvitto åäö (2).PNG`` → ``Kvitto_(2).PNG`` style, never empty."""
    base = PurePath((name or "").replace("\\", "/")).name
    cleaned = _UNSAFE.sub("_", base).strip("._")[-MAX_STORED_NAME:]
    return cleaned or f"document.{extension}"


def storage_key(item: InboxItem, name: str, now: dt.datetime) -> str:
    epoch_ms = int(now.timestamp() * 1000)
    return f"documents/{item.company_id}/{item.user_id}/{epoch_ms}_{name}"


def sha256_of(upload: Any) -> str:
    digest = hashlib.sha256()
    upload.seek(0)
    for chunk in upload.chunks():
        digest.update(chunk)
    upload.seek(0)
    return digest.hexdigest()


def replacement(old: InboxItem, new_id: str, user: AbstractBaseUser) -> InboxItem:
    """The newer item of the same company that replaces ``old``, or ``AnswerInvalid``.

    An item of a company ``user`` may not see is no item at all: its id says nothing.
    """
    new = InboxItem.objects.filter(pk=new_id).first()
    if new is None or not access.can_see(user, new.company_id):
        raise AnswerInvalid({"replaced_by": [_("No item has this id.")]})
    if new.pk == old.pk:
        raise AnswerInvalid({"replaced_by": [_("An item cannot replace itself.")]})
    if new.company_id != old.company_id:
        raise AnswerInvalid({"replaced_by": [_("That item belongs to another company.")]})
    if new.created_at <= old.created_at:
        raise AnswerInvalid({"replaced_by": [_("That item is older than this one; only a newer item replaces it.")]})
    return new


def store_upload(
    old: InboxItem, checked: CheckedFile, *, now: dt.datetime, stored: list[tuple[Any, str]]
) -> tuple[DocumentAttachment, InboxItem]:
    """Save the file, its ``document_attachments`` row and a new item; ``stored`` learns the file's key."""
    upload = checked.upload
    name = sanitised_name(upload.name, checked.extension)
    sha256 = sha256_of(upload)
    storage = storages[DOCUMENTS_STORAGE]
    saved = storage.save(storage_key(old, name, now), File(upload))
    stored.append((storage, saved))
    document = DocumentAttachment.objects.create(
        user_id=old.user_id,
        company_id=old.company_id,
        storage_path=saved,
        file_name=name,
        file_size_bytes=upload.size,
        mime_type=checked.mime_type,
        sha256_hash=sha256,
        upload_source="file_upload",
    )
    new_item = InboxItem.objects.create(
        user_id=old.user_id,
        company_id=old.company_id,
        status="received",
        source="upload",
        document=document,
        correlation_id=uuid.uuid4(),
        extracted_data={},
        channel_context=None,
    )
    new_item.refresh_from_db()
    return document, new_item
