"""Mark the photos the app uploaded under the old rule as not read by accounted (``reviewapp.answers.unread``).

The app used to stage an upload as accounted's web upload does ('processing',
``extracted_data`` NULL); accounted extracts only inside its own process, so
nobody read those photos, and accounted's inbox sweep turned them into empty
'received' items that claim a read. This writes them as accounted writes an
item it does not extract, one by one, each logged in the app's log
(``UploadMarkedUnread``, with the row before). Only items the app's own log
records as its upload are touched.

    manage.py fix_unread_uploads --dry-run   # list what would change
    manage.py fix_unread_uploads             # change it
"""

from __future__ import annotations

import logging
from typing import Any

from django.core.management.base import BaseCommand, CommandParser
from django.utils import timezone

from reviewapp.answers import unread
from reviewapp.answers.channel_context import to_millis
from reviewapp.answers.writing import APP_ACTOR

log = logging.getLogger(__name__)


class Command(BaseCommand):
    help = "Mark the photos the app uploaded under the old rule as not read by accounted (dry run first)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--dry-run", action="store_true", help="List the items that would change; write nothing.")

    def handle(self, *args: Any, **options: Any) -> None:
        found = unread.old_uploads()
        dry_run = options["dry_run"]
        marked = 0
        for upload in found:
            what = "would mark" if dry_run else "marking"
            self.stdout.write(
                f"{what} item {upload.item_id} (document {upload.document_id},"
                f" uploaded {upload.uploaded_at:%Y-%m-%d %H:%M}): {upload.kind}"
            )
            if dry_run:
                continue
            # The app's own actor: the fix is the operator's, not the reviewer's who uploaded the photo.
            if unread.mark_unread(upload, now=to_millis(timezone.now()), actor=dict(APP_ACTOR)):
                marked += 1
                log.info("marked item %s as not read by accounted (%s)", upload.item_id, upload.kind)
            else:
                self.stdout.write(f"  left alone: item {upload.item_id} changed since it was listed")
        if dry_run:
            self.stdout.write(f"{len(found)} uploaded item(s) would be marked as not read by accounted.")
        else:
            self.stdout.write(f"{marked} uploaded item(s) marked as not read by accounted.")
