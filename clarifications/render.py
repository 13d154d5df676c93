"""The three texts made from a channel_context: prompt lines, verifikat notes
and the categorisation agent's view of one linked inbox underlag."""

from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

from clarifications import phrases as ph
from clarifications.flattening import flatten, flatten_prefix
from clarifications.jstext import has_astral, js_trim, js_trim_end, utf16_length, utf16_prefix
from clarifications.model import Clarifications, OpenQuestion, Participant
from clarifications.numbers import format_sv
from clarifications.reading import Reading, read, wrong_type

#: Cap on the verifikat notes line, in UTF-16 code units (JavaScript length).
NOTES_MAX: Final = 220

_DROPPED_WIDTH: Final = len(ph.NOTES_DROPPED.format(count=""))
_WHAT: Final = {"representation": ph.ASK_REPRESENTATION, "resend": ph.ASK_RESEND}


def _open_question_line(question: OpenQuestion, channel: str | None, flat: Callable[[str], str] = flatten) -> str:
    if channel == "whatsapp":
        via = ph.WHATSAPP_LABEL
    elif channel is None:
        via = ph.MISSING_CHANNEL_LABEL
    else:
        # The reference prints the channel raw; flattening keeps the
        # one-line guarantee and is the identity for every real channel.
        via = flat(channel)
    what = _WHAT.get(question.type or "", ph.ASK_CONTEXT)
    where = (ph.WHERE_MOVED_TO_APP if question.status == "moved_to_app" else ph.WHERE_OPEN).format(via=via)
    return ph.OPEN_QUESTION_LINE.format(what=what, where=where)


def render_lines(c: Clarifications | None) -> list[str]:
    """The seed's ``renderClarificationLines``: Swedish prompt lines.

    Every free-text value is flattened, so no line starts a markdown block or
    spans two lines. A context answer identical to the note (after trimming)
    is not repeated. ``render_lines(None)`` is ``[]``. A value that is
    non-blank but flattens to nothing keeps its line, as in the reference:
    a note of ``"#"`` renders ``"anteckning från användaren: "``.
    """
    return _render_lines(c, None).lines


@dataclass(frozen=True, slots=True)
class BoundedLines:
    """The prompt lines with each free-text value rendered to at most a bound.

    ``whole``: every value was rendered whole, so ``lines`` is exactly
    ``render_lines``. Otherwise each cut value (the participants' names
    together count as one) is exactly the first ``max_value_chars``
    characters of what ``render_lines`` would have put there, or fewer (see
    ``flatten_prefix``), and ``most_chars`` is at least the length of
    ``"\n".join(render_lines(c))``: the cut values counted as stored, since
    flattening never lengthens a text. When ``whole`` it is that length.
    """

    lines: list[str]
    whole: bool
    most_chars: int


def render_lines_bounded(c: Clarifications | None, max_value_chars: int) -> BoundedLines:
    """``render_lines`` in time bounded by ``max_value_chars``, whatever the size of the values.

    A value whose rendering fits is rendered exactly as by ``render_lines``;
    a larger one is cut (``BoundedLines``), without reading more than a
    window of it: a 26 MB note costs what a 2 MB one does.
    """
    if max_value_chars < 0:
        raise ValueError("max_value_chars must not be negative")
    return _render_lines(c, max_value_chars)


class _Flat:
    """``flatten``, or with a bound ``flatten_prefix``, counting what a cut left out."""

    __slots__ = ("bound", "left_out", "whole")

    def __init__(self, bound: int | None) -> None:
        self.bound = bound
        self.whole = True
        self.left_out = 0  # stored characters not rendered, an upper bound on what the cuts hid

    def __call__(self, text: str) -> str:
        return self.part(text)[0]

    def part(self, text: str, *, at_least: int = 0) -> tuple[str, bool]:
        """The value flattened, or its exact start (``at_least`` characters if it has them), and whether it is whole."""
        if self.bound is None:
            return flatten(text), True
        flat, whole = flatten_prefix(text, max(self.bound, at_least))
        if not whole:
            self.whole = False
            self.left_out += len(text) - len(flat)
        return flat, whole

    def skip(self, participants: tuple[Participant, ...]) -> None:
        """Participants not rendered at all: counted as stored, with their separators."""
        self.whole = False
        extra = len(ph.COMPANY_OPEN + ph.COMPANY_CLOSE + ph.PARTICIPANT_SEPARATOR)
        self.left_out += sum(len(p.name) + len(p.company or "") + extra for p in participants)


