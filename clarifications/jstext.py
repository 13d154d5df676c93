"""JavaScript string semantics the reference relies on, for Python strings.

Python and JavaScript disagree on what white space is and on how long a
string is, and the reference's output depends on both:

- ``\\s`` and ``String.prototype.trim`` use the ECMAScript WhiteSpace and
  LineTerminator sets. That set includes U+FEFF and excludes U+001C-U+001F and
  U+0085, all of which ``str.isspace`` gets the other way round.
- ``String.prototype.length`` and ``slice`` count UTF-16 code units, so an
  emoji is two units and a slice can cut one in half.
"""

import re
from typing import Final

#: ECMAScript WhiteSpace + LineTerminator (what ``\\s`` and ``trim()`` match).
JS_WHITESPACE: Final = (
    "\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006"
    "\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
)
#: ECMAScript LineTerminator: the characters that end a line for JavaScript.
JS_LINE_TERMINATORS: Final = "\n\r\u2028\u2029"

_ASTRAL = re.compile("[\U00010000-\U0010ffff]")
_WHITESPACE_RUN = re.compile(f"[{JS_WHITESPACE}]+")


def js_trim(text: str) -> str:
    """``String.prototype.trim``: ``js_trim("\\ufeff a\\x85")`` keeps ``"a\\x85"``."""
    return text.strip(JS_WHITESPACE)


def js_trim_end(text: str) -> str:
    """``String.prototype.trimEnd``."""
    return text.rstrip(JS_WHITESPACE)


def collapse_whitespace(text: str) -> str:
    """``text.replace(/\\s+/g, ' ')``."""
    return _WHITESPACE_RUN.sub(" ", text)


def has_astral(text: str) -> bool:
    """Whether any character needs two UTF-16 code units (is above U+FFFF)."""
    # isascii() is a flag check; the regex scan runs in C.
    return not text.isascii() and _ASTRAL.search(text) is not None


def utf16_length(text: str) -> int:
    """``String.prototype.length``: ``utf16_length("😀")`` is 2."""
    if not has_astral(text):
        return len(text)
    return len(text) + len(_ASTRAL.findall(text))


def utf16_prefix(text: str, units: int) -> str:
    """``text.slice(0, units)`` in UTF-16 code units.

    Like JavaScript, a cut inside an astral character keeps its high
    surrogate: ``utf16_prefix("a😀", 2)`` is ``"a\\ud83d"``.
    """
    if not has_astral(text):
        return text[:units]
    encoded = text.encode("utf-16-le", "surrogatepass")[: units * 2]
    return encoded.decode("utf-16-le", "surrogatepass")
