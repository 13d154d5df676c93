"""Why a row matched the list's search: the fields that hold the words, with the words marked.

The search itself is one ``LIKE`` per word on the read model's lower-cased
``search_text`` (``IndexedItemQuerySet.search``), which cannot say where a
word was found. The read model keeps the same texts field by field
(``IndexedItem.search_fields``), and this module looks the words up again
there, for the rows of one page only: the list's speed does not depend on
it. A word is looked up as the search does, lower-cased and anywhere
inside a text, and marked as the whole word it was found in: "scand"
marks "Scandic". A word shorter than ``MIN_INSIDE_CHARS`` is marked only
where it stands alone, so the "i" of "Hotell i Malmö" is marked and the
"i" inside "Scandic" is not (a row the search found only through such a
letter inside a word names no field for it).

A long text is shown as a window of about ``SNIPPET_CHARS`` around its
first mark, cut where a word ends, never inside one.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Final

from django.utils.functional import Promise
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext_lazy as _

from reviewapp.core import states

ITEM_ID: Final = "id"
# A colleague's note in the app (reviewapp.items.notes): not in the read model, looked up per page.
TEAM_NOTE: Final = "team_note"

FIELD_LABELS: Final[dict[str, Promise]] = {
    states.SUPPLIER: _("Supplier"),
    states.NOTE: _("Note"),
    # What is stored in raw_answer: the customer's words or a text naming the
    # firm as its writer, so it is named by what it is, not as a quote.
    states.RAW_ANSWER: _("Stored answer (raw_answer)"),
    states.PURPOSE: _("Purpose"),
    states.PARTICIPANT: _("Participant"),
    states.PARTICIPANT_COMPANY: _("Participant's company"),
    ITEM_ID: _("Item id"),
    TEAM_NOTE: _("Team note"),
}

#: How much of a long text is shown around its first match.
SNIPPET_CHARS: Final = 120
#: Shown before the first match when the snippet starts inside the text.
LEAD_CHARS: Final = 30
#: The most fields named for one row.
MAX_FIELDS: Final = 4
#: A shorter search word is marked only as a whole word, not inside another.
MIN_INSIDE_CHARS: Final = 3

_WORD_CHAR: Final = re.compile(r"\w")


@dataclass(frozen=True, slots=True)
class Match:
    """One field a row's search matched in: its name and the text with the words in ``<mark>``."""

    field: str
    label: str
    html: SafeString  # escaped text, the matched words in <mark>


def _lowered(text: str) -> tuple[str, list[int]]:
    """``text`` lower-cased as the search text is, and for each of its characters the one it came from.

    ``str.lower`` may lengthen a character ("İ" becomes two), so positions
    in the lower-cased text are mapped back before marking.
    """
    lowered: list[str] = []
    origin: list[int] = []
    for position, char in enumerate(text):
        low = char.lower()
        lowered.append(low)
        origin.extend([position] * len(low))
    return "".join(lowered), origin


def _is_word_char(text: str, position: int) -> bool:
    return 0 <= position < len(text) and bool(_WORD_CHAR.match(text[position]))


def _word_around(text: str, start: int, end: int) -> tuple[int, int]:
    """``text[start:end]`` widened to the whole word (or words) it lies in."""
    while _is_word_char(text, start - 1):
        start -= 1
    while _is_word_char(text, end):
        end += 1
    return start, end


def _spans(text: str, words: Sequence[str]) -> list[tuple[int, int]]:
    """The whole words of ``text`` that hold a search word (case as the search ignores it), merged where they touch."""
    lowered, origin = _lowered(text)
    found: list[tuple[int, int]] = []
    for word in words:
        start = lowered.find(word)
        while start != -1:
            end = start + len(word)
            whole_start, whole_end = _word_around(lowered, start, end)
            if len(word) >= MIN_INSIDE_CHARS or (whole_start, whole_end) == (start, end):
                found.append((origin[whole_start], origin[whole_end - 1] + 1))
            start = lowered.find(word, end)
    merged: list[tuple[int, int]] = []
    for start, end in sorted(found):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    return merged


