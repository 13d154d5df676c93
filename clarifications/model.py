"""The structured view of a channel_context: plain frozen values."""

from collections.abc import Mapping
from dataclasses import dataclass, field

JsonDict = dict[str, object]


@dataclass(frozen=True, slots=True)
class Participant:
    """Someone the user named as present at a representation meal.

    ``name`` and ``company`` are kept exactly as stored (untrimmed, ``""``
    company included), as in the reference summary; the renderers trim and
    flatten. ``source`` is the stored object when it was well-formed: the
    reference carries that object into its summary as it is (a missing
    ``company`` key stays missing, an extra key stays), so ``to_json``
    returns it to stay byte-identical.
    """

    name: str
    company: str | None
    source: Mapping[str, object] | None = field(default=None, compare=False, repr=False, kw_only=True)

    def to_json(self) -> JsonDict:
        if self.source is not None:
            return dict(self.source)
        return {"name": self.name, "company": self.company}


@dataclass(frozen=True, slots=True)
class Representation:
    """An answered representation question (never a denial)."""

    participants: tuple[Participant, ...]
    purpose: str | None

    def to_json(self) -> JsonDict:
        return {
            "participants": [p.to_json() for p in self.participants],
            "purpose": self.purpose,
        }


@dataclass(frozen=True, slots=True)
class OpenQuestion:
    """A question asked in the channel and still unanswered.

    ``type`` is ``representation``, ``context`` or ``resend``. An unknown
    string is kept (and reported by ``analyse``); the prompt then asks what
    the purchase was, as the reference does. ``None`` means the record had no
    usable type and, like JavaScript's ``undefined``, is left out of
    ``to_json``. ``status`` is ``open`` or ``moved_to_app``.
    """

    type: str | None
    status: str

    def to_json(self) -> JsonDict:
        if self.type is None:
            return {"status": self.status}
        return {"type": self.type, "status": self.status}


@dataclass(frozen=True, slots=True)
class Clarifications:
    """What a human answered about one underlag; see ``summarise``.

    ``representation_denied`` and ``representation is None`` are different
    states: a denial is a settled answer, ``None`` alone means nobody asked.
    ``channel`` is the record's channel string; ``None`` when it had none,
    which ``to_json`` omits exactly like ``JSON.stringify`` omits
    ``undefined``.
    """

    representation: Representation | None
    representation_denied: bool
    representation_purpose_missing: bool
    event_date: str | None
    user_note: str | None
    context_answer_raw: str | None
    open_question: OpenQuestion | None
    channel: str | None

    def to_json(self) -> JsonDict:
        """The reference's ``ChatClarifications`` object, camelCase keys."""
        representation = self.representation
        question = self.open_question
        out: JsonDict = {
            "representation": None if representation is None else representation.to_json(),
            "representationDenied": self.representation_denied,
            "representationPurposeMissing": self.representation_purpose_missing,
            "eventDate": self.event_date,
            "userNote": self.user_note,
            "contextAnswerRaw": self.context_answer_raw,
            "openQuestion": None if question is None else question.to_json(),
        }
        if self.channel is not None:
            out["channel"] = self.channel
        return out


@dataclass(frozen=True, slots=True)
class Analysis:
    """``summary`` as ``summarise`` returns it, plus what was wrong with the
    record: one ``"<path>: <what was found>"`` entry per offending field,
    e.g. ``representation.purpose: expected a string, got number``. Empty for
    a well-formed record."""

    summary: Clarifications | None
    problems: tuple[str, ...]