def _names(participants: tuple[Participant, ...], flat: _Flat) -> list[str]:
    """Each participant's part of the line; with a bound, only as many as fill it.

    A part whose name or company is cut ends the list there, so the names
    joined are always the exact start of the reference's.
    """
    names: list[str] = []
    joined = 0  # the length of the names joined so far
    for index, participant in enumerate(participants):
        if flat.bound is not None and names and joined >= flat.bound:
            flat.skip(participants[index:])
            break
        # At least a character of each, so a cut one is known not to be empty
        # (the names joined are cut to the bound at the end).
        name, whole = flat.part(participant.name, at_least=1)
        if not whole:  # a name longer than the bound: not empty, and the end of what is known
            names.append(name)
            flat.left_out += len(participant.company or "") + len(ph.COMPANY_OPEN + ph.COMPANY_CLOSE)
            flat.skip(participants[index + 1 :])
            break
        company, whole = flat.part(participant.company, at_least=1) if participant.company else (None, True)
        if not whole:
            # Known: the company is not empty (then "name (company…"), or the
            # window saw only block markers (then only the name is known to
            # come, and nothing at all if the name is empty: a part, even the
            # line, that the reference may have is then left out, still cut).
            if company:
                names.append(name + ph.COMPANY_OPEN + company)
            elif name:
                names.append(name)
            flat.left_out += len(participant.company or "") + len(ph.COMPANY_OPEN + ph.COMPANY_CLOSE)
            flat.skip(participants[index + 1 :])
            break
        if company:
            names.append(name + ph.COMPANY_OPEN + company + ph.COMPANY_CLOSE)
        elif name:
            names.append(name)
        else:
            continue
        joined += len(names[-1]) + (len(ph.PARTICIPANT_SEPARATOR) if len(names) > 1 else 0)
    return names


def _render_lines(c: Clarifications | None, bound: int | None) -> BoundedLines:
    if c is None:
        return BoundedLines([], True, 0)
    flat = _Flat(bound)
    lines: list[str] = []
    representation = c.representation
    if representation is not None:
        names = _names(representation.participants, flat)
        if not names and not flat.whole:
            # The window saw nothing of the first participant but block markers, so the
            # line is left out (_names); the reference's may be there: count its prefix
            # and its line break, so lines_most_chars stays a bound on the whole lines.
            flat.left_out += len(ph.PARTICIPANTS_PREFIX) + 1
        if names:
            joined = ph.PARTICIPANT_SEPARATOR.join(names)
            if bound is not None and len(joined) > bound:
                flat.whole = False
                flat.left_out += len(joined) - bound
                joined = joined[:bound]
            lines.append(ph.PARTICIPANTS_PREFIX + joined)
        if representation.purpose:
            lines.append(ph.PURPOSE_PREFIX + flat(representation.purpose))
    if c.event_date:
        lines.append(ph.EVENT_DATE_PREFIX + flat(c.event_date))
    if c.representation_purpose_missing:
        lines.append(ph.PURPOSE_MISSING_LINE)
    if c.representation_denied:
        lines.append(ph.DENIED_LINE)
    user_note = c.user_note
    if user_note:
        lines.append(ph.USER_NOTE_PREFIX + flat(user_note))
    answer = c.context_answer_raw
    if answer and answer != user_note:
        lines.append(ph.CONTEXT_ANSWER_PREFIX + flat(answer))
    if c.open_question is not None:
        lines.append(_open_question_line(c.open_question, c.channel, flat))
    shown = sum(len(line) for line in lines) + max(len(lines) - 1, 0) if bound is not None else 0
    return BoundedLines(lines, flat.whole, shown + flat.left_out)


def _note_name(participant: Participant) -> str:
    name = js_trim(participant.name)
    company = js_trim(participant.company) if participant.company else ""
    return name + ph.COMPANY_OPEN + company + ph.COMPANY_CLOSE if company else name


def _cap(line: str) -> str:
    if utf16_length(line) <= NOTES_MAX:
        return line
    return js_trim_end(utf16_prefix(line, NOTES_MAX - 1)) + ph.NOTES_ELLIPSIS


def _names_part(names: list[str], keep: int) -> str:
    dropped = len(names) - keep
    suffix = ph.NOTES_DROPPED.format(count=dropped) if dropped else ""
    return ph.NOTES_REPRESENTATION_PREFIX + ph.PARTICIPANT_SEPARATOR.join(names[:keep]) + suffix


def notes_from(reading: Reading) -> str | None:
    """``renderChannelContextNotes(ctx, {includeCaption: true})``."""
    names = [_note_name(p) for p in reading.participants]
    purpose = reading.purpose
    user_note = reading.user_note
    if not names and not purpose and not user_note:
        caption = reading.caption
        return _cap(caption) if caption else None

    tail_parts = []
    if purpose:
        tail_parts.append(ph.NOTES_PURPOSE_PREFIX + purpose)
    if user_note:
        tail_parts.append(user_note)
    tail = ph.NOTES_SEPARATOR.join(tail_parts)
    if not names:
        return _cap(tail)

    line = _names_part(names, len(names))
    if tail:
        line += ph.NOTES_SEPARATOR + tail
    # Each code point is at most two UTF-16 units, so short lines fit as is.
    if len(line) * 2 <= NOTES_MAX or utf16_length(line) <= NOTES_MAX:
        return line

    # Drop whole names from the end until the line fits, keeping at least
    # one, as the reference does; lengths are summed instead of rebuilding
    # the line per attempt so a record with thousands of names stays linear.
    fixed = len(ph.NOTES_REPRESENTATION_PREFIX) + (len(ph.NOTES_SEPARATOR) + utf16_length(tail) if tail else 0)
    widths = [utf16_length(n) for n in names] if has_astral(line) else [len(n) for n in names]
    separator = len(ph.PARTICIPANT_SEPARATOR)
    running = sum(widths) + separator * (len(names) - 1)
    for keep in range(len(names) - 1, 0, -1):
        running -= widths[keep] + separator
        dropped = _DROPPED_WIDTH + len(str(len(names) - keep))
        if fixed + running + dropped <= NOTES_MAX:
            break
    else:
        keep = 1
    line = _names_part(names, keep)
    if tail:
        line += ph.NOTES_SEPARATOR + tail
    return _cap(line)


