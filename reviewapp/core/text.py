"""Text people type: what may be stored, what counts as empty. One place for every answer field.

Three kinds of character are treated specially:

- control characters (C0, C1, DEL) and lone UTF-16 surrogates are refused:
  PostgreSQL cannot store ``\\u0000`` or a lone surrogate in jsonb, and the
  others are invisible in a prompt line or on the verifikat. Free text keeps
  tab and line feed (``\\r\\n`` and ``\\r`` become ``\\n`` first);
- bidirectional controls (U+202A–U+202E, U+2066–U+2069, U+200E, U+200F,
  U+061C) are refused: they make text display in another order than it is
  stored, so a line can read differently on screen, in the prompt and on the
  verifikat;
- other invisible characters (Unicode category Cf such as U+200B, U+200D,
  U+2060, U+FEFF, and the Hangul and braille fillers) are kept inside text,
  where they can be meaningful (an emoji sequence, a Persian name), but a
  value made only of them and white space is blank::

      is_blank("\\u200b \\u2060")  # True: nothing anybody can see

A text's length is counted as accounted counts it (``length``): in UTF-16
code units, JavaScript's ``String.prototype.length``, so an emoji is two and
a flag or a skin-toned emoji four. The answer form's counter counts the same
way (``static/js/answer.js``, ``charCount``); docs/screens.md says why.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Final

from django.utils.translation import gettext as _
from django.utils.translation import ngettext

# Every C0 and C1 control, DEL, the Unicode line and paragraph separators and lone surrogates.
LINE_CONTROLS: Final = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff]")
# C0, C1, DEL and lone surrogates, less tab and line feed: what free text may not hold.
TEXT_CONTROLS: Final = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff]")
BIDI_CONTROLS: Final = re.compile("[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")

# Letters of category Lo that render as nothing: the Hangul fillers and the blank braille pattern.
_INVISIBLE_LETTERS: Final = frozenset("\u115f\u1160\u3164\uffa0\u2800")


def _code(character: str) -> str:
    return f"U+{ord(character):04X}"


def is_invisible(character: str) -> bool:
    """White space, a format character (Cf) or a filler letter: nothing that shows."""
    return character.isspace() or unicodedata.category(character) == "Cf" or character in _INVISIBLE_LETTERS


def length(value: str) -> int:
    """``value.length`` in JavaScript (UTF-16 code units): ``length("👍🏽")`` is 4, ``length("é")`` 1 or 2 as typed."""
    return len(value.encode("utf-16-le", "surrogatepass")) // 2


def is_blank(value: str) -> bool:
    """Nothing anybody can see: empty, white space, zero-width or format characters only."""
    return all(is_invisible(character) for character in value)


def problem(value: str, *, multiline: bool = False) -> str | None:
    """Why ``value`` cannot be stored as typed (a message for the person), or None."""
    bad = (TEXT_CONTROLS if multiline else LINE_CONTROLS).search(value)
    if bad:
        if bad.group() == "\x00":
            return _("Remove the NUL character (U+0000): it cannot be stored.")
        return _("Remove the invisible control character %(code)s.") % {"code": _code(bad.group())}
    return direction_problem(value)


def direction_problem(value: str) -> str | None:
    """The message naming the first text direction control in ``value``, or None when it has none."""
    bidi = BIDI_CONTROLS.search(value)
    if bidi:
        return _(
            "Remove the text direction control %(code)s: it makes the text show in another order than it is saved."
        ) % {"code": _code(bidi.group())}
    return None


def clean(value: str, *, max_length: int, multiline: bool = False) -> str:
    """``value`` trimmed and checked, ``""`` when blank; raises ``ValueError`` with the message.

    Free text (``multiline``) has its line breaks normalised to ``\\n`` first.
    """
    if multiline:
        value = value.replace("\r\n", "\n").replace("\r", "\n")
    value = value.strip()
    message = problem(value, multiline=multiline)
    if message is not None:
        raise ValueError(message)
    if is_blank(value):
        return ""
    count = length(value)
    if count > max_length:
        over = count - max_length
        raise ValueError(
            ngettext(
                "%(over)d character over the limit: use at most %(max)d (this has %(count)d).",
                "%(over)d characters over the limit: use at most %(max)d (this has %(count)d).",
                over,
            )
            % {"over": over, "max": max_length, "count": count}
        )
    return value


def without_controls(value: str) -> str:
    """``value`` with every control, bidi control and lone surrogate removed: for names kept on record only."""
    return BIDI_CONTROLS.sub("", LINE_CONTROLS.sub("", value))


# Format characters a search keeps: the joiners inside emoji sequences and
# Persian or Indic words (U+200C, U+200D) and the tag characters of
# subdivision flags. Every other one is invisible and never what was meant.
_SEARCH_KEEPS_FORMAT: Final = re.compile("[\u200c\u200d\U000e0020-\U000e007f]")


def for_search(value: str) -> str:
    """``value`` as the list searches for it: invisible format characters (Cf: U+200F, U+200B, U+FEFF …) removed,
    the joiners of emoji sequences kept, white space runs made one space; emoji stay text.

    ``for_search("Taxi\\u200f 🚕")`` is ``"Taxi 🚕"``.
    """
    kept = "".join(char for char in value if unicodedata.category(char) != "Cf" or _SEARCH_KEEPS_FORMAT.match(char))
    return " ".join(kept.split())


def utf8(value: str) -> bytes:
    """``value`` as UTF-8, lone surrogates included (for hashing what was stored, byte for byte)."""
    return value.encode("utf-8", "surrogatepass")
