"""What the bookkeeper is told about a photo accounted has not read (``reviewapp.answers.unread``).

Said where it matters: the outcome of the upload, the new item's page and
its list row. accounted reads the photo only when someone presses "Tolka om"
on the item in accounted; with ``ACCOUNTED_BASE_URL`` set, the text links to
accounted's document inbox, where the item is.
"""

from __future__ import annotations

import uuid

from django.urls import reverse
from django.utils.html import format_html
from django.utils.safestring import SafeString
from django.utils.translation import gettext as _

from reviewapp.answers.unread import accounted_inbox_url


def _how_to_read() -> SafeString:
    url = accounted_inbox_url()
    how = _("To have it read, press “Tolka om” on the item in accounted's document inbox (Dokumentinkorgen).")
    if url is None:
        return format_html("{}", how)
    return format_html(
        '{} <a href="{}" target="_blank" rel="noopener noreferrer" data-accounted-link>{}</a>',
        how,
        url,
        _("Open accounted's document inbox"),
    )


def unread_notice() -> SafeString:
    """The item page's notice: accounted has not read this photo, what that means, and how to have it read."""
    return format_html(
        "{} {}",
        _(
            "accounted has not read this photo yet: its supplier, date and amount stay empty, "
            "and accounted proposes no bank transaction for it until it is read."
        ),
        _how_to_read(),
    )


def uploaded_notice(new_item_id: uuid.UUID | str) -> SafeString:
    """The upload's outcome: the new item, and that accounted has not read its photo yet."""
    return format_html(
        '{} <a href="{}" class="mono">{}</a>. {} {}',
        _("The sharper photo is stored as the new item"),
        reverse("item_detail", args=[new_item_id]),
        str(new_item_id)[:8],
        _(
            "accounted has not read it yet, so its supplier, date and amount are empty "
            "and it is not matched to a bank transaction."
        ),
        _how_to_read(),
    )
