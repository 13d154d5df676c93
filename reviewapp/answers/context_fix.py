"""Taking the app's own text out of ``context_answer.raw_answer`` in rows written under the old rule.

Until context answers stopped carrying it, a context answer entered by the
firm without the customer's words wrote ``evidence.ENTERED_BY_FIRM``
("Inmatat av byrån i granskningsappen …: Taxi") into
``context_answer.raw_answer``, and a correction appended another one. The
agent reads that field as "användarens egna ord" (the user's own words), so
those rows tell it the firm's text is the customer's.

``fixed_context`` works out, from the live ``channel_context`` and the app's
own log, what the row holds once that text is out:

- the pieces of ``raw_answer`` the app's log says are the firm's text go;
  every other piece (the chat's, or the customer's words given to the
  firm) stays, verbatim, in its order: nothing the customer said is touched;
- with no customer's words left, ``context_answer`` is left out (a shape
  accounted's type allows: ``context_answer?``);
- ``user_note`` holds the current answer already (every app answer wrote it),
  so the firm's text is dropped; only when ``user_note`` is empty does the
  latest firm answer's text move there, where the agent reads the firm's answer.

A row whose ``raw_answer`` holds firm text the log cannot place (no app
answer wrote it as it is) is not changed: it is listed for a person to look at.
``apply_fix`` writes one row under the answer write's discipline (one
transaction, the item locked with ``SELECT … FOR UPDATE``, re-read and
re-worked under the lock), logging the whole row before and after in the
app's log before it writes. Nothing here prints.
"""

from __future__ import annotations

import copy
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

from django.db import transaction
from django.utils import timezone

from reviewapp.answers import evidence
from reviewapp.answers.inputs import CONTEXT
from reviewapp.answers.log import app_answers
from reviewapp.bookkeeping.models import InboxItem
from reviewapp.bookkeeping.routers import BOOKKEEPING_DB
from reviewapp.models import ClarificationEvent

#: Who the app's log names as having made the change (no review user did).
ACTOR_LABEL: Final = "fix_context_answers"
#: Why, in the log and on the item's history of corrections.
REASON: Final = "the firm's text moved out of the customer's own words (context_answer.raw_answer)"


@dataclass(frozen=True, slots=True)
class ContextFix:
    """What the fix would do to one row: the context before and after, and the firm's texts it takes out.

    ``unplaced``: the row holds firm text the app's log cannot place; ``after``
    is then the row unchanged, and nothing is written.
    """

    item_id: uuid.UUID
    before: dict[str, Any]
    after: dict[str, Any]
    removed: tuple[str, ...]
    kept: tuple[evidence.RawPart, ...]
    unplaced: bool = False

    @property
    def changes(self) -> bool:
        return not self.unplaced and self.after != self.before

    def to_json(self) -> dict[str, Any]:
        return {
            "before": self.before,
            "after": self.after,
            "removed": list(self.removed),
            "kept": [part.to_json() for part in self.kept],
            "reason": REASON,
        }


def _firm_answer(text: str) -> str:
    """The answer part of one ``ENTERED_BY_FIRM`` text (what followed its stamp)."""
    match = evidence.FIRM_LINE.match(text)
    return text[match.end() :] if match else text


def fixed_context(item_id: uuid.UUID, ctx: object, log: Sequence[ClarificationEvent]) -> ContextFix | None:
    """What the row of ``item_id`` holds without the firm's text in ``context_answer``; None when it holds none."""
    if not isinstance(ctx, dict):
        return None
    raw = evidence.stored_raw_answer(ctx, CONTEXT)
    if raw is None or not evidence.holds_firm_text(raw):
        return None
    parts = evidence.raw_answer_parts(raw, CONTEXT, log)
    firm = [part.text for part in parts if part.source == evidence.REVIEW_APP]
    kept = tuple(part for part in parts if part.is_customer_words)
    if not firm or any(evidence.holds_firm_text(part.text) for part in kept):
        # Firm text the log cannot tell from the customer's: never guessed at.
        return ContextFix(item_id, ctx, ctx, (), kept, unplaced=True)
    after = copy.deepcopy(ctx)
    if kept:
        after["context_answer"] = {**after["context_answer"], "raw_answer": "\n".join(part.text for part in kept)}
    else:
        after.pop("context_answer", None)
    note = ctx.get("user_note")
    if not (isinstance(note, str) and note.strip()):
        after["user_note"] = _firm_answer(firm[-1])
    return ContextFix(item_id, ctx, after, tuple(firm), kept)


def candidate_ids() -> list[uuid.UUID]:
    """Items the app ever answered a context question on: only those can hold its text."""
    ids = (
        ClarificationEvent.objects.filter(
            event_type=ClarificationEvent.ANSWERED,
            channel=ClarificationEvent.Channel.APP,
            question_type=CONTEXT,
        )
        .order_by("item_id")
        .values_list("item_id", flat=True)
        .distinct()
    )
    return list(ids)


def planned_fix(item_id: uuid.UUID) -> ContextFix | None:
    """The fix of one item as its row is now (read without a lock: for the dry run's list)."""
    item = InboxItem.objects.filter(pk=item_id).only("id", "channel_context").first()
    if item is None:
        return None
    return fixed_context(item.pk, item.channel_context, app_answers(item.pk))


def apply_fix(item_id: uuid.UUID) -> ContextFix | None:
    """Fix one item's row, logged; the fix done (``changes`` False when nothing was written), or None.

    The row is locked and re-read first, as the answer write does, so an
    answer or an intake write that lands meanwhile is worked on, never
    written over. The app's log gets the whole row before and after first: if
    the write then fails, the log says what was meant and the row is as it
    was, and the next run finds it again.
    """
    with transaction.atomic(using=BOOKKEEPING_DB):
        item = InboxItem.objects.select_for_update().filter(pk=item_id).first()
        if item is None:
            return None
        fix = fixed_context(item.pk, item.channel_context, app_answers(item.pk))
        if fix is None or not fix.changes:
            return fix
        ClarificationEvent.objects.create(
            item_id=item.pk,
            event_type=ClarificationEvent.FIXED,
            question_type=CONTEXT,
            actor=None,
            actor_label=ACTOR_LABEL,
            channel=ClarificationEvent.Channel.APP,
            payload=fix.to_json(),
            occurred_at=timezone.now(),
        )
        item.channel_context = fix.after
        item.save(update_fields=["channel_context"])
    return fix
