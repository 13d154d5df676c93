"""The structured view of a channel_context: plain frozen values."""

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields

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


# --- Construction on the per-row path ---------------------------------------
# A frozen dataclass's __init__ assigns every field through
# object.__setattr__, which for the eight fields of Clarifications is a large
# part of summarising a row. The reader builds these two objects once per row,
# so it fills the slots directly instead: the same value (tested against the
# dataclass constructor), about twice as fast. Nothing here validates, and
# neither does the dataclass (there is no __post_init__).

Setter = Callable[[object, object], None]


def _slot_setters(cls: type) -> tuple[Setter, ...]:
    return tuple(cls.__dict__[f.name].__set__ for f in fields(cls))


_new = object.__new__
_SET_CLARIFICATIONS = _slot_setters(Clarifications)
_SET_ANALYSIS = _slot_setters(Analysis)


def new_clarifications(
    representation: Representation | None,
    representation_denied: bool,
    representation_purpose_missing: bool,
    event_date: str | None,
    user_note: str | None,
    context_answer_raw: str | None,
    open_question: OpenQuestion | None,
    channel: str | None,
) -> Clarifications:
    """``Clarifications(...)`` with the same positional fields, faster."""
    obj: Clarifications = _new(Clarifications)
    s0, s1, s2, s3, s4, s5, s6, s7 = _SET_CLARIFICATIONS
    s0(obj, representation)
    s1(obj, representation_denied)
    s2(obj, representation_purpose_missing)
    s3(obj, event_date)
    s4(obj, user_note)
    s5(obj, context_answer_raw)
    s6(obj, open_question)
    s7(obj, channel)
    return obj


def new_analysis(summary: Clarifications | None, problems: tuple[str, ...]) -> Analysis:
    """``Analysis(summary, problems)``, faster."""
    obj: Analysis = _new(Analysis)
    set_summary, set_problems = _SET_ANALYSIS
    set_summary(obj, summary)
    set_problems(obj, problems)
    return obj
