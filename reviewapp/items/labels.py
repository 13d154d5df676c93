"""The words the item page shows: labels, and why the notes or the agent view are empty."""

from __future__ import annotations

from typing import Final

from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

import clarifications
from reviewapp.answers import evidence
from reviewapp.core import states
from reviewapp.models import ClarificationEvent

#: The open question in plain words (the prompt names it in Swedish).
QUESTION_WHAT: Final[dict[str, Promise]] = {
    "representation": _("who attended and why (representation)"),
    "context": _("what the purchase was for"),
    "resend": _("a sharper photo of the receipt"),
}

EVENT_LABELS: Final[dict[str, Promise]] = {
    ClarificationEvent.ASKED: _("Question asked"),
    ClarificationEvent.EXPIRED: _("The chat gave up"),
    ClarificationEvent.ANSWERED: _("Question answered"),
    ClarificationEvent.FIXED: _("The firm's text taken out of the customer's words"),
}
#: An answer event whose payload says ``"amended": true`` (a correction made in the app): both the app's
#: log entry and the ``processing_history`` row it wrote carry the flag (reviewapp.answers.writing).
ANSWER_CORRECTED: Final = _("Answer corrected")


def event_label(event_type: str, payload: object) -> str:
    """The history's name for an event: a corrected answer is not called "Question answered"."""
    if event_type == ClarificationEvent.ANSWERED and isinstance(payload, dict) and payload.get("amended") is True:
        return str(ANSWER_CORRECTED)
    return str(EVENT_LABELS.get(event_type, event_type))


#: What kind of actor wrote a history entry (accounted's actor ``type``, or the chat's sender), as the page names it.
#: A type accounted adds later is shown as stored.
#: The English names are accounted's own words for them.
ACTOR_TYPE_LABELS: Final[dict[str, Promise]] = {
    "customer": pgettext_lazy("actor type", "customer"),
    "system": pgettext_lazy("actor type", "system"),
    "user": pgettext_lazy("actor type", "user"),
    "llm": pgettext_lazy("actor type", "llm"),
    "cron": pgettext_lazy("actor type", "cron"),
    "api_key": pgettext_lazy("actor type", "api_key"),
}

#: Who wrote a piece of a stored raw_answer: only the customer's words are called theirs.
RAW_SOURCE_LABELS: Final[dict[str, Promise]] = {
    evidence.PHONE: _("The customer's words (by phone)"),
    evidence.EMAIL: _("The customer's words (by e-mail)"),
    evidence.MESSAGE: _("The customer's words (in a message)"),
    evidence.CHAT: _("The customer's words (from the chat)"),
    evidence.CUSTOMER: _("The customer's words (source not recorded)"),
    evidence.REVIEW_APP: _("Entered by the firm in the review app"),
}

NOTES_EMPTY_DENIED: Final = _(
    "Nothing goes on the verifikat: the human said this was not representation, and a denial "
    "puts nothing on the voucher by design. The prompt still tells the agent not to ask again."
)
NOTES_EMPTY_NO_ANSWERS: Final = _("Nothing goes on the verifikat: nobody has answered anything about this receipt.")
NOTES_EMPTY_MALFORMED: Final = _(
    "Nothing goes on the verifikat: the fields that would hold an answer have the wrong shape (see the problems)."
)
NOTES_EMPTY_OPEN_QUESTION: Final = _(
    "Nothing goes on the verifikat yet: the only thing on record is the open question, which is still unanswered."
)
NOTES_EMPTY_NOTHING_FOR_VOUCHER: Final = _(
    "Nothing goes on the verifikat: only participants, purpose and the note are verifikat text, "
    "and none of them was given."
)
AGENT_CAPTION_ONLY: Final = _(
    "The photo caption is the verifikat text here, but it never reaches the prompt: nobody asked for it "
    "and nobody reviewed it, so the agent is told nothing about this receipt beyond the extracted data."
)
AGENT_NO_ANSWERS: Final = _("No human answers: the agent sees only the extracted data.")
AGENT_MALFORMED: Final = _(
    "No usable human answers: the fields that would hold them have the wrong shape, so the agent sees only "
    "the extracted data."
)


def state_label(key: str) -> str:
    return str(states.STATE_LABELS.get(key, key))


def question_what(question_type: str | None) -> str:
    # An unknown type is asked as "what the purchase was for", as the prompt does.
    return str(QUESTION_WHAT.get(question_type or "", QUESTION_WHAT["context"]))


def actor_type_label(actor_type: str) -> str:
    return str(ACTOR_TYPE_LABELS[actor_type]) if actor_type in ACTOR_TYPE_LABELS else actor_type


def raw_source_label(source: str) -> str:
    return str(RAW_SOURCE_LABELS.get(source, RAW_SOURCE_LABELS[evidence.CUSTOMER]))


def channel_label(channel: object) -> str:
    if channel == "whatsapp":
        return "WhatsApp"
    if channel == "app":
        return str(ClarificationEvent.Channel.APP.label)
    return channel if isinstance(channel, str) and channel else "?"


def notes_explanation(
    summary: clarifications.Clarifications | None, notes: str | None, problems: tuple[str, ...]
) -> str | None:
    """Why the verifikat gets no notes text, when it gets none."""
    if notes:
        return None
    if summary is None:
        return str(NOTES_EMPTY_MALFORMED if problems else NOTES_EMPTY_NO_ANSWERS)
    if summary.representation_denied:
        return str(NOTES_EMPTY_DENIED)
    if summary.open_question is not None and not (
        summary.representation or summary.user_note or summary.context_answer_raw
    ):
        return str(NOTES_EMPTY_OPEN_QUESTION)
    return str(NOTES_EMPTY_NOTHING_FOR_VOUCHER)


def agent_explanation(
    summary: clarifications.Clarifications | None, notes: str | None, problems: tuple[str, ...]
) -> str | None:
    """Why the agent is told nothing beyond the extracted data, when it is not."""
    if summary is not None:
        return None
    if notes:
        return str(AGENT_CAPTION_ONLY)
    return str(AGENT_MALFORMED if problems else AGENT_NO_ANSWERS)