def marked(text: str, spans: Iterable[tuple[int, int]]) -> SafeString:
    """``text`` escaped, each span in ``<mark>``; a long text cut to a window around the first span.

    ``marked("Lunch med Anna", [(10, 14)])`` → ``"Lunch med <mark>Anna</mark>"``.
    """
    spans = list(spans)
    window_start, window_end = 0, len(text)
    if len(text) > SNIPPET_CHARS:
        first = spans[0][0] if spans else 0
        window_start = max(0, min(first - LEAD_CHARS, len(text) - SNIPPET_CHARS))
        window_end = window_start + SNIPPET_CHARS
        # Cut between words: the start moves on past a cut word (never past
        # the first mark), the end back before one (never into the first mark).
        if _is_word_char(text, window_start - 1):
            window_start = min(_word_around(text, window_start, window_start)[1], first)
        if _is_word_char(text, window_end) and _is_word_char(text, window_end - 1):
            cut = _word_around(text, window_end, window_end)[0]
            window_end = cut if cut > max(first, window_start) else window_end
        while window_start < window_end and text[window_start].isspace():
            window_start += 1
        while window_end > window_start and text[window_end - 1].isspace():
            window_end -= 1
    parts = ["…" if window_start else ""]
    at = window_start
    for start, end in spans:
        start, end = max(start, window_start), min(end, window_end)
        if start >= end:
            continue
        parts.append(escape(text[at:start]))
        parts.append(f"<mark>{escape(text[start:end])}</mark>")
        at = end
    parts.append(escape(text[at:window_end]))
    parts.append("…" if window_end < len(text) else "")
    return mark_safe("".join(parts))  # noqa: S308  every piece of text is escaped above


def _id_match(item_id: uuid.UUID, query: str) -> SafeString | None:
    """The item id with the hex digits the search named as its start marked, or None."""
    digits = query.lower().replace("-", "")
    if len(digits) < 8 or not item_id.hex.startswith(digits):
        return None
    shown = str(item_id)
    end, seen = 0, 0
    while seen < len(digits):
        seen += shown[end] != "-"
        end += 1
    return marked(shown, [(0, end)])


def row_matches(item_id: uuid.UUID, search_fields: Any, query: str) -> list[Match]:
    """The fields of one row that hold a word of ``query``, in the order the read model keeps them.

    ``search_fields`` is the row's ``IndexedItem.search_fields``
    (``[[key, text], ...]``); anything else there is skipped, never an error.
    """
    words = list(dict.fromkeys(query.lower().split()))
    if not words:
        return []
    found: list[Match] = []
    id_html = _id_match(item_id, query.strip())
    if id_html is not None:
        found.append(Match(ITEM_ID, str(FIELD_LABELS[ITEM_ID]), id_html))
    for pair in search_fields if isinstance(search_fields, list) else []:
        if len(found) >= MAX_FIELDS:
            break
        if not (isinstance(pair, list | tuple) and len(pair) == 2 and all(isinstance(part, str) for part in pair)):
            continue
        key, text = pair
        spans = _spans(text, words)
        if spans:
            label = FIELD_LABELS.get(key)
            found.append(Match(key, str(label) if label is not None else key, marked(text, spans)))
    return found


def note_matches(texts: Iterable[str], query: str) -> list[Match]:
    """Colleagues' notes that hold a word of ``query``, as matches (at most ``MAX_FIELDS``)."""
    words = list(dict.fromkeys(query.lower().split()))
    found: list[Match] = []
    for text in texts:
        spans = _spans(text, words) if words else []
        if spans and len(found) < MAX_FIELDS:
            found.append(Match(TEAM_NOTE, str(FIELD_LABELS[TEAM_NOTE]), marked(text, spans)))
    return found