def render_notes(channel_context: object) -> str | None:
    """The one-line verifikat text for the same record, or None.

    ``Representation: <names> · Syfte: <purpose> · <note>``; without names,
    purpose and note, the trimmed caption alone. Capped at 220 UTF-16 units,
    first by dropping whole names (``… och 3 till``), then by cutting to 219
    units plus ``…``. Not flattened: it is voucher text, not a prompt. A
    denial by itself gives None.

    Like the reference, a cut that falls inside an astral character keeps a
    lone high surrogate (``"…\\ud83d…"``); encode with ``surrogatepass`` or
    escape it before writing the text anywhere that demands valid UTF-8.
    """
    return notes_from(read(channel_context))


_NOTHING: Final[dict[str, object]] = {}  # stands in for an absent object; never written to


def _object(value: object, path: str, problems: list[str]) -> dict[str, object]:
    if isinstance(value, dict):
        return value
    if value is not None:
        problems.append(wrong_type(path, "an object", value))
    return _NOTHING


def _text(value: object, path: str, problems: list[str]) -> str | None:
    if value is None or isinstance(value, str):
        return value
    problems.append(wrong_type(path, "a string", value))
    return None


def _amount(value: object, path: str, problems: list[str]) -> str | None:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return format_sv(value)
    if value is not None:
        problems.append(wrong_type(path, "a number", value))
    return None


def agent_bullet(document_id: object, extracted_data: object, problems: list[str]) -> str:
    """The ``  • invoice_inbox: …`` line; problems are appended, ``item.``-pathed.

    Extracted data is machine output shown as the reference shows it: not
    flattened. An empty currency string is kept (``total=5 ``), because the
    reference defaults only a missing one (``currency ?? 'SEK'``).
    """
    parts: list[str] = []
    document_id = _text(document_id, "item.document_id", problems)
    if document_id:
        parts.append(ph.AGENT_DOCUMENT_ID + document_id)
    data = _object(extracted_data, "item.extracted_data", problems)
    supplier = _object(data.get("supplier"), "item.extracted_data.supplier", problems)
    invoice = _object(data.get("invoice"), "item.extracted_data.invoice", problems)
    totals = _object(data.get("totals"), "item.extracted_data.totals", problems)

    name = _text(supplier.get("name"), "item.extracted_data.supplier.name", problems)
    if name:
        parts.append(ph.AGENT_SUPPLIER + name)
    date = _text(invoice.get("invoiceDate"), "item.extracted_data.invoice.invoiceDate", problems)
    if date:
        parts.append(ph.AGENT_DATE + date)
    currency = _text(invoice.get("currency"), "item.extracted_data.invoice.currency", problems)
    currency = " " + (ph.AGENT_DEFAULT_CURRENCY if currency is None else currency)
    total = _amount(totals.get("total"), "item.extracted_data.totals.total", problems)
    if total is not None:
        parts.append(ph.AGENT_TOTAL + total + currency)
    vat = _amount(totals.get("vatAmount"), "item.extracted_data.totals.vatAmount", problems)
    if vat is not None:
        parts.append(ph.AGENT_VAT + vat + currency)
    return ph.AGENT_BULLET_PREFIX + (ph.AGENT_PART_SEPARATOR.join(parts) if parts else ph.AGENT_NO_DATA)


def agent_view(bullet: str, lines: list[str]) -> list[str]:
    """Bullet, indented clarification lines, and the guidance only if any."""
    if not lines:
        return [bullet]
    view = [bullet]
    view.extend([ph.AGENT_CLARIFICATION_INDENT + line for line in lines])
    view.append("")
    view.append(ph.AGENT_GUIDANCE)
    return view


def render_agent_view(document_id: object, extracted_data: object, channel_context: object) -> list[str]:
    """What the categorisation agent is shown for one linked inbox underlag.

    The guidance paragraph is gated on rendered lines, not on the context
    being present: a context holding only a caption renders the bare bullet.
    """
    bullet = agent_bullet(document_id, extracted_data, [])
    return agent_view(bullet, render_lines(read(channel_context).summary()))
