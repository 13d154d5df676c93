"""Template filters for the item page."""

from __future__ import annotations

import re

from django import template
from django.utils.html import conditional_escape
from django.utils.safestring import SafeString, mark_safe

register = template.Library()

_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


@register.filter
def exact_text(value: str) -> SafeString:
    """Escape text for a ``<pre>`` so the browser shows exactly its characters.

    A raw CR would be turned into LF by the HTML parser, so it is written as
    ``&#13;``. A lone surrogate (the notes cap can cut an emoji in half) cannot
    be encoded at all and becomes U+FFFD, which is what a browser shows for it.
    """
    escaped = str(conditional_escape(value))
    escaped = _LONE_SURROGATE.sub("\ufffd", escaped).replace("\r", "&#13;")
    return mark_safe(escaped)  # noqa: S308 - escaped above
