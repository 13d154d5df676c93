"""The free-text defence applied to every human-typed value in a prompt line.

Port of ``flattenMemoryContent`` (lib/agent/chat/system-prompt.ts), which the
seed imports::

    content
      .replace(/\\s+/g, ' ')
      .replace(/[#>`*_|-]{2,}/g, (run) => run[0] ?? '')
      .replace(/^(?:[#>|`]+\\s*|[-*+]\\s+)+/, '')
      .trim()
"""

import re
from typing import Final

from clarifications.jstext import JS_WHITESPACE, collapse_whitespace

_MARKDOWN_RUN = re.compile(r"([#>`*_|-])[#>`*_|-]+")
# After the first step the only white space left is U+0020, so `\s` in the
# leading-marker pattern can be a plain space.
_LEADING_MARKERS = re.compile(r"(?:[#>|`]+ *|[-*+] +)+")
# flatten() returns its input unchanged unless the text has JavaScript white
# space other than single inner spaces, one of #>`*_| (a lone "-" cannot form
# a run: "2026-07-30", "Karlsson-Berg"), "--", or a possible block marker
# first. Most names, purposes and dates pass these C-speed checks.
_MAY_CHANGE: Final = re.compile("[" + JS_WHITESPACE.replace(" ", "") + "#>`*_|]")
_MARKER_START: Final = frozenset(" #>|`*+-")
# A character the leading-marker pattern cannot take: once one is in a
# window, what the pattern removes is decided inside the window.
_NOT_MARKER: Final = re.compile(r"[^#>|`*+\- ]")
#: ``flatten_prefix`` reads at most this many times ``max_chars`` characters.
WINDOW_FACTOR: Final = 16


def flatten(text: str) -> str:
    """Collapse a human-typed string to one line that cannot open markdown.

    In order: every run of JavaScript white space becomes one space; every
    run of two or more of ``#>`*_|-`` becomes its first character; leading
    block markers are removed (``#``/``>``/``|``/backtick runs with optional
    space, or ``-``/``*``/``+`` followed by space), repeatedly; both ends are
    trimmed. A sign is not a bullet: ``flatten("- -50 kr")`` is ``"-50 kr"``.
    Only a *leading* marker is removed, before the trim, so
    ``flatten(" # x")`` is ``"# x"`` exactly as in the reference.
    """
    if (
        _MAY_CHANGE.search(text) is None
        and "  " not in text
        and "--" not in text
        and text[:1] not in _MARKER_START
        and text[-1:] != " "
    ):
        return text
    text = collapse_whitespace(text)
    text = _MARKDOWN_RUN.sub(r"\1", text)
    match = _LEADING_MARKERS.match(text)
    if match is not None:
        text = text[match.end() :]
    return text.strip(" ")


def flatten_prefix(text: str, max_chars: int) -> tuple[str, bool]:
    """The start of ``flatten(text)``, at most ``max_chars`` characters, read from a bounded window.

    Returns the text and whether it is all of ``flatten(text)``. When it is
    not, it is still exactly the first characters of ``flatten(text)``
    (usually ``max_chars`` of them, fewer when the window is mostly white
    space), computed from at most ``WINDOW_FACTOR * max_chars`` characters of
    ``text``, so a 26 MB note costs what a 1.6 MB one does::

        flatten_prefix("a  b", 10)  # ("a b", True)
        flatten_prefix("#  a  b c", 3)  # ("a b", False)

    Why a window gives an exact prefix: each step of ``flatten`` works left
    to right, so on a prefix of the text white-space and marker runs cut at
    the window's end give the same first character, and the end trim only
    removes a trailing space, which the whole text would follow with more.
    The leading-marker removal is the one step that can look arbitrarily far;
    it is decided inside the window once the window holds a character the
    pattern cannot take (else nothing is claimed: the empty text, cut).
    """
    if max_chars < 0:
        raise ValueError("max_chars must not be negative")
    limit = WINDOW_FACTOR * max(max_chars, 1)
    if len(text) <= limit:
        flat = flatten(text)
        return (flat, True) if len(flat) <= max_chars else (flat[:max_chars], False)
    window = 2 * max(max_chars, 1)
    while True:
        window = min(window, limit)
        collapsed = _MARKDOWN_RUN.sub(r"\1", collapse_whitespace(text[:window]))
        if _NOT_MARKER.search(collapsed) is not None:
            match = _LEADING_MARKERS.match(collapsed)
            flat = (collapsed[match.end() :] if match is not None else collapsed).strip(" ")
            if len(flat) > max_chars or window == limit:
                return flat[:max_chars], False
        elif window == limit:
            return "", False
        window *= 4
