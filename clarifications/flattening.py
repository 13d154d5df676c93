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
