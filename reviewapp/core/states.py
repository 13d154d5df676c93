"""Clarification states of an inbox item, derived from ``clarifications``.

The list filters and counts on these states in the database, so they are
stored as columns of the list's read model (``IndexedItem``). The rule for every state lives
here, in one place, and is computed from ``clarifications.analyse``: the same
summary the prompt is rendered from, so the badge and the prompt can never
disagree about what the human said.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import json
from dataclasses import dataclass
from typing import Any, Final

import orjson
from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _

import clarifications
from reviewapp.core.stored_json import Undecodable

NEEDS_ANSWER: Final = "needs_answer"
WAITING_IN_CHAT: Final = "waiting_in_chat"
DENIED: Final = "denied"
PURPOSE_MISSING: Final = "purpose_missing"
ANSWERED: Final = "answered"
NO_ANSWERS: Final = "no_answers"
MALFORMED: Final = "malformed"
BOOKED: Final = "booked"
# An answer the app wrote that a later write by another program removed or
# replaced (the chat intake's late reply, say). Not from channel_context
# alone: the read model compares the row with the app's answer log.
ANSWER_REPLACED: Final = "answer_replaced"

# Display order: the bookkeeper's queue first.
STATE_KEYS: Final = (
    NEEDS_ANSWER,
    WAITING_IN_CHAT,
    DENIED,
    PURPOSE_MISSING,
    ANSWERED,
    ANSWER_REPLACED,
    BOOKED,
    NO_ANSWERS,
    MALFORMED,
)
STATE_FIELDS: Final = {key: f"state_{key}" for key in STATE_KEYS}
# Not a column of the read model: a question waiting in the app that a
# bookkeeper put on hold (reviewapp.inbox.holds). The list offers it beside
# the states, right after the queue, and takes those items out of NEEDS_ANSWER.
ON_HOLD: Final = "on_hold"
LIST_STATE_KEYS: Final = (NEEDS_ANSWER, ON_HOLD, *STATE_KEYS[1:])

QUESTION_TYPES: Final = ("representation", "context", "resend")

# One place for what each state is called on screen (the list, the item page
# and the admin filter all use these). English source, Swedish through i18n.
STATE_LABELS: Final[dict[str, Promise]] = {
    NEEDS_ANSWER: _("Needs answer in app"),
    WAITING_IN_CHAT: _("Waiting in WhatsApp"),
    DENIED: _("Not representation"),
    PURPOSE_MISSING: _("Purpose missing"),
    ANSWERED: _("Answered"),
    NO_ANSWERS: _("No answers"),
    MALFORMED: _("Malformed"),
    BOOKED: _("Booked"),
    ANSWER_REPLACED: _("App answer replaced"),
    ON_HOLD: _("On hold"),
}

QUESTION_TYPE_LABELS: Final[dict[str, Promise]] = {
    "representation": _("Representation (participants and purpose)"),
    "context": _("What the purchase was for"),
    "resend": _("A clearer photo"),
}

# How long the WhatsApp chat waits for an answer before the app owns the
# question (the intake's TTL; after it the status becomes moved_to_app).
CHAT_WINDOW: Final = dt.timedelta(hours=48)


@dataclass(frozen=True, slots=True)
class ItemStates:
    states: frozenset[str]
    open_question_type: str | None
    open_question_asked_at: dt.datetime | None
    search_text: str
    summary: dict[str, Any] | None
    malformed_reason: str
    # The type of the question the item's pending_question records as answered
    # (None: none answered, or a type the filter does not offer).
    answered_question_type: str | None = None
    # What search_text was made of, field by field and in its original case:
    # [[field key, text], ...] (SEARCH_FIELD_KEYS). The list says why a row
    # matched a search from these, for the rows of one page only.
    search_fields: tuple[tuple[str, str], ...] = ()

    def column_values(self) -> dict[str, Any]:
        """The IndexedItem column values for these states."""
        values: dict[str, Any] = {field: key in self.states for key, field in STATE_FIELDS.items()}
        values["open_question_type"] = self.open_question_type
        values["open_question_asked_at"] = self.open_question_asked_at
        values["answered_question_type"] = self.answered_question_type
        values["search_fields"] = [list(pair) for pair in self.search_fields]
        values["search_text"] = self.search_text
        values["summary"] = self.summary
        values["malformed_reason"] = self.malformed_reason
        return values


def states_of(analysis: clarifications.Analysis, *, booked: bool = False) -> frozenset[str]:
    """Every state key that holds for one analysed channel_context.

    An item can be in several: a denial with a context question moved to the
    app is both ``denied`` and ``needs_answer``. A booked item never needs an
    answer: one given after booking cannot reach the verifikat.
    """
    summary = analysis.summary
    found: set[str] = set()
    if booked:
        found.add(BOOKED)
    if analysis.problems:
        found.add(MALFORMED)
    if summary is None:
        found.add(NO_ANSWERS)
        return frozenset(found)
    question = summary.open_question
    if question is None:
        found.add(ANSWERED)
    elif question.status == "moved_to_app":
        if not booked:
            found.add(NEEDS_ANSWER)
    elif question.status == "open":
        found.add(WAITING_IN_CHAT)
    if summary.representation_denied:
        found.add(DENIED)
    if summary.representation_purpose_missing:
        found.add(PURPOSE_MISSING)
    return frozenset(found)


# Room for the chat window and any time zone on either side of a stored moment.
_CALENDAR_MARGIN: Final = CHAT_WINDOW + dt.timedelta(days=2)


def to_iso(moment: dt.datetime | None) -> str | None:
    """UTC ISO 8601 with a ``Z``, as the chat intake writes its timestamps (None stays None).

    Every moment the JSON API sends goes through here, so a script reads one format.
    """
    if moment is None:
        return None
    return moment.astimezone(dt.UTC).isoformat().replace("+00:00", "Z")


def parse_iso(value: object) -> dt.datetime | None:
    """An ISO 8601 timestamp from the JSON, or None when it is not one.

    ``"2026-11-28T09:00:00Z"`` parses; ``"yesterday"`` and ``12`` do not.
    A timestamp without an offset is taken as UTC, as the chat intake writes UTC.
    """
    if not isinstance(value, str) or not value:
        return None
    try:
        parsed = dt.datetime.fromisoformat(value)
    except ValueError:
        return None
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=dt.UTC)
    try:
        # A moment at the calendar's edge ("9999-12-31T23:59:59-23:59") parses
        # but overflows in UTC, in local time or when the chat window is
        # added: it is no more a usable timestamp than "yesterday".
        parsed.astimezone(dt.UTC) + _CALENDAR_MARGIN
        parsed.astimezone(dt.UTC) - _CALENDAR_MARGIN
    except OverflowError:
        return None
    return parsed


def _text(value: object) -> str:
    return value if isinstance(value, str) else ""


# The fields the list's search looks in, by the key ``search_fields`` stores
# them under (reviewapp.inbox.matches names them on screen).
SUPPLIER: Final = "supplier"
NOTE: Final = "note"
RAW_ANSWER: Final = "raw_answer"
PURPOSE: Final = "purpose"
PARTICIPANT: Final = "participant"
PARTICIPANT_COMPANY: Final = "participant_company"
SEARCH_FIELD_KEYS: Final = (SUPPLIER, NOTE, RAW_ANSWER, PURPOSE, PARTICIPANT, PARTICIPANT_COMPANY)


def search_fields_of(channel_context: object, extracted_data: object) -> list[tuple[str, str]]:
    """The texts the list's free-text search looks in, each with the field it came from, stripped.

    Supplier name, the note, the stored raw answers (the context's and the
    representation's, so a denial is found by its "nej"), purpose,
    participant names and companies; never the caption, which nobody
    reviewed.
    """
    found: list[tuple[str, str]] = []

    def add(key: str, value: object) -> None:
        text = _text(value).strip()
        if text:
            found.append((key, text))

    if isinstance(extracted_data, dict):
        supplier = extracted_data.get("supplier")
        if isinstance(supplier, dict):
            add(SUPPLIER, supplier.get("name"))
    if isinstance(channel_context, dict):
        add(NOTE, channel_context.get("user_note"))
        answer = channel_context.get("context_answer")
        if isinstance(answer, dict):
            add(RAW_ANSWER, answer.get("raw_answer"))
        rep = channel_context.get("representation")
        if isinstance(rep, dict):
            add(PURPOSE, rep.get("purpose"))
            add(RAW_ANSWER, rep.get("raw_answer"))
            people = rep.get("participants")
            if isinstance(people, list):
                for person in people:
                    if isinstance(person, dict):
                        add(PARTICIPANT, person.get("name"))
                        add(PARTICIPANT_COMPANY, person.get("company"))
    return found


def _bounded_fields(fields: list[tuple[str, str]], max_chars: int) -> tuple[tuple[str, str], ...]:
    """The fields as far as ``max_chars`` of their joined text reach (what ``search_text`` keeps)."""
    kept: list[tuple[str, str]] = []
    left = max_chars
    for key, text in fields:
        if left <= 0:
            break
        kept.append((key, text[:left]))
        left -= len(text) + 1
    return tuple(kept)


def search_text_of(channel_context: object, extracted_data: object) -> str:
    """Lower-cased text the list's free-text search looks in (``search_fields_of``, joined)."""
    return " ".join(text for _key, text in search_fields_of(channel_context, extracted_data)).lower()


def answered_question_type_of(channel_context: object) -> str | None:
    """The type of the question ``pending_question`` records as answered, if the filter offers it.

    The intake keeps ``pending_question`` after an answer, with ``status``
    "answered" and its ``type`` (the contract, step 3), and so does the app.
    """
    if not isinstance(channel_context, dict):
        return None
    pending = channel_context.get("pending_question")
    if not isinstance(pending, dict) or pending.get("status") != "answered":
        return None
    kind = pending.get("type")
    return kind if isinstance(kind, str) and kind in QUESTION_TYPES else None


def undecodable_reason(channel_context: object, extracted_data: object) -> str:
    """Why a row's stored JSON could not be read at all, or "" when it could."""
    reasons = [
        f"{name}: {value.reason}"
        for name, value in (("channel_context", channel_context), ("extracted_data", extracted_data))
        if isinstance(value, Undecodable)
    ]
    return "; ".join(reasons)


# A list row carries its summary (the list API's "summary") and is found by
# its search text; neither may grow with a stored 400 000-character purpose.
SEARCH_TEXT_MAX_CHARS: Final = 20_000
SUMMARY_MAX_CHARS: Final = 20_000


def _bounded_summary(summary: dict[str, Any] | None) -> dict[str, Any] | None:
    """The summary, or a marker saying it is too big to list (the item page has it whole)."""
    if summary is None:
        return None
    # Measured as json.dumps writes it (", " and ": " between items). That
    # text is at most twice orjson's compact UTF-8, a bound costing a tenth
    # as much: most summaries are far below the limit and need no more.
    with contextlib.suppress(TypeError):  # orjson refuses an integer past 64 bits
        if 2 * len(orjson.dumps(summary)) <= SUMMARY_MAX_CHARS:
            return summary
    size = len(json.dumps(summary, ensure_ascii=False))
    return summary if size <= SUMMARY_MAX_CHARS else {"truncated": True, "chars": size}


def compute(channel_context: object, extracted_data: object = None, *, booked: bool = False) -> ItemStates:
    """The state columns for one row's channel_context, extracted_data and booking."""
    unreadable = undecodable_reason(channel_context, extracted_data)
    if isinstance(channel_context, Undecodable):
        channel_context = None
    if isinstance(extracted_data, Undecodable):
        extracted_data = None
    analysis = clarifications.analyse(channel_context)
    question = analysis.summary.open_question if analysis.summary else None
    asked_at = None
    if question is not None and isinstance(channel_context, dict):
        pending = channel_context.get("pending_question")
        if isinstance(pending, dict):
            asked_at = parse_iso(pending.get("asked_at"))
    # An unknown type string (reported in problems, so the row is also
    # malformed) is not stored: the column holds only types the filter offers.
    question_type = question.type if question is not None and question.type in QUESTION_TYPES else None
    found = states_of(analysis, booked=booked)
    if unreadable:
        found |= {MALFORMED}
    fields = search_fields_of(channel_context, extracted_data)
    return ItemStates(
        states=found,
        open_question_type=question_type,
        open_question_asked_at=asked_at,
        answered_question_type=answered_question_type_of(channel_context) if question is None else None,
        search_fields=_bounded_fields(fields, SEARCH_TEXT_MAX_CHARS),
        search_text=" ".join(text for _key, text in fields).lower()[:SEARCH_TEXT_MAX_CHARS],
        summary=_bounded_summary(analysis.summary.to_json() if analysis.summary is not None else None),
        malformed_reason=unreadable or "; ".join(analysis.problems),
    )
