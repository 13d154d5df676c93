"""One answer for several items of one company: a context text, or "the document is readable".

The queue often holds a run of receipts from one customer that one answer
settles (five taxi rides to the same customer meeting; five photos the
customer says are readable). A bulk answer is nothing but that many single
answers: each item goes through ``writing.answer_question`` on its own, so
each has its own transaction, its compare-and-set, its
``ChannelQuestionAnswered`` event and its conversation mark, and one item's
conflict or refusal leaves the others' answers standing. The outcome is
reported per item, with the HTTP status a single answer would have had
(200, 400, 404, 409).

Only the answers that mean the same for every item are offered: a context
text, and a resend settled as readable. A representation names people at
one event, a replacing item replaces one item, a correction names one
answer's version: those stay single answers.

The items must be of one company, so one answer is never copied from one
client to another. An item the user may not see (another company's, or no
item at all) is a 404 in its own result and does not count as a company:
its id says nothing, as everywhere else (``reviewapp.core.access``).
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any, Final

from django.contrib.auth.models import User
from django.core.exceptions import PermissionDenied
from django.utils.translation import gettext as _

from reviewapp.answers.inputs import CONTEXT, READABLE, RESEND, Answer, ContextAnswer, ResendAnswer
from reviewapp.answers.validation import AnswerInvalid
from reviewapp.answers.writing import AnswerConflict, AnswerResult, answer_question
from reviewapp.bookkeeping.models import InboxItem
from reviewapp.core import roles

MAX_ITEMS: Final = 100
# The questions a bulk answer settles.
BULK_TYPES: Final = (CONTEXT, RESEND)


class MixedCompanies(Exception):
    """The items the user may see belong to more than one company: nothing was written."""

    def __init__(self, company_ids: set[uuid.UUID]) -> None:
        super().__init__(company_ids)
        self.company_ids = company_ids

    @property
    def message(self) -> str:
        return _(
            "These items belong to %(count)d companies. Answer the items of one company at a time: "
            "one answer is never copied from one client to another."
        ) % {"count": len(self.company_ids)}


@dataclass(slots=True)
class ItemOutcome:
    """What happened to one item of a bulk answer: a single answer's status, and why when it is not 200."""

    item_id: uuid.UUID
    status: int
    item: InboxItem | None = None
    message: str = ""
    reason: str | None = None
    errors: dict[str, list[str]] | None = None
    result: AnswerResult | None = None

    @property
    def saved(self) -> bool:
        return self.status == 200

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"id": str(self.item_id), "status": self.status}
        if self.result is not None:
            out["event_id"] = self.result.event.pk
            out["history_event_id"] = str(self.result.history.pk)
        else:
            out["error"] = self.message
        if self.reason is not None:
            out["reason"] = self.reason
        if self.errors is not None:
            out["errors"] = self.errors
        return out


def item_ids(values: object) -> list[uuid.UUID]:
    """The ids of a bulk answer (1 to ``MAX_ITEMS``, each once), or ``AnswerInvalid`` under ``items``."""
    if not isinstance(values, list) or not values:
        raise AnswerInvalid({"items": [_("Send the items as a list of item ids.")]})
    if len(values) > MAX_ITEMS:
        raise AnswerInvalid(
            {
                "items": [
                    _("At most %(max)d items at once (this has %(count)d).") % {"max": MAX_ITEMS, "count": len(values)}
                ]
            }
        )
    ids: list[uuid.UUID] = []
    for value in values:
        try:
            item_id = uuid.UUID(value) if isinstance(value, str) else None
        except ValueError:
            item_id = None
        if item_id is None:
            raise AnswerInvalid({"items": [_("Each item is named by its id (a UUID).")]})
        if item_id in ids:
            raise AnswerInvalid({"items": [_("Each item may be named once.")]})
        ids.append(item_id)
    return ids


def bulk_problem(answer: Answer) -> str | None:
    """Why ``answer`` cannot be given to several items at once, or None."""
    if isinstance(answer, ContextAnswer) and not answer.amend:
        return None
    if isinstance(answer, ResendAnswer) and answer.readable and answer.choice == READABLE:
        return None
    return _(
        "Only a context answer, or “the current document is readable” for a resend question, "
        "is given to several items at once."
    )


def visible_items(ids: list[uuid.UUID], user: User) -> dict[uuid.UUID, InboxItem]:
    """The items of ``ids`` that ``user`` may see, by id; ``MixedCompanies`` when they are of several companies."""
    found = InboxItem.objects.visible_to(user).filter(pk__in=ids).select_related("company")
    visible = {item.pk: item for item in found}
    companies = {item.company_id for item in visible.values()}
    if len(companies) > 1:
        raise MixedCompanies(companies)
    return visible


def answer_items(ids: list[uuid.UUID], user: User, answer: Answer) -> list[ItemOutcome]:
    """Give ``answer`` to each item, each as its own single answer; one outcome per id, in order.

    Raises ``PermissionDenied``, ``AnswerInvalid`` (an answer not given in
    bulk) or ``MixedCompanies`` before anything is written.
    """
    if not user.has_perm(roles.ANSWER):
        raise PermissionDenied
    problem = bulk_problem(answer)
    if problem is not None:
        raise AnswerInvalid({"question": [problem]})
    visible = visible_items(ids, user)
    outcomes: list[ItemOutcome] = []
    for item_id in ids:
        item = visible.get(item_id)
        if item is None:
            outcomes.append(ItemOutcome(item_id, 404, message=_("No such item.")))
            continue
        try:
            result = answer_question(item_id=item_id, user=user, answer=answer)
        except AnswerInvalid as invalid:
            outcomes.append(ItemOutcome(item_id, 400, item, _("The answer is not valid."), errors=invalid.errors))
        except AnswerConflict as conflict:
            outcomes.append(ItemOutcome(item_id, 409, conflict.item, conflict.message, reason=conflict.reason))
        except InboxItem.DoesNotExist:
            outcomes.append(ItemOutcome(item_id, 404, message=_("No such item.")))
        else:
            outcomes.append(ItemOutcome(item_id, 200, result.item, _("Answer saved."), result=result))
    return outcomes
