"""Reading a channel_context blob: the summary and what was wrong with it.

The column has no schema, so every field is checked where it is read. A
field of the wrong type is treated as absent and named in ``problems``;
nothing here raises for any JSON value. Where the reference is defined for
odd-but-typed data (a blank participant name, an ``"answered"`` question, an
``event_date`` of ``""``), the result is the reference's.
"""

from typing import Final

from clarifications.flattening import flatten
from clarifications.jstext import js_trim
from clarifications.model import (
    Analysis,
    Clarifications,
    OpenQuestion,
    Participant,
    Representation,
    new_analysis,
    new_clarifications,
)

KNOWN_CHANNELS: Final = frozenset({"whatsapp", "mail_hunt", "peppol"})
QUESTION_TYPES: Final = ("representation", "context", "resend")
OPEN_STATUSES: Final = ("open", "moved_to_app")
QUESTION_STATUSES: Final = ("open", "answered", "moved_to_app")

_MISSING: Final = object()
_NO_PROBLEMS: tuple[str, ...] = ()


def json_kind(value: object) -> str:
    """The JSON name of a value's type, for problem messages."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, (list, tuple)):
        return "array"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


def wrong_type(path: str, expected: str, value: object) -> str:
    return f"{path}: expected {expected}, got {json_kind(value)}"


def _unknown_value(path: str, value: str, known: tuple[str, ...]) -> str:
    import json  # only on this rare path: keeps the import off start-up

    shown = json.dumps(value[:60], ensure_ascii=False)
    return f"{path}: unknown value {shown} (expected one of {', '.join(known)})"


class Reading:
    """Every field the renderers use, read once and type-checked.

    ``participants`` holds the participants with a non-blank name whether or
    not the representation was denied: the summary drops them on a denial,
    the verifikat notes do not look at ``denied`` at all (as in the
    reference).
    """

    __slots__ = (
        "caption",
        "channel",
        "context_answer_raw",
        "denied",
        "event_date",
        "open_question",
        "participants",
        "problems",
        "purpose",
        "user_note",
    )

    def __init__(self) -> None:
        self.channel: str | None = None
        self.participants: tuple[Participant, ...] = ()
        self.purpose: str | None = None
        self.denied = False
        self.event_date: str | None = None
        self.user_note: str | None = None
        self.context_answer_raw: str | None = None
        self.open_question: OpenQuestion | None = None
        self.caption: str | None = None
        self.problems: list[str] = []

    def summary(self) -> Clarifications | None:
        """``summariseClarifications``: None when no human answered anything.

        An ``event_date`` alone is not an answer, and neither is a caption.
        """
        denied = self.denied
        participants = self.participants
        purpose = self.purpose
        representation = (
            Representation(participants, purpose) if not denied and (participants or purpose is not None) else None
        )
        if (
            representation is None
            and not denied
            and self.user_note is None
            and self.context_answer_raw is None
            and self.open_question is None
        ):
            return None
        return new_clarifications(
            representation,
            denied,
            not denied and bool(participants) and purpose is None,
            self.event_date,
            self.user_note,
            self.context_answer_raw,
            self.open_question,
            self.channel,
        )


def _trimmed_text(container: dict[str, object], key: str, path: str, problems: list[str]) -> str | None:
    """``container[key]?.trim() || null`` for a field that may be absent."""
    value = container.get(key)
    if isinstance(value, str):
        return js_trim(value) or None
    if value is not None:
        problems.append(wrong_type(path, "a string", value))
    return None


def _read_participants(value: object, problems: list[str]) -> tuple[Participant, ...]:
    if value is None:
        return ()
    if not isinstance(value, list):
        problems.append(wrong_type("representation.participants", "an array", value))
        return ()
    kept: list[Participant] = []
    for index, item in enumerate(value):
        if not isinstance(item, dict):
            problems.append(wrong_type(f"representation.participants[{index}]", "an object", item))
            continue
        name = item.get("name", _MISSING)
        if not isinstance(name, str):
            path = f"representation.participants[{index}].name"
            problems.append(f"{path}: missing" if name is _MISSING else wrong_type(path, "a string", name))
            continue
        company = item.get("company")
        well_formed = True
        if company is not None and not isinstance(company, str):
            problems.append(wrong_type(f"representation.participants[{index}].company", "a string", company))
            company = None
            well_formed = False
        # A blank name is dropped by design (the reference filters on
        # trim().length), so it is not a problem.
        if js_trim(name):
            # A snapshot, so the frozen summary does not change with the input.
            kept.append(Participant(name, company, source=dict(item) if well_formed else None))
    return tuple(kept)


def _read_representation(rep: dict[str, object], reading: Reading, problems: list[str]) -> None:
    denied = rep.get("denied")
    if denied is True:
        reading.denied = True
    elif denied is not None and denied is not False:
        # `rep.denied === true`: the string "true" is not a denial.
        problems.append(wrong_type("representation.denied", "true or false", denied))
    reading.participants = _read_participants(rep.get("participants"), problems)
    reading.purpose = _trimmed_text(rep, "purpose", "representation.purpose", problems)
    event_date = rep.get("event_date")
    if isinstance(event_date, str):
        reading.event_date = event_date  # carried untrimmed, "" included
    elif event_date is not None:
        problems.append(wrong_type("representation.event_date", "a string", event_date))


def _read_pending_question(pending: dict[str, object], problems: list[str]) -> OpenQuestion | None:
    question_type = pending.get("type", _MISSING)
    kept_type: str | None = None
    if isinstance(question_type, str):
        kept_type = question_type
        if question_type not in QUESTION_TYPES:
            problems.append(_unknown_value("pending_question.type", question_type, QUESTION_TYPES))
    elif question_type is _MISSING:
        problems.append("pending_question.type: missing")
    else:
        problems.append(wrong_type("pending_question.type", "a string", question_type))

    status = pending.get("status", _MISSING)
    if isinstance(status, str):
        if status in OPEN_STATUSES:
            return OpenQuestion(kept_type, status)
        if status not in QUESTION_STATUSES:
            problems.append(_unknown_value("pending_question.status", status, QUESTION_STATUSES))
    elif status is _MISSING:
        problems.append("pending_question.status: missing")
    else:
        problems.append(wrong_type("pending_question.status", "a string", status))
    return None


def read(channel_context: object) -> Reading:
    """Read every field once; the problems end up on ``reading.problems``."""
    reading = Reading()
    ctx = channel_context
    if ctx is None:
        return reading
    problems = reading.problems
    if not isinstance(ctx, dict):
        problems.append(wrong_type("channel_context", "an object", ctx))
        return reading

    channel = ctx.get("channel", _MISSING)
    if isinstance(channel, str):
        reading.channel = channel
        if channel not in KNOWN_CHANNELS and flatten(channel) != channel:
            problems.append("channel: contains white space or markdown (flattened in prompt lines)")
    elif channel is _MISSING:
        problems.append("channel: missing")
    else:
        problems.append(wrong_type("channel", "a string", channel))

    rep = ctx.get("representation")
    if isinstance(rep, dict):
        _read_representation(rep, reading, problems)
    elif rep is not None:
        problems.append(wrong_type("representation", "an object", rep))

    reading.user_note = _trimmed_text(ctx, "user_note", "user_note", problems)

    answer = ctx.get("context_answer")
    if isinstance(answer, dict):
        reading.context_answer_raw = _trimmed_text(answer, "raw_answer", "context_answer.raw_answer", problems)
    elif answer is not None:
        problems.append(wrong_type("context_answer", "an object", answer))

    pending = ctx.get("pending_question")
    if isinstance(pending, dict):
        reading.open_question = _read_pending_question(pending, problems)
    elif pending is not None:
        problems.append(wrong_type("pending_question", "an object", pending))

    reading.caption = _trimmed_text(ctx, "caption", "caption", problems)
    return reading


def analyse(channel_context: object) -> Analysis:
    """Summary and problems in one pass over the record.

    ``analyse({"channel": "whatsapp", "user_note": 7})`` gives no summary and
    ``("user_note: expected a string, got number",)``.
    """
    reading = read(channel_context)
    problems = tuple(reading.problems) if reading.problems else _NO_PROBLEMS
    return new_analysis(reading.summary(), problems)


def summarise(channel_context: object) -> Clarifications | None:
    """The seed's ``summariseClarifications``: None when nobody answered.

    A denial is an answer: ``{"representation": {"participants": [],
    "purpose": null, "denied": true}}`` summarises to
    ``representation_denied=True``, not to None.
    """
    return read(channel_context).summary()
