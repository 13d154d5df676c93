"""What was entered: the three question types and the answer each one takes.

Plain frozen dataclasses, built by the page's forms and by the JSON API and
checked by ``validation.validate``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Final

from django.core.files.uploadedfile import UploadedFile

REPRESENTATION: Final = "representation"
CONTEXT: Final = "context"
RESEND: Final = "resend"
QUESTION_TYPES: Final = (REPRESENTATION, CONTEXT, RESEND)


@dataclass(frozen=True, slots=True)
class ParticipantInput:
    name: str
    company: str | None = None


@dataclass(frozen=True, slots=True)
class RepresentationAnswer:
    """Who was there and why, or ``denied`` (not representation at all)."""

    participants: tuple[ParticipantInput, ...] = ()
    purpose: str = ""
    event_date: str = ""
    denied: bool = False
    question: str = field(default=REPRESENTATION, init=False)


@dataclass(frozen=True, slots=True)
class ContextAnswer:
    """What the purchase was for, as free text."""

    text: str = ""
    question: str = field(default=CONTEXT, init=False)


@dataclass(frozen=True, slots=True)
class ResendAnswer:
    """A sharper document (``upload``), or the current one declared readable."""

    readable: bool = False
    upload: UploadedFile | None = None
    question: str = field(default=RESEND, init=False)

    @property
    def choice(self) -> str:
        return "upload" if self.upload is not None else "readable"


Answer = RepresentationAnswer | ContextAnswer | ResendAnswer
