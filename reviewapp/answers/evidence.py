"""``raw_answer`` as evidence: the customer's words, or a text that says the firm entered it.

accounted's types call ``representation.raw_answer`` and its timestamps the
representation's documentation trail for the tax authority, and its intake
writes the person's own message there. So for a representation the app
writes either

- the customer's words, verbatim, when the bookkeeper has them (from a phone
  call, an e-mail or a message; where they came from is kept in the app's
  own log, ``ClarificationEvent.payload["raw_answer_via"]``, never in
  accounted's row), or
- ``ENTERED_BY_FIRM``: a Swedish text naming its source (the firm, in the
  review app, and when, in Stockholm time) followed by the answer. It never
  names the bookkeeper: accounted's agent reads it and the customer's
  company is shown it.

``context_answer.raw_answer`` is different: the agent reads it as the
customer's own words ("användarens egna ord"), so the app writes only the
customer's words there, never ``ENTERED_BY_FIRM``
(``channel_context.context_answer_kept``).

A later representation answer never erases what is there: the new text is appended with
``"\\n"`` (``appended``), as accounted's intake does with a second message
(``extensions/general/whatsapp-inbox/lib/process-inbound.ts`` at
``erp-mafia/accounted`` 66851ff: ``raw_answer: itemContext.representation ?
`${itemContext.representation.raw_answer}\\n${text}` : text``).

``raw_answer_parts`` reads a stored ``raw_answer`` back into the pieces each
source wrote, from the app's log, so a screen can label each piece by what
it is. Nothing here touches a database.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final
from zoneinfo import ZoneInfo

if TYPE_CHECKING:
    from reviewapp.models import ClarificationEvent

# Where the customer's words given to the bookkeeper came from (the form's
# and the JSON API's ``raw_answer_via``).
PHONE: Final = "phone"
EMAIL: Final = "email"
MESSAGE: Final = "message"
WORDS_SOURCES: Final = (PHONE, EMAIL, MESSAGE)

# What else a piece of a stored raw_answer can be, for the screens.
CHAT: Final = "chat"  # written by accounted's intake: the customer's reply in WhatsApp
REVIEW_APP: Final = "review_app"  # composed by the app: ENTERED_BY_FIRM
CUSTOMER: Final = "customer"  # the customer's words, logged before their source was recorded
CUSTOMER_SOURCES: Final = (*WORDS_SOURCES, CHAT, CUSTOMER)

# The text written to raw_answer when the bookkeeper answers without the
# customer's words. Stored text is Swedish, like everything the intake
# stores; never translated. ``when`` is ``STAMP_FORMAT`` in ``ZONE``.
ENTERED_BY_FIRM: Final = "Inmatat av byrån i granskningsappen {when}: {answer}"
STAMP_FORMAT: Final = "%Y-%m-%d %H:%M %Z"  # 2026-08-12 11:31 CEST
ZONE: Final = ZoneInfo("Europe/Stockholm")
# A line the app wrote with ENTERED_BY_FIRM: how text of the app's making is
# told from the customer's in rows written before context answers stopped
# carrying it (``holds_firm_text``).
FIRM_LINE: Final = re.compile(r"^Inmatat av byrån i granskningsappen \d{4}-\d{2}-\d{2} \d{2}:\d{2} [A-Z]{3,5}: ", re.M)

# The app's log entry of ``manage.py fix_context_answers`` (``ClarificationEvent.FIXED``; not
# imported: this module loads no Django model).
FIXED_EVENT: Final = "ContextAnswerFixed"

# How the answer is put in words after ENTERED_BY_FIRM's colon.
RAW_LABELS: Final = {"participants": "Deltagare", "purpose": "syfte", "date": "datum"}
RAW_SEPARATOR: Final = "; "
RAW_DENIED: Final = "Inte representation"


def firm_stamp(moment: dt.datetime) -> str:
    """``moment`` in Stockholm time to the minute, with its zone: ``2026-08-12 11:31 CEST``."""
    return moment.astimezone(ZONE).strftime(STAMP_FORMAT)


def entered_by_firm(answer: str, moment: dt.datetime) -> str:
    """``ENTERED_BY_FIRM`` for ``answer`` entered at ``moment``.

    ``Inmatat av byrån i granskningsappen 2026-08-12 11:31 CEST: Taxi till kund``
    """
    return ENTERED_BY_FIRM.format(when=firm_stamp(moment), answer=answer)


def holds_firm_text(raw: str) -> bool:
    """Whether ``raw`` holds a line of ``ENTERED_BY_FIRM`` text (the app's, never the customer's)."""
    return FIRM_LINE.search(raw) is not None


def representation_words(
    participants: Sequence[tuple[str, str | None]], purpose: str, event_date: str, *, denied: bool = False
) -> str:
    """A representation in words, for ``ENTERED_BY_FIRM``.

    ``Deltagare: Anna Berg (Volvo), Jakob W; syfte: Möte; datum: 2026-07-29``;
    a denial is ``Inte representation``.
    """
    if denied:
        return RAW_DENIED
    names = ", ".join(f"{name} ({company})" if company else name for name, company in participants)
    parts = [f"{RAW_LABELS['participants']}: {names}"] if names else []
    if purpose:
        parts.append(f"{RAW_LABELS['purpose']}: {purpose}")
    if event_date:
        parts.append(f"{RAW_LABELS['date']}: {event_date}")
    return RAW_SEPARATOR.join(parts)


def appended(earlier: object, text: str) -> str:
    """``text`` after what ``raw_answer`` held, on a line of its own; just ``text`` when it held nothing.

    ``appended("Första svaret", "Rättelse")`` is ``"Första svaret\\nRättelse"``.
    """
    if isinstance(earlier, str) and earlier.strip():
        return f"{earlier}\n{text}"
    return text


# --- Reading a stored raw_answer back -----------------------------------------------


@dataclass(frozen=True, slots=True)
class RawPart:
    """One piece of a stored ``raw_answer`` and who it comes from (``source``: see the constants)."""

    text: str
    source: str

    @property
    def is_customer_words(self) -> bool:
        return self.source in CUSTOMER_SOURCES

    def to_json(self) -> dict[str, Any]:
        return {"text": self.text, "source": self.source}


def stored_raw_answer(ctx: object, question: str) -> str | None:
    """The ``raw_answer`` an answer to ``question`` keeps in ``ctx`` (``representation`` / ``context_answer``)."""
    key = {"representation": "representation", "context": "context_answer"}.get(question)
    holder = ctx.get(key) if isinstance(ctx, dict) and key else None
    raw = holder.get("raw_answer") if isinstance(holder, dict) else None
    return raw if isinstance(raw, str) else None


def logged_source(payload: dict[str, Any]) -> str:
    """Who wrote the text one app answer added: where the customer's words came from, or the app."""
    via = payload.get("raw_answer_via")
    if via in WORDS_SOURCES:
        return str(via)
    return CUSTOMER if payload.get("raw_answer_source") == "customer" else REVIEW_APP


