"""Writing an answer: one transaction on accounted's database, as the intake would write it.

The page and the JSON API both call ``answer_question``. In one transaction
on the ``bookkeeping`` database it:

1. locks the item row and re-reads it, then refuses (``AnswerConflict``)
   unless the very question answered is ``moved_to_app`` (or, for an
   amendment, is answered and still holds the app's answer, unchanged since
   the form was loaded), and refuses every booked item; an item of a company
   the user may not see is missing (``InboxItem.DoesNotExist``);
2. writes ``channel_context`` in the intake's shapes, every other key
   carried over as the locked row holds it (``update_fields``: the trigger
   sets ``updated_at``);
3. marks the question answered in the WhatsApp conversation (compare-and-set);
4. appends ``ChannelQuestionAnswered`` to ``processing_history``;
5. for a resend: supersedes the old item, creating the new item and its
   document for an upload (a stored file is deleted again on rollback).

After the commit it logs the before and after in the review database
(``ClarificationEvent``) and re-indexes the items for the list.

The ``processing_history`` event is the intake's own (``channel``,
``inbox_item_id``, ``question_type``), plus ``"amended": true`` for a
correction. Its actor is pseudonymous, never a name: ``processing_history``
is append-only and outside accounted's erasure path, and accounted's
``lib/processing-history/append.ts`` says "never names, emails". A review
user linked to their own accounted user (``AccountLink``) is ``{"type":
"user", "id": "<that auth.users id>"}``, as accounted names its own users;
anyone else is the app, ``{"type": "system", "id": "review-app"}``. Which
review user wrote the event stays in the app's log (``ClarificationEvent``
with the event's id), where the item's history reads their name.
"""

from __future__ import annotations

import datetime as dt
import logging
import uuid
from dataclasses import dataclass, field
from typing import Any, Final

from django.contrib.auth.models import User
from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from reviewapp import readmodel
from reviewapp.answers import conversation, resend
from reviewapp.answers.channel_context import (
    Written,
    answer_value,
    answer_version,
    conflict_reason,
    to_millis,
    written_answer,
)
from reviewapp.answers.inputs import (
    UPLOAD,
    Answer,
    ContextAnswer,
    RepresentationAnswer,
    ResendAnswer,
    TypedAnswer,
)
from reviewapp.answers.log import app_answer_in_place, app_answers
from reviewapp.answers.uploads import check_file
from reviewapp.answers.validation import AnswerInvalid, validate
from reviewapp.bookkeeping.models import DocumentAttachment, InboxItem, ProcessingHistory
from reviewapp.bookkeeping.routers import BOOKKEEPING_DB
from reviewapp.core import roles
from reviewapp.models import ClarificationEvent, accounted_user_id

log = logging.getLogger(__name__)

ANSWERED: Final = "ChannelQuestionAnswered"
# The app itself, for a review user not linked to an accounted user.
APP_ACTOR: Final = {"type": "system", "id": "review-app"}


class AnswerConflict(Exception):
    """The question is not in a state this answer may be written in; nothing was written.

    ``reason``: ``booked``; ``in_chat`` (still open in the chat), ``not_open``
    (answered, or no question at all), ``other_question``; for an amendment
    ``not_answered``, ``changed`` (the answer changed since the form was
    loaded) or ``answered_in_chat`` (not the app's answer: never amended
    here); ``busy`` (the conversation kept changing). ``item`` is the row as
    it is now.
    """

    def __init__(self, item: InboxItem, reason: str) -> None:
        super().__init__(reason)
        self.item = item
        self.reason = reason

    @property
    def message(self) -> str:
        messages = {
            "booked": _("This item is booked: an answer given now cannot reach the verifikat, so none is saved."),
            "in_chat": _("This question is still open in the chat; answering it here would race the chat."),
            "other_question": _("Another question is open on this item now; your answer was not saved."),
            "not_answered": _("There is no answer to correct on this question; your correction was not saved."),
            "changed": _("The answer changed since you opened the form; your correction was not saved."),
            "answered_in_chat": _("This answer was given in the chat; it is never corrected in the app."),
            "busy": _("The WhatsApp conversation kept changing; nothing was saved. Try again."),
        }
        return str(
            messages.get(self.reason, _("Someone else answered this question first; your answer was not saved."))
        )


