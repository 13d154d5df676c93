"""accounted's audit log: the ``ChannelQuestionAnswered`` event of an answer given in the app.

The payload is the intake's own (``channel``, ``inbox_item_id``,
``question_type``), plus ``"amended": true`` for a correction. The actor names
the review user: ``{"type": "user", "id": "review-app:<id>", "label": …}``.
Labels must not carry personnummer or org-number digit patterns, so every
run of six or more digits is taken out of the user name.
"""

from __future__ import annotations

import datetime as dt
import re
from typing import Any, Final

from django.contrib.auth.models import AbstractBaseUser

from reviewapp.bookkeeping.models import InboxItem, ProcessingHistory

ANSWERED: Final = "ChannelQuestionAnswered"
ACTOR_PREFIX: Final = "review-app"
_LONG_DIGITS = re.compile(r"\d{6,}")


def actor_label(username: str) -> str:
    """The user name without any run of 6+ digits: ``anna19850101-1234`` → ``anna-1234``."""
    return " ".join(_LONG_DIGITS.sub("", username).split())


def actor_for(user: AbstractBaseUser) -> dict[str, str]:
    actor = {"type": "user", "id": f"{ACTOR_PREFIX}:{user.pk}"}
    label = actor_label(user.get_username())
    if label:
        actor["label"] = label
    return actor


def question_payload(item: InboxItem, question: str, *, amended: bool = False) -> dict[str, Any]:
    payload: dict[str, Any] = {"channel": "whatsapp", "inbox_item_id": str(item.pk), "question_type": question}
    if amended:
        payload["amended"] = True
    return payload


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
    return ProcessingHistory.objects.create(
        company_id=item.company_id,
        correlation_id=item.correlation_id or item.pk,
        causation_id=None,
        aggregate_type="System",
        aggregate_id=item.pk,
        event_type=event_type,
        payload=question_payload(item, question, amended=amended),
        payload_schema_version=1,
        actor=actor,
        occurred_at=occurred_at,
    )