def raw_answer_parts(raw: str, question: str, log: Sequence[ClarificationEvent]) -> tuple[RawPart, ...]:
    """``raw`` split into what each source wrote, from the app's log of its answers (oldest first).

    Text no app answer wrote is the chat's (accounted's intake writes the
    customer's own message). An answer logged before the app kept what it
    added is one piece, labelled as that answer's log says. A ``raw_answer``
    that ``manage.py fix_context_answers`` left is the pieces it kept, as it logged them.
    """
    for event in reversed(log):
        payload = event.payload if isinstance(event.payload, dict) else {}
        if (
            event.event_type == FIXED_EVENT
            and event.question_type == question
            and stored_raw_answer(payload.get("after"), question) == raw
        ):
            kept = payload.get("kept")
            if isinstance(kept, list) and all(isinstance(part, dict) for part in kept):
                return tuple(RawPart(str(part.get("text", "")), str(part.get("source", CHAT))) for part in kept)
    entries = [
        event.payload
        for event in log
        if event.event_type == "ChannelQuestionAnswered"
        and event.channel == "app"
        and event.question_type == question
        and isinstance(event.payload, dict)
        # A context answer without the customer's words leaves raw_answer as it was: it wrote none of it.
        and stored_raw_answer(event.payload.get("before"), question)
        != stored_raw_answer(event.payload.get("after"), question)
    ]
    return _parts(raw, question, entries)


def _parts(raw: str, question: str, entries: list[dict[str, Any]]) -> tuple[RawPart, ...]:
    # Each step peels the latest app answer's addition off the end: a loop
    # bounded by the log's length, never recursion on stored data.
    pieces: list[RawPart] = []
    remaining: str | None = raw
    while remaining is not None:
        index = next(
            (
                i
                for i in range(len(entries) - 1, -1, -1)
                if stored_raw_answer(entries[i].get("after"), question) == remaining
            ),
            None,
        )
        if index is None:
            pieces.append(RawPart(remaining, CHAT))
            break
        payload = entries[index]
        added = payload.get("raw_answer_added")
        if not isinstance(added, str) or remaining == added:
            pieces.append(RawPart(remaining, logged_source(payload)))
            break
        earlier = stored_raw_answer(payload.get("before"), question)
        if earlier is None or remaining != appended(earlier, added):
            pieces.append(RawPart(remaining, logged_source(payload)))
            break
        pieces.append(RawPart(added, logged_source(payload)))
        remaining, entries = earlier, entries[:index]
    return tuple(reversed(pieces))