@dataclass(slots=True)
class AnswerResult:
    """What one answer wrote: the item as it is now, the context before and after, every row added."""

    item: InboxItem
    before: Any
    # The JSON side of the write: the context after it, and what the app's log keeps of the answer.
    written: Written
    history: ProcessingHistory
    conversations: list[conversation.ConversationChange]
    new_item: InboxItem | None = None
    document: DocumentAttachment | None = None
    replaced_by: InboxItem | None = None
    # The upload's DocumentIngested in accounted's log.
    ingested: ProcessingHistory | None = None
    # The upload's DocumentExtractionAttempted (skipped: accounted has not read it; answers.unread).
    skipped: ProcessingHistory | None = None
    # The app's own log entry, written once the transaction is committed.
    event: ClarificationEvent = field(init=False)


def answer_question(
    *, item_id: uuid.UUID | str, user: User, answer: Answer, now: dt.datetime | None = None
) -> AnswerResult:
    """Validate ``answer`` and write it, with its conversation and audit event, in one transaction.

    Raises ``PermissionDenied``, ``InboxItem.DoesNotExist`` (no such item, or
    one of a company ``user`` may not see), ``AnswerInvalid`` or
    ``AnswerConflict``; nothing is written then.
    """
    if not user.has_perm(roles.ANSWER):
        raise PermissionDenied
    cleaned = validate(answer)
    moment = to_millis(now or timezone.now())
    stored: list[tuple[Any, str]] = []
    linked = accounted_user_id(user)
    try:
        with transaction.atomic(using=BOOKKEEPING_DB):
            result = _write(item_id, user, cleaned, moment, stored, linked)
    except BaseException:
        # A rolled-back upload must not leave its file behind in the bucket.
        for storage, name in stored:
            try:
                storage.delete(name)
            except Exception:
                log.exception("could not delete %s after a rolled-back answer", name)
        raise
    result.event = ClarificationEvent.objects.create(
        item_id=result.item.pk,
        event_type=ClarificationEvent.ANSWERED,
        question_type=cleaned.question,
        actor=user,
        actor_label=user.get_username(),
        channel=ClarificationEvent.Channel.APP,
        payload=_log_payload(cleaned, result),
        occurred_at=moment,
    )
    try:
        readmodel.index_items([result.item.pk, *([result.new_item.pk] if result.new_item else [])])
    except Exception:
        # The answer is committed; sync_index's next poll indexes it anyway.
        log.exception("could not index item %s after an answer", result.item.pk)
    return result


def _write(
    item_id: uuid.UUID | str,
    user: User,
    answer: Answer,
    now: dt.datetime,
    stored: list[tuple[Any, str]],
    linked: uuid.UUID | None,
) -> AnswerResult:
    # The lock makes a concurrent answer wait here, then read what was
    # committed before it: the checks below see the latest row.
    # Scoped here too, not only by the views: another company's item is as missing as no item.
    item = InboxItem.objects.visible_to(user).select_for_update().get(pk=item_id)
    before = item.channel_context
    reason = conflict_reason(before, answer.question, booked=item.is_booked, amend=answer.amend)
    if reason is None and isinstance(answer, TypedAnswer) and answer.amend:
        reason = _amend_conflict(item, answer)
    if reason is not None:
        raise AnswerConflict(item, reason)
    assert isinstance(before, dict)  # conflict_reason found a pending question in it

    new_item = document = replaced_by = ingested = skipped = None
    if isinstance(answer, ResendAnswer):
        if answer.choice == UPLOAD:
            assert answer.upload is not None
            upload = check_file(answer.upload)
            staged = resend.store_upload(
                item, upload, uploaded_by=linked, actor=actor_for(linked), now=now, stored=stored
            )
            document, new_item, ingested, skipped = staged.document, staged.item, staged.ingested, staged.skipped
        elif answer.replaced_by:
            replaced_by = resend.replacement(item, answer.replaced_by, user, confirmed=answer.confirmed)
    written = written_answer(before, answer, at=now)
    after = written.after
    if (
        isinstance(answer, TypedAnswer)
        and answer.amend
        and not answer.raw_answer
        and _structured(answer_value(after, answer.question)) == _structured(answer_value(before, answer.question))
    ):
        # A representation's raw_answer always grows by the new text, so only
        # the fields and new customer's words tell a correction from a resave.
        raise AnswerInvalid({"amend": [_("This is the answer already saved: change something to correct it.")]})
    item.channel_context = after
    item.save(update_fields=["channel_context"])

    try:
        changes = conversation.settle_in_conversations(item.pk)
    except conversation.ConversationBusy:
        raise AnswerConflict(item, "busy") from None
    event = append_question_event(
        item,
        event_type=ANSWERED,
        question=answer.question,
        actor=actor_for(linked),
        occurred_at=now,
        amended=answer.amend,
    )
    item.refresh_from_db()
    return AnswerResult(item, before, written, event, changes, new_item, document, replaced_by, ingested, skipped)


