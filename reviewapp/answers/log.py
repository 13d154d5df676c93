"""The app's own answer log (``ClarificationEvent``), read back.

Every answer the app writes is logged with the whole ``channel_context``
before and after. Comparing the last value the app wrote with the live row
tells whether an answer is still the app's (so it may be amended here), and
whether another program has since replaced it (``replaced_answer``): the
intake writes a late reply over what is there, and accounted's own screens
may rewrite the object, so an answer can vanish without the app writing
anything. Nothing here writes.
"""

from __future__ import annotations

import datetime as dt
import uuid
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from django.utils.translation import gettext as _

from reviewapp.answers.channel_context import answer_value
from reviewapp.answers.inputs import CONTEXT, REPRESENTATION
from reviewapp.bookkeeping.models import InboxItem
from reviewapp.core import states
from reviewapp.core.people import actor_name
from reviewapp.core.rendering_caps import HUMAN_TEXT_MAX_CHARS, noted_cut
from reviewapp.models import ClarificationEvent

# The questions whose answer is a value that can be compared and amended.
COMPARED = (REPRESENTATION, CONTEXT)


def app_answers(item_id: uuid.UUID | str) -> list[ClarificationEvent]:
    """The answers the app wrote to one item, and its fixes of them (``FIXED``), oldest first."""
    return list(
        ClarificationEvent.objects.filter(
            item_id=item_id,
            event_type__in=(ClarificationEvent.ANSWERED, ClarificationEvent.FIXED),
            channel=ClarificationEvent.Channel.APP,
        )
        .select_related("actor")
        .order_by("occurred_at", "id")
    )


def latest_for(log_entries: Iterable[ClarificationEvent], question: str) -> ClarificationEvent | None:
    """The app's latest answer to ``question`` among ``log_entries``."""
    answered = [
        event
        for event in log_entries
        if event.event_type == ClarificationEvent.ANSWERED
        and event.channel == ClarificationEvent.Channel.APP
        and event.question_type == question
        and isinstance(event.payload, dict)
        and "after" in event.payload
    ]
    return max(answered, key=lambda event: (event.occurred_at, event.pk or 0), default=None)


def written_value(log_entries: Iterable[ClarificationEvent], event: ClarificationEvent, question: str) -> Any:
    """The value the app last wrote for ``question``: ``event``'s answer, or a later fix of it.

    ``manage.py fix_context_answers`` takes the app's own text out of an
    answer it wrote (``ClarificationEvent.FIXED``); the row then holds the
    fixed value, and that is still the app's answer, not another program's.
    """
    fixes = [
        entry
        for entry in log_entries
        if entry.event_type == ClarificationEvent.FIXED
        and entry.question_type == question
        and isinstance(entry.payload, dict)
        and "after" in entry.payload
        and (entry.occurred_at, entry.pk or 0) >= (event.occurred_at, event.pk or 0)
    ]
    latest = max(fixes, key=lambda entry: (entry.occurred_at, entry.pk or 0), default=event)
    return answer_value(latest.payload["after"], question)


def holds(live: Any, written: Any, question: str) -> bool:
    """Whether the live value still is what the app wrote.

    A context answer followed by a late reply still holds: the intake only
    appends the follow-up to ``user_note`` (``"Taxi"`` → ``"Taxi\\nok"``).
    """
    if question != CONTEXT:
        return bool(live == written)
    if not isinstance(live, dict) or not isinstance(written, dict):
        return False
    note, own = live.get("user_note"), written.get("user_note")
    kept_note = note == own or (isinstance(note, str) and isinstance(own, str) and note.startswith(own))
    return kept_note and live.get("context_answer") == written.get("context_answer")


def app_answer_in_place(
    ctx: object, question: str, log_entries: Iterable[ClarificationEvent]
) -> ClarificationEvent | None:
    """The app's log entry whose answer ``ctx`` still holds for ``question``, else None (the chat's, or none)."""
    if question not in COMPARED or not isinstance(ctx, dict):
        return None
    entries = list(log_entries)
    event = latest_for(entries, question)
    if event is None:
        return None
    written = written_value(entries, event, question)
    return event if holds(answer_value(ctx, question), written, question) else None


@dataclass(frozen=True, slots=True)
class AnswerText:
    """An answer as the panel shows it: a readable summary and the stored ``raw_answer``."""

    summary: str
    raw_answer: str | None

    def to_json(self) -> dict[str, Any]:
        return {"summary": self.summary, "raw_answer": self.raw_answer}

    def shown(self) -> AnswerText:
        """The answer as a page or the API shows it: each text cut at ``HUMAN_TEXT_MAX_CHARS``, marked where cut."""
        raw = None if self.raw_answer is None else noted_cut(self.raw_answer, HUMAN_TEXT_MAX_CHARS)
        return AnswerText(noted_cut(self.summary, HUMAN_TEXT_MAX_CHARS), raw)


