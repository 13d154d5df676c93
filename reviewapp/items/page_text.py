"""Filters and the cut marker of the item page's template (registered in reviewapp/jinja.py)."""

from __future__ import annotations

import re

from django.utils.formats import localize
from django.utils.html import conditional_escape, format_html
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext as _

from reviewapp.rendering_caps import AGENT_VIEW_MAX_CHARS, capped_text

_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def agent_capped(value: str) -> str:
    """An agent view or notes text cut at the page's cap (it holds whole notes: a stored 26 MB note would follow)."""
    shown = capped_text(value or "", max_chars=AGENT_VIEW_MAX_CHARS)
    return shown.text + "\n…" if shown.truncated else shown.text


def exact_text(value: str) -> SafeString:
    """Escape text for a ``<pre>`` so the browser shows exactly its characters.

    A raw CR would be turned into LF by the HTML parser, so it is written as
    ``&#13;``. A lone surrogate (the notes cap can cut an emoji in half) cannot
    be encoded at all and becomes U+FFFD, which is what a browser shows for it.
    """
    escaped = str(conditional_escape(value))
    escaped = _LONE_SURROGATE.sub("\ufffd", escaped).replace("\r", "&#13;")
    return mark_safe(escaped)  # noqa: S308 - escaped above


def cut(total: int | None, shown: int, *, entries: bool = False, download: str = "") -> SafeString:
    """The mark after a value the page cut: how much is shown, and a download of the rest.

    ``{{ cut(person.cut.name, person.name|length, download=raw_downloads.channel_context) }}``;
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