def _structured(value: Any) -> Any:
    """An answer's value without ``answered_at`` and ``raw_answer`` (at any depth): what a correction replaces."""
    if isinstance(value, dict):
        return {key: _structured(item) for key, item in value.items() if key not in ("answered_at", "raw_answer")}
    return value


def _amend_conflict(item: InboxItem, answer: RepresentationAnswer | ContextAnswer) -> str | None:
    """Why this amendment may not be written: ``changed`` first, then ``answered_in_chat``."""
    live = answer_value(item.channel_context, answer.question)
    if answer_version(live) != answer.expected_version:
        return "changed"
    if app_answer_in_place(item.channel_context, answer.question, app_answers(item.pk)) is None:
        return "answered_in_chat"
    return None


def _log_payload(answer: Answer, result: AnswerResult) -> dict[str, Any]:
    written = result.written
    payload: dict[str, Any] = {
        "before": result.before,
        "after": written.after,
        "answer": written.entered,
        "amended": answer.amend,
        "history_event_id": str(result.history.pk),
        "conversations": [change.to_json() for change in result.conversations],
    }
    if isinstance(answer, RepresentationAnswer | ContextAnswer):
        # What this answer added to raw_answer, and whether it is a person's
        # words (and where they came from) or the firm's attributed text: the
        # screens label each piece of raw_answer by it (evidence.raw_answer_parts).
        # The source stays here, never in accounted's row.
        # A context answer without the customer's words writes no raw_answer at all (None).
        source = "customer" if answer.raw_answer else "rendered" if written.raw_answer_added else None
        payload["raw_answer_source"] = source
        payload["raw_answer_via"] = answer.raw_answer_via or None
        payload["raw_answer_added"] = written.raw_answer_added
    if isinstance(answer, ResendAnswer):
        new = result.new_item or result.replaced_by
        payload["resend"] = {
            "choice": answer.choice,
            "new_item_id": str(new.pk) if new else None,
            "document_id": str(result.document.pk) if result.document else None,
        }
        if result.ingested is not None:
            # The new item's history names the writer of its DocumentIngested from here.
            payload["resend"]["ingested_event_id"] = str(result.ingested.pk)
        if result.skipped is not None:
            payload["resend"]["extraction_event_id"] = str(result.skipped.pk)
    return payload


# --- accounted's audit log --------------------------------------------------------


def actor_for(linked: uuid.UUID | None) -> dict[str, str]:
    """The actor of an event written for a review user linked to ``linked`` (None: not linked). No label, ever."""
    return {"type": "user", "id": str(linked)} if linked is not None else dict(APP_ACTOR)


def append_question_event(
    item: InboxItem,
    *,
    event_type: str,
    question: str,
    actor: dict[str, str],
    occurred_at: dt.datetime,
    amended: bool = False,
) -> ProcessingHistory:
    """One question event for ``item``, as accounted appends it (``aggregate_type`` 'System')."""
    payload: dict[str, Any] = {"channel": "whatsapp", "inbox_item_id": str(item.pk), "question_type": question}
    if amended:
        payload["amended"] = True
    return ProcessingHistory.append(
        company_id=item.company_id,
        correlation_id=item.correlation_id or item.pk,
        aggregate_type="System",
        aggregate_id=item.pk,
        event_type=event_type,
        payload=payload,
        actor=actor,
        occurred_at=occurred_at,
    )
