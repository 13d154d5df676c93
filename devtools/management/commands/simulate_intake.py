"""``manage.py simulate_intake <action> --item <id>``: one step of accounted's WhatsApp intake, on the replica.

Actions: ``ask`` (``--type representation|context|resend``, ``--over-budget``),
``answer`` (the item's open question: ``--text``, the person's message, plus
what accounted's AI interpreter read in it: ``--participant "Name|Company"``,
``--purpose``, ``--event-date``, ``--note``, ``--denied``; a representation
reply with none of them is the unreadable one; an exact "nej" is a denial),
``half-answer``, ``deny``, ``expire`` (accounted's sweep of the conversation
awaiting the item), ``late-reply`` (``--unquoted`` quotes nothing: routed by
the whole conversation). Each step is written as ``devtools.intake_simulator``
describes. Refuses any database that is not a replica made by
``create_bookkeeping_replica``.
"""

from __future__ import annotations

import datetime as dt
import uuid
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from devtools import intake_simulator as intake
from reviewapp import readmodel
from reviewapp.answers.inputs import QUESTION_TYPES
from reviewapp.bookkeeping.replica import ReplicaRefused, require_replica

ACTIONS = ("ask", "answer", "half-answer", "deny", "expire", "late-reply")


def _participant(value: str) -> intake.Participant:
    name, _sep, company = value.partition("|")
    if not name.strip():
        raise CommandError(f"--participant {value!r}: a name is needed ('Name' or 'Name|Company')")
    return intake.Participant(name=name.strip(), company=company.strip() or None)


def _moment(value: str | None) -> dt.datetime | None:
    if not value:
        return None
    try:
        moment = dt.datetime.fromisoformat(value)
    except ValueError:
        raise CommandError(f"--at {value!r} is not an ISO 8601 time") from None
    return moment if moment.tzinfo else moment.replace(tzinfo=dt.UTC)


class Command(BaseCommand):
    help = "Perform one step of accounted's WhatsApp intake on an item (replica databases only)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("action", choices=ACTIONS)
        parser.add_argument("--item", required=True, type=uuid.UUID, help="the inbox item's id")
        parser.add_argument("--type", choices=QUESTION_TYPES, help="the question to ask (ask)")
        parser.add_argument("--over-budget", action="store_true", help="ask: straight to moved_to_app")
        parser.add_argument("--text", default="", help="the person's message, verbatim")
        parser.add_argument("--participant", action="append", default=[], help="'Name' or 'Name|Company'")
        parser.add_argument("--purpose", default=None)
        parser.add_argument("--event-date", default=None, help="YYYY-MM-DD")
        parser.add_argument("--note", default=None, help="what the AI interpreter paraphrased (stored as user_note)")
        parser.add_argument("--denied", action="store_true", help="the AI interpreter read a denial (besides 'nej')")
        parser.add_argument("--unquoted", action="store_true", help="late-reply: route by the whole conversation")
        parser.add_argument("--at", default=None, help="when it happens (ISO 8601; default now)")

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            require_replica()
        except ReplicaRefused as error:
            raise CommandError(str(error)) from None
        item = options["item"]
        try:
            # Autocommit, statement by statement, like the intake's own writes.
            outcome = self._perform(options["action"], item, options)
        except intake.IntakeError as error:
            raise CommandError(str(error)) from None
        readmodel.index_items([item])
        self.stdout.write(outcome)

    def _perform(self, action: str, item: uuid.UUID, options: dict[str, Any]) -> str:
        at = _moment(options["at"])
        text: str = options["text"]
        people = [_participant(value) for value in options["participant"]]
        if action == "ask":
            if not options["type"]:
                raise CommandError("ask needs --type representation|context|resend")
            intake.ask(item, options["type"], over_budget=options["over_budget"], now=at)
            return f"asked {options['type']} about {item}"
        if action == "expire":
            intake.expire(item, now=at)
            return f"expired the question about {item}"
        if not text.strip():
            raise CommandError(f"{action} needs --text (the person's message)")
        if action == "deny":
            intake.deny(item, text=text, now=at)
            return f"denied representation for {item}"
        if action == "half-answer":
            if not people:
                raise CommandError("half-answer needs at least one --participant")
            intake.half_answer(item, text=text, participants=people, now=at)
            return f"half answer for {item}"
        if action == "late-reply":
            routed = intake.late_reply(
                item,
                text=text,
                quoted=not options["unquoted"],
                participants=people,
                purpose=options["purpose"],
                event_date=options["event_date"],
                note=options["note"],
                denied=options["denied"],
                now=at,
            )
            return f"late reply: {routed.outcome} on {routed.item_id} ({routed.question or 'note'})"
        question = self._open_type(item, options)
        if question == "representation":
            intake.answer_representation(
                item,
                text=text,
                participants=people,
                purpose=options["purpose"],
                event_date=options["event_date"],
                note=options["note"],
                denied=options["denied"],
                now=at,
            )
        elif question == "context":
            intake.answer_context(item, text=text, note=options["note"], now=at)
        else:
            raise CommandError("a resend is answered with a new photo: send it as a new item")
        return f"answered {question} for {item}"

    def _open_type(self, item: uuid.UUID, options: dict[str, Any]) -> str:
        if options["type"]:
            return str(options["type"])
        pending = intake.read_context(item).get("pending_question")
        question = pending.get("type") if isinstance(pending, dict) else None
        if question not in QUESTION_TYPES:
            raise CommandError("the item has no question; give --type")
        return str(question)
