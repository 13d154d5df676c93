"""What was entered: the three question types and the answer each one takes.

Plain frozen dataclasses, built by the page's forms and by the JSON API
(``validation.answer_from_json``) and checked by ``validation.validate``.
``raw_answer`` is optional: the customer's own words when the bookkeeper has
them, with ``raw_answer_via`` saying where they came from (phone, e-mail, a
message); else empty, and a representation's stored ``raw_answer`` is then a
text saying the firm entered the answer in the review app
(``evidence.ENTERED_BY_FIRM``), while a context answer writes no
``raw_answer`` at all (``channel_context.context_answer_kept``).
``amend`` with ``expected_version`` corrects an answer the app wrote earlier.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Final

from django.core.files.uploadedfile import UploadedFile

REPRESENTATION: Final = "representation"
CONTEXT: Final = "context"
RESEND: Final = "resend"
QUESTION_TYPES: Final = (REPRESENTATION, CONTEXT, RESEND)

# The three ways a resend question is settled in the app.
READABLE: Final = "readable"
REPLACED: Final = "replaced"
UPLOAD: Final = "upload"
RESEND_CHOICES: Final = (READABLE, REPLACED, UPLOAD)


@dataclass(frozen=True, slots=True)
class ParticipantInput:
    name: str
    company: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class TypedAnswer:
    """What a representation or context answer carries besides its content.

    The customer's own words (``raw_answer``) and where they came from
    (``raw_answer_via``: ``evidence.WORDS_SOURCES``), and whether it corrects
    the app's earlier answer (``amend``, with that answer's ``expected_version``).
    """

    raw_answer: str = ""
    raw_answer_via: str = ""
    amend: bool = False
    expected_version: str = ""


@dataclass(frozen=True, slots=True, kw_only=True)
class RepresentationAnswer(TypedAnswer):
    """Who was there and why, or ``denied`` (not representation at all)."""

    participants: tuple[ParticipantInput, ...] = ()
    purpose: str = ""
    event_date: str = ""
    denied: bool = False
    question: str = field(default=REPRESENTATION, init=False)


@dataclass(frozen=True, slots=True, kw_only=True)
class ContextAnswer(TypedAnswer):
    """What the purchase was for, as free text (it becomes ``user_note``)."""

    text: str = ""
    question: str = field(default=CONTEXT, init=False)


@dataclass(frozen=True, slots=True)
class ResendAnswer:
    """The current document is readable, a newer item replaces it, or a sharper file (``upload``).

    ``replaced_by`` is the newer item's id (``choice == "replaced"``);
    ``confirmed``: replaced by it even though it differs sharply from this
    item (``resend.sharp_differences``).
    """

    readable: bool = False
    upload: UploadedFile | None = None
    replaced_by: str = ""
    confirmed: bool = False
    question: str = field(default=RESEND, init=False)

    @property
    def choice(self) -> str:
        if self.upload is not None:
            return UPLOAD
        if self.replaced_by:
            return REPLACED
        return READABLE

    @property
    def amend(self) -> bool:
        return False


Answer = RepresentationAnswer | ContextAnswer | ResendAnswer
