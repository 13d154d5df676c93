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
# Matches wherever flatten() could change its input. Most names, purposes and
# dates ("Anna Berg", "2026-07-30") have none of it and are returned as they
# are, which keeps the common case to one regex scan.
_MAY_CHANGE: Final = re.compile(r"^[ #>|`*+-]| \Z|  |[#>`*_|-]{2}|[" + JS_WHITESPACE.replace(" ", "") + "]")


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
    # Letters, digits and single inner spaces are by far the most common
    # input, and str.isalnum() answers for them without a regex.
    if (text.replace(" ", "").isalnum() and "  " not in text and text[0] != " " and text[-1] != " ") or (
        _MAY_CHANGE.search(text) is None
    ):
        return text
    text = collapse_whitespace(text)
    text = _MARKDOWN_RUN.sub(r"\1", text)
    match = _LEADING_MARKERS.match(text)
    if match is not None:
        text = text[match.end() :]
    return text.strip(" ")
