"""Writing an answer: a compare-and-set under the row lock.

This is the only place the app writes ``channel_context``, a column the chat
intake writes too. The page and the JSON API both call ``answer_question``,
which validates the answer and then writes it as a compare-and-set: the row
is locked, ``channel_context`` is re-read under the lock, and the answer is
written only if the very question it answers is still ``moved_to_app``.
Every other key of the locked row's JSON is carried over as it is, so a
writer that changed another key a moment earlier keeps its change.
"""

from __future__ import annotations

import datetime as dt
import uuid
from dataclasses import dataclass
from typing import Any

from django.contrib.auth.models import User
from django.core.exceptions import PermissionDenied
from django.core.files.base import File
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from reviewapp import roles
from reviewapp.answers.channel_context import answer_json, answered_context, conflict_reason, utc_stamp
from reviewapp.answers.inputs import Answer, ResendAnswer
from reviewapp.answers.validation import CheckedFile, check_file, validate
from reviewapp.bookkeeping.models import InboxItem
from reviewapp.models import ClarificationEvent


class AnswerConflict(Exception):
    """The question is no longer the one being answered; nothing was written.

    ``reason`` is ``not_open`` (answered, or no question at all),
    ``in_chat`` (still open in the chat) or ``other_question`` (a different
    question is the open one). ``item`` is the row as it is now.
    """

    def __init__(self, item: InboxItem, reason: str) -> None:
        super().__init__(reason)
        self.item = item
        self.reason = reason

    @property
    def message(self) -> str:
        if self.reason == "in_chat":
            return _("This question is still open in the chat; answering it here would race the chat.")
        if self.reason == "other_question":
            return _("Another question is open on this item now; your answer was not saved.")
        return _("Someone else answered this question first; your answer was not saved.")


@dataclass(frozen=True, slots=True)
class AnswerResult:
    item: InboxItem
    event: ClarificationEvent
    new_item: InboxItem | None = None


def answer_question(
    *, item_id: uuid.UUID | str, user: User, answer: Answer, now: dt.datetime | None = None
) -> AnswerResult:
    """Validate ``answer`` and write it if its question is still ``moved_to_app``.

    Raises ``PermissionDenied``, ``InboxItem.DoesNotExist``, ``AnswerInvalid``
    (nothing written) or ``AnswerConflict`` (nothing written). The check and
    the write happen in one transaction holding the row lock.
    """
    if not user.has_perm(roles.ANSWER):
        raise PermissionDenied
    cleaned = validate(answer)
    stored: list[tuple[Any, str]] = []
    try:
        with transaction.atomic():
            return _write(item_id, user, cleaned, now or timezone.now(), stored)
    except BaseException:
        # A rolled-back upload must not leave its file behind in storage.
        for storage, name in stored:
            storage.delete(name)
        raise


def _write(
    item_id: uuid.UUID | str,
    user: User,
    answer: Answer,
    now: dt.datetime,
    stored: list[tuple[Any, str]],
) -> AnswerResult:
    answered_at = utc_stamp(now)
    # The lock makes a concurrent answer wait here, then read what was
    # committed before it: the check below sees the latest row.
    item = InboxItem.objects.select_for_update().get(pk=item_id)
    before = item.channel_context
    reason = conflict_reason(before, answer.question)
    if reason is not None:
        raise AnswerConflict(item, reason)
    assert isinstance(before, dict)  # conflict_reason found a pending question in it

    new_item = None
    if isinstance(answer, ResendAnswer) and answer.upload is not None:
        new_item = _create_resent_item(item, check_file(answer.upload), now=now, stored=stored)
    after = answered_context(
        before, answer, answered_at=answered_at, new_item_id=str(new_item.id) if new_item else None
    )
    item.channel_context = after
    item.updated_at = now
    item.save(update_fields=["channel_context", "updated_at"])

    payload: dict[str, Any] = {"before": before, "after": after, "answer": answer_json(answer)}
    if isinstance(answer, ResendAnswer):
        payload["choice"] = answer.choice
        if new_item is not None:
            payload["new_item_id"] = str(new_item.id)
    event = ClarificationEvent.objects.create(
        item=item,
        event_type=ClarificationEvent.ANSWERED,
        question_type=answer.question,
        actor=user,
        actor_label=user.get_username(),
        channel=ClarificationEvent.Channel.APP,
        payload=payload,
        occurred_at=now,
    )
    return AnswerResult(item=item, event=event, new_item=new_item)


def _create_resent_item(
    old: InboxItem, checked: CheckedFile, *, now: dt.datetime, stored: list[tuple[Any, str]]
) -> InboxItem:
    """A new item for the same company holding the sharper document."""
    old_ctx = old.channel_context if isinstance(old.channel_context, dict) else {}
    channel = old_ctx.get("channel")
    new_item = InboxItem(
        company_id=old.company_id,
        source="app",
        status="pending",
        channel_context={
            "channel": channel if isinstance(channel, str) and channel else "whatsapp",
            "supersedes": str(old.id),
        },
        created_at=now,
        updated_at=now,
    )
    # The stored name is ours: the client's file name is nothing to trust.
    new_item.document_file.save(f"{new_item.id}.{checked.extension}", File(checked.upload), save=False)
    stored.append((new_item.document_file.storage, new_item.document_file.name or ""))
    new_item.save()
    return new_item
