"""How much stored text one page or API answer may carry, and the cutting that keeps it there.

accounted's rows are written by other programs and can hold anything jsonb
accepts: a 26 MB string, 10 000 participants, JSON nested 5 000 deep. Shown
in full, such a row made a 173 MB item page. Every value a page
or an API answer takes from a stored row goes through a cap here; what is cut
is still one click away in full (``GET /items/<id>/raw/<column>/``, for
those who may see the raw JSON).

Behind the per-field caps is one cap for every printed text, however it
reaches a page or a JSON answer (``PRINTED_TEXT_MAX_CHARS``, below, and
where it is kept).

The bound: an item page or ``GET /api/items/<id>`` carries at most
``PAGE_MAX_CHARS`` characters of stored text. It is a sum of the per-field
caps below (``page_budget()`` adds them up; a test holds it under the bound).
It counts characters as stored: HTML or JSON escaping can make one character
up to six in the response (``&quot;``, ``\\u001b``), so the response itself
stays under about 6 MB in the worst case and about 1 MB in practice.

Pure functions and constants: no Django models, no database. The JSON
writer is iterative (a stack, no recursion), so nesting of any depth costs
memory in proportion to the depth, never a RecursionError, and it writes
into a buffer that stops growing at ``max_chars``.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from dataclasses import dataclass
from json.encoder import encode_basestring
from typing import Any, Final

from django.utils.formats import localize
from django.utils.translation import gettext as _

# --- The bound and the per-field caps that add up to it (characters) ---------

#: Stored text on one item page or one API answer, all fields together.
PAGE_MAX_CHARS: Final = 1_000_000

#: The raw channel_context (Support and QA): the page's <pre> and the API's text of it.
RAW_JSON_MAX_CHARS: Final = 200_000
#: Levels of JSON indented one per line; deeper levels are written on one
#: line each. Indenting every level makes the output grow with the square of
#: the depth (20 KB nested 5 000 deep printed as 48 MB).
JSON_INDENT_DEPTH: Final = 6

#: What the agent is told (the page's verbatim block, the API's "agent_view").
AGENT_VIEW_MAX_CHARS: Final = 100_000
#: The prompt lines (the API's "lines"; the page shows them inside the agent view).
LINES_MAX_CHARS: Final = 100_000
#: Each free-text value of the prompt lines (a note, a purpose, the
#: participants' names together) is rendered to at most this many
#: characters: one more than the lines and the agent view ever show, so a
#: value that renders whole within it is shown exactly, and a longer one is
#: cut and says so, in time bounded by this (``clarifications.render_item``),
#: not by the stored size (a 26 MB note once took 5-9 s per page).
RENDERED_VALUE_MAX_CHARS: Final = max(LINES_MAX_CHARS, AGENT_VIEW_MAX_CHARS) + 1

#: Each free-text thing the human said: purpose, event date, the two raw
#: answers, the note, the caption (``HUMAN_FIELDS`` of them).
HUMAN_TEXT_MAX_CHARS: Final = 10_000
HUMAN_FIELDS: Final = 6
#: The two raw answers once more, in pieces labelled by who wrote them (each
#: raw answer's pieces share one ``HUMAN_TEXT_MAX_CHARS``).
HUMAN_RAW_PIECES_FIELDS: Final = 2

#: Participants listed (the answer form prefills as many), and each one's name or company.
PARTICIPANTS_MAX: Final = 100
PERSON_TEXT_MAX_CHARS: Final = 300

#: Shape problems listed, and each one's text (it may quote a stored value).
PROBLEMS_MAX: Final = 20
PROBLEM_MAX_CHARS: Final = 500

#: Each short value of the header: supplier, company, file name, currency,
#: receipt date, source, status, error message, a linked item's supplier…
#: (at most ``SHORT_FIELDS`` of them on a page).
SHORT_TEXT_MAX_CHARS: Final = 500
SHORT_FIELDS: Final = 20

#: The history (up to 200 entries): all details, actors, changed keys and
#: agent lines before/after together, and one side of one change.
HISTORY_MAX_CHARS: Final = 150_000
CHANGE_LINES_MAX_CHARS: Final = 2_000

#: The conversation (up to 200 messages): all bodies and file names together,
#: and one message (WhatsApp's own limit for a text message).
TRANSCRIPT_MAX_CHARS: Final = 150_000
MESSAGE_MAX_CHARS: Final = 4_096

#: The answer form's prefilled values (participants, purpose, text).
ANSWER_FORM_MAX_CHARS: Final = 80_000

# --- The one cap every printed value goes through ------------------------------
#
# The caps above are per field: each gives a documented, shorter cut with a
# marker and a download where a page or the API knows the field. The cap
# below is the guarantee behind them, for every value however it reaches a
# page or a JSON answer: the Jinja2 environment's ``finalize``
# (``reviewapp.web.jinja``) cuts every printed text to it, the ``exact_text``
# filter of the verbatim blocks too, Django's form widgets are never
# pre-filled with more (``reviewapp.web.forms.renderer``), and every JSON answer
# of the API is cut by ``capped_for_json`` (``reviewapp.web.api_auth.json_response``).

#: Characters of one printed text (a value in a template, a string in a JSON
#: answer). Above every per-field cap (the raw JSON's 200 000 is the largest)
#: and above the 256 KiB the preview accepts per field, so nothing bounded
#: already (the prompt lines and agent view of an item or of a preview input,
#: a golden case saved from the preview) is ever cut by it.
PRINTED_TEXT_MAX_CHARS: Final = 300_000

#: Characters of one printed piece of HTML built in Python (a form field, a
#: macro's output, a translation with a stored value in it). Text escaped for
#: HTML grows by at most six times (``&#34;``), so only markup that cannot be
#: a capped text is ever replaced, by a note saying how long it was.
PRINTED_MARKUP_MAX_CHARS: Final = 6 * PRINTED_TEXT_MAX_CHARS


def page_budget() -> int:
    """The per-field caps added up: what one page or API answer can carry at most."""
    return (
        RAW_JSON_MAX_CHARS
        + AGENT_VIEW_MAX_CHARS
        + LINES_MAX_CHARS
        + (HUMAN_FIELDS + HUMAN_RAW_PIECES_FIELDS) * HUMAN_TEXT_MAX_CHARS
        + PARTICIPANTS_MAX * 2 * PERSON_TEXT_MAX_CHARS
        + PROBLEMS_MAX * PROBLEM_MAX_CHARS
        + SHORT_FIELDS * SHORT_TEXT_MAX_CHARS
        + HISTORY_MAX_CHARS
        + TRANSCRIPT_MAX_CHARS
        + ANSWER_FORM_MAX_CHARS
    )


# --- Cutting -----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class CappedText:
    """The first ``max_chars`` characters of a value's text, and how long all of it is.

    ``truncated`` is ``original_chars > len(text)``: the page says "showing
    the first … of …" and links the download.
    """

    text: str
    truncated: bool
    original_chars: int

    def __str__(self) -> str:
        return self.text


def capped_text(text: str, *, max_chars: int = HUMAN_TEXT_MAX_CHARS) -> CappedText:
    """``text`` cut to ``max_chars`` characters::

    capped_text("abcdef", max_chars=4)  # CappedText("abcd", truncated=True, original_chars=6)
    """
    if max_chars < 0:
        raise ValueError("max_chars must not be negative")
    return CappedText(text[:max_chars], len(text) > max_chars, len(text))


def capped_for_json(value: Any, *, max_chars: int = PRINTED_TEXT_MAX_CHARS) -> Any:
    """``value`` (what a JSON answer holds) with every string and key cut to ``max_chars``.

    A value that needs no cut comes back as it is (the same object). A cut
    string is recorded as the API records the per-field cuts: its object
    gains ``"truncated": {name: original length}``, where ``name`` is the
    member's key, or its path from the nearest object for a string inside
    lists (``"lines.3"``). An object whose own ``"truncated"`` is not an
    object keeps it (the cut string then says nothing more). Walks with a
    stack, so no nesting depth raises ``RecursionError``.
    """
    if not _needs_cut(value, max_chars):
        return value
    return _cut_copy(value, max_chars)


def _needs_cut(root: Any, max_chars: int) -> bool:
    stack = [root]
    while stack:
        node = stack.pop()
        if isinstance(node, str):
            if len(node) > max_chars:
                return True
        elif isinstance(node, dict):
            for key, member in node.items():
                if isinstance(key, str) and len(key) > max_chars:
                    return True
                stack.append(member)
        elif isinstance(node, list | tuple):
            stack.extend(node)
    return False


def _cut_copy(root: Any, max_chars: int) -> Any:
    """A copy of ``root`` with long strings and keys cut (see ``capped_for_json``)."""
    holder: list[Any] = [None]
    objects: list[tuple[dict[Any, Any], dict[str, int]]] = []
    # Each entry: the value to copy, the container its copy goes in and where,
    # the cuts of the nearest object and the path from it.
    stack: list[tuple[Any, Any, Any, dict[str, int] | None, str]] = [(root, holder, 0, None, "")]
    while stack:
        node, into, where, cuts, path = stack.pop()
        if isinstance(node, str):
            if len(node) > max_chars:
                if cuts is not None:
                    cuts[path] = len(node)
                node = node[:max_chars]
            into[where] = node
        elif isinstance(node, dict):
            copy: dict[Any, Any] = {}
            own: dict[str, int] = {}
            for key, member in node.items():
                name = key
                if isinstance(key, str) and len(key) > max_chars:
                    name = key[:max_chars]
                    own[name] = len(key)
                copy[name] = None
                stack.append((member, copy, name, own, str(name)))
            objects.append((copy, own))
            into[where] = copy
        elif isinstance(node, list | tuple):
            items: list[Any] = [None] * len(node)
            for index, member in enumerate(node):
                stack.append((member, items, index, cuts, f"{path}.{index}" if path else str(index)))
            into[where] = items
        else:
            into[where] = node
    for copy, own in objects:
        known = copy.get("truncated")
        if own and (known is None or isinstance(known, dict)):
            copy["truncated"] = {**(known or {}), **own}
    return holder[0]


class TextBudget:
    """A section's shared allowance (the history, the conversation), spent field by field.

    Each ``take`` is cut to its own cap and to what is left, so a list of any
    length never carries more than ``total`` characters::

        budget = TextBudget(TRANSCRIPT_MAX_CHARS)
        bodies = [budget.take(m.body, max_chars=MESSAGE_MAX_CHARS) for m in messages]
    """

    def __init__(self, total: int) -> None:
        self.remaining = total

    def take(self, text: str, *, max_chars: int) -> CappedText:
        capped = capped_text(text, max_chars=max(0, min(max_chars, self.remaining)))
        self.remaining -= len(capped.text)
        return capped


# Strings longer than this are escaped piece by piece, so a 26 MB string
# never exists twice (escaped) in memory.
_CHUNK: Final = 64 * 1024
#: Text in a value ``capped_json`` writes whole with ``json.dumps`` (memory: about that many bytes).
_DUMPED_MAX_CHARS: Final = 8_000_000
_END: Final = object()


def capped_json(value: Any, *, max_chars: int = RAW_JSON_MAX_CHARS, max_depth: int = JSON_INDENT_DEPTH) -> CappedText:
    """``value`` as JSON text, indented for ``max_depth`` levels, cut at ``max_chars``.

    Containers at depth ``max_depth`` and below are written on one line, as
    ``json.dumps`` writes them without ``indent``; above it, exactly as
    ``json.dumps(value, indent=2, ensure_ascii=False)``. So no line is
    indented by more than ``2 * max_depth`` spaces and the text grows with
    the value, not with the square of its depth::

        capped_json({"a": {"b": [1]}}, max_depth=1).text  # '{\\n  "a": {"b": [1]}\\n}'

    A value indented throughout with up to 8 M characters of text is
    written by ``json.dumps`` in C and cut (``_dumped``). Otherwise only ``max_chars`` characters are ever kept, and
    the rest of the value is still walked (without writing) to count
    ``original_chars``, the length the whole text would have: that costs
    time in proportion to the value (a 26 MB string is counted in 64 KB
    pieces), and no memory.

    A value JSON cannot spell is written the way ``json.dumps`` would, or
    close: an integer Python refuses to print (past 4 300 digits) becomes a
    string saying how many digits it has, anything else not JSON its ``str``.
    """
    if max_chars < 0:
        raise ValueError("max_chars must not be negative")
    whole = _dumped(value, max_depth)
    if whole is not None:
        return CappedText(whole[:max_chars], len(whole) > max_chars, len(whole))
    kept: list[str] = []
    room = max_chars
    total = 0
    for piece in _pieces(value, max_depth):
        total += len(piece)
        if room > 0:
            part = piece[:room]
            kept.append(part)
            room -= len(part)
    return CappedText("".join(kept), total > max_chars, total)


def _dumped(value: Any, max_depth: int) -> str | None:
    """The text ``_pieces`` writes, by ``json.dumps`` in C, or None where they could differ.

    They are the same text when every non-empty container is indented
    (``max_depth`` 0: none is), and the value is JSON Python can print. A
    100 000-participant context took 1.5 s through ``_pieces`` alone, twice
    per item page (the raw panel, and the API's length of it); the walk
    below looks only at containers, and the writing is ``json``'s own. A
    value with more text than ``_DUMPED_MAX_CHARS`` stays with ``_pieces``,
    which never holds the whole text (one 26 MB string costs it little).
    """
    if not _small_and_indented_throughout(value, max_depth):
        return None
    try:
        return json.dumps(value, ensure_ascii=False, indent=2 if max_depth > 0 else None)
    except (TypeError, ValueError, RecursionError):  # not JSON, an integer past the digit limit, deep
        return None


def _small_and_indented_throughout(root: Any, max_depth: int) -> bool:
    """Whether every non-empty container of ``root`` is above depth ``max_depth``, and its texts
    together are at most ``_DUMPED_MAX_CHARS`` (so writing it whole costs little memory)."""
    if isinstance(root, str):
        return len(root) <= _DUMPED_MAX_CHARS
    if not isinstance(root, dict | list | tuple):
        return True
    chars = 0
    stack: list[tuple[Any, int]] = [(root, 0)]
    while stack:
        node, level = stack.pop()
        if isinstance(node, dict):
            members = list(node.values())
            chars += sum(len(key) for key in node if isinstance(key, str))
        else:
            members = list(node)
        if not members:
            continue
        if level >= max_depth and max_depth > 0:
            return False
        chars += sum(len(member) for member in members if isinstance(member, str))
        if chars > _DUMPED_MAX_CHARS:
            return False
        stack.extend((member, level + 1) for member in members if isinstance(member, dict | list | tuple))
    return True


def _pieces(root: Any, max_depth: int) -> Iterator[str]:
    """The JSON text of ``root`` in small pieces, without recursion.

    Each open container is an entry on ``stack``: its iterator, whether it is
    an object, its depth and whether its first member is still to come.
    """
    stack: list[tuple[Iterator[Any], bool, int, list[bool]]] = []
    value, depth = root, 0
    while True:
        if isinstance(value, dict) and value:
            yield "{"
            stack.append((iter(value.items()), True, depth, [True]))
        elif isinstance(value, list | tuple) and value:
            yield "["
            stack.append((iter(value), False, depth, [True]))
        else:
            yield from _scalar(value)
        while stack:
            members, is_object, level, first = stack[-1]
            member: Any = next(members, _END)
            indented = level < max_depth
            if member is _END:
                stack.pop()
                if indented:
                    yield "\n" + "  " * level
                yield "}" if is_object else "]"
                continue
            separator = "" if first[0] else ("," if indented else ", ")
            first[0] = False
            yield separator + ("\n" + "  " * (level + 1) if indented else "")
            if is_object:
                key, value = member
                yield from _string(_key(key))
                yield ": "
            else:
                value = member
            depth = level + 1
            break
        else:
            return


def _key(key: object) -> str:
    """An object key as ``json.dumps`` spells a non-string one."""
    if isinstance(key, str):
        return key
    if key is None or isinstance(key, bool | int | float):
        return "".join(_scalar(key))
    return str(key)


def _scalar(value: object) -> Iterator[str]:
    if value is None:
        yield "null"
    elif value is True:
        yield "true"
    elif value is False:
        yield "false"
    elif isinstance(value, str):
        yield from _string(value)
    elif isinstance(value, int):
        try:
            yield int.__repr__(value)
        except ValueError:  # past sys.get_int_max_str_digits()
            digits = int(value.bit_length() * math.log10(2)) + 1
            yield from _string(f"<an integer of about {digits} digits>")
    elif isinstance(value, float):
        if math.isnan(value):
            yield "NaN"
        elif math.isinf(value):
            yield "Infinity" if value > 0 else "-Infinity"
        else:
            yield float.__repr__(value)
    elif isinstance(value, dict | list | tuple):  # empty
        yield "{}" if isinstance(value, dict) else "[]"
    else:
        yield from _string(str(value))


def _string(text: str) -> Iterator[str]:
    if len(text) <= _CHUNK:
        yield encode_basestring(text)
        return
    yield '"'
    for start in range(0, len(text), _CHUNK):
        yield encode_basestring(text[start : start + _CHUNK])[1:-1]
    yield '"'


def cut_note(original_chars: int, shown_chars: int = PRINTED_TEXT_MAX_CHARS) -> str:
    """The plain-text mark after a cut text, in the reader's language.

    Plain text, never HTML: the printed cap cuts wherever a value is
    printed, in an attribute as well as in a ``<pre>``.
    """
    return _(" … [cut: the first %(shown)s of %(total)s characters are shown]") % {
        "shown": localize(shown_chars),
        "total": localize(original_chars),
    }


def noted_cut(text: str, max_chars: int) -> str:
    """``text`` whole when it has at most ``max_chars`` characters, else cut there and marked with ``cut_note``::

    noted_cut("abcdef", 4)  # "abcd … [cut: the first 4 of 6 characters are shown]"
    """
    if len(text) <= max_chars:
        return text
    return text[:max_chars] + cut_note(len(text), max_chars)
