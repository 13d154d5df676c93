"""python manage.py fix_context_answers [--dry-run]

Takes the app's own text ("Inmatat av byrån i granskningsappen …") out of
``context_answer.raw_answer`` in rows the app answered before context answers
stopped carrying it: accounted's agent reads that field as the customer's
own words. The customer's words (the chat's, or given to the firm) are
never touched; see ``reviewapp.answers.context_fix``.

``--dry-run`` lists what would change and writes nothing. Without it, each
row is fixed in its own transaction with the item locked, its old value
logged in the app's log first (``ContextAnswerFixed``). A row holding firm
text the app's log cannot place is listed as such and left alone.
"""

from __future__ import annotations

import json
from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from reviewapp.answers.context_fix import ContextFix, apply_fix, candidate_ids, planned_fix
from reviewapp.answers.inputs import CONTEXT
from reviewapp.answers.log import answer_value


def _shown(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


class Command(BaseCommand):
    help = "Move the app's own text out of context_answer.raw_answer (the customer's own words)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--dry-run", action="store_true", help="list what would change; write nothing")

    def handle(self, *args: Any, **options: Any) -> None:
        dry_run: bool = options["dry_run"]
        changed = unplaced = 0
        for item_id in candidate_ids():
            fix = planned_fix(item_id) if dry_run else apply_fix(item_id)
            if fix is None:
                continue
            if fix.unplaced:
                unplaced += 1
                self.stdout.write(f"{item_id}: left alone: firm text the app's log cannot place")
                continue
            if not fix.changes:
                continue
            changed += 1
            self.stdout.write(self._line(fix, dry_run=dry_run))
        verb = "would fix" if dry_run else "fixed"
        self.stdout.write(f"{verb} {changed}, left alone {unplaced}")

    def _line(self, fix: ContextFix, *, dry_run: bool) -> str:
        before, after = answer_value(fix.before, CONTEXT), answer_value(fix.after, CONTEXT)
        verb = "would change" if dry_run else "changed"
        return f"{fix.item_id}: {verb} {_shown(before)} -> {_shown(after)}"