def answer_text(question: str, value: Any) -> AnswerText | None:
    """``value`` (as ``answer_value`` reads it) in words, or None when there is no answer."""
    if question == REPRESENTATION:
        if not isinstance(value, dict):
            return None
        raw = value.get("raw_answer") if isinstance(value.get("raw_answer"), str) else None
        if value.get("denied") is True:
            return AnswerText(str(_("Not representation")), raw)
        people = value.get("participants")
        names = [
            f"{p['name']} ({p['company']})" if isinstance(p.get("company"), str) and p["company"] else p["name"]
            for p in (people if isinstance(people, list) else [])
            if isinstance(p, dict) and isinstance(p.get("name"), str)
        ]
        parts = [", ".join(names)] if names else []
        if isinstance(value.get("purpose"), str) and value["purpose"]:
            parts.append(_("purpose: %(purpose)s") % {"purpose": value["purpose"]})
        if isinstance(value.get("event_date"), str) and value["event_date"]:
            parts.append(_("date: %(date)s") % {"date": value["event_date"]})
        return AnswerText("; ".join(parts) or str(_("an empty answer")), raw)
    if question == CONTEXT:
        if not isinstance(value, dict):
            return None
        note = value.get("user_note")
        answer = value.get("context_answer")
        raw = answer.get("raw_answer") if isinstance(answer, dict) else None
        if not isinstance(note, str) and not isinstance(raw, str):
            return None
        return AnswerText(note if isinstance(note, str) else "", raw if isinstance(raw, str) else None)
    return None


def _answered_at(question: str, value: Any) -> dt.datetime | None:
    if not isinstance(value, dict):
        return None
    if question == CONTEXT:
        value = value.get("context_answer")
        if not isinstance(value, dict):
            return None
    return states.parse_iso(value.get("answered_at"))


@dataclass(frozen=True, slots=True)
class ReplacedAnswer:
    """An answer the app wrote that another program has since replaced (or removed).

    ``answered_at``/``yours``: the app's answer, from its log; ``replaced_by``
    (None when the answer was removed) and ``replaced_at``: what the live row
    holds now. ``replaced_at`` is the replacement's own ``answered_at`` when
    it has a usable one, else the row's ``updated_at``.
    """

    question: str
    answered_at: dt.datetime
    actor: str
    yours: AnswerText
    replaced_by: AnswerText | None
    replaced_at: dt.datetime | None
    event_id: int | None

    def to_json(self) -> dict[str, Any]:
        return {
            "question": self.question,
            "answered_at": self.answered_at.isoformat(),
            "actor": self.actor,
            "yours": self.yours.to_json(),
            "replaced_by": self.replaced_by.to_json() if self.replaced_by else None,
            "replaced_at": self.replaced_at.isoformat() if self.replaced_at else None,
        }


def replaced_answer(item: InboxItem, log_entries: Iterable[ClarificationEvent]) -> ReplacedAnswer | None:
    """The app's latest answer that the live row no longer holds, or None.

    ``log_entries`` are the item's ``ClarificationEvent`` rows (any order;
    ``app_answers(item.pk)`` gives them). Only representation and context
    answers are compared: they are values another program can overwrite. The
    app's own later answer or amendment is not a replacement: the latest
    logged value is the one compared.
    """
    ctx = item.channel_context
    if not isinstance(ctx, dict) and ctx is not None:
        return None  # unreadable JSON: shown as malformed, nothing can be compared
    entries = list(log_entries)
    found: list[ReplacedAnswer] = []
    for question in COMPARED:
        event = latest_for(entries, question)
        if event is None:
            continue
        written = written_value(entries, event, question)
        live = answer_value(ctx, question)
        if holds(live, written, question):
            continue
        yours = answer_text(question, written)
        if yours is None:
            continue
        now_text = answer_text(question, live)
        replaced_at = _answered_at(question, live)
        if replaced_at is None or replaced_at < event.occurred_at:
            replaced_at = item.updated_at
        found.append(
            ReplacedAnswer(
                question=question,
                answered_at=event.occurred_at,
                actor=actor_name(event.actor, event.actor_label),
                yours=yours.shown(),
                replaced_by=now_text.shown() if now_text else None,
                replaced_at=replaced_at,
                event_id=event.pk,
            )
        )
    return max(found, key=lambda r: r.answered_at) if found else None
