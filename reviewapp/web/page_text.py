"""Filters, the cut marker of the item page's template and the printed cap (registered in reviewapp/web/jinja.py)."""

from __future__ import annotations

import re

from django.utils.formats import localize
from django.utils.html import conditional_escape, format_html
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext as _

from reviewapp.core.rendering_caps import (
    AGENT_VIEW_MAX_CHARS,
    PRINTED_MARKUP_MAX_CHARS,
    PRINTED_TEXT_MAX_CHARS,
    SHORT_TEXT_MAX_CHARS,
    capped_text,
    noted_cut,
)

_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def agent_capped(value: str) -> str:
    """An agent view or notes text cut at the page's cap (it holds whole notes: a stored 26 MB note would follow)."""
    shown = capped_text(value or "", max_chars=AGENT_VIEW_MAX_CHARS)
    return shown.text + "\n…" if shown.truncated else shown.text


def printed_text(text: str) -> str:
    """``text`` within the printed cap (``PRINTED_TEXT_MAX_CHARS``): what ``finalize`` does to every printed text."""
    return noted_cut(text, PRINTED_TEXT_MAX_CHARS)


def short_text(value: str | None) -> str:
    """The ``short`` filter: a stored name for a heading or a fact line, cut at ``SHORT_TEXT_MAX_CHARS``."""
    return noted_cut(value or "", SHORT_TEXT_MAX_CHARS)


def printed_markup(markup: str) -> str:
    """HTML built in Python, whole when it fits ``PRINTED_MARKUP_MAX_CHARS``, else a note in its place.

    HTML cannot be cut anywhere without breaking the page, and a piece this
    long can only come from a stored text that went around the text cap
    (``|safe``, a translation's parameter): it is left out, and said so.
    """
    if len(markup) <= PRINTED_MARKUP_MAX_CHARS:
        return markup
    return _("[left out: %(total)s characters, more than a page shows]") % {"total": localize(len(markup))}


def exact_text(value: str) -> SafeString:
    """Escape text for a ``<pre>`` so the browser shows exactly its characters.

    A raw CR would be turned into LF by the HTML parser, so it is written as
    ``&#13;``. A lone surrogate (the notes cap can cut an emoji in half) cannot
    be encoded at all and becomes U+FFFD, which is what a browser shows for it.
    Past ``PRINTED_TEXT_MAX_CHARS`` the text is cut, as every printed text is.
    """
    escaped = str(conditional_escape(printed_text(value) if isinstance(value, str) else value))
    escaped = _LONE_SURROGATE.sub("\ufffd", escaped).replace("\r", "&#13;")
    return mark_safe(escaped)  # noqa: S308 - escaped above


def cut(total: int | None, shown: int, *, entries: bool = False, download: str = "") -> SafeString:
    """The mark after a value the page cut: how much is shown, and a download of the rest.

    ``{{ cut(person.cut.get("name"), person.name|length, download=raw_downloads.channel_context) }}``;
    nothing when ``total`` is empty (the value was shown whole). ``entries``
    counts list entries rather than characters.
    """
    if not total:
        return mark_safe("")
    numbers = {"shown": localize(shown), "total": localize(total)}
    if entries:
        said = _("(cut: the first %(shown)s of %(total)s are shown)") % numbers
    else:
        said = _("… (cut: the first %(shown)s of %(total)s characters are shown)") % numbers
    link = ""
    if download:
        link = format_html(' <a href="{}" class="cut-download" download>{}</a>', download, _("Show all: download"))
    return format_html('<span class="cut-marker muted" data-cut-from="{}">{}{}</span>', numbers["total"], said, link)
