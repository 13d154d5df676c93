"""Deterministic Swedish demo data, as accounted's WhatsApp intake writes it (``seed_demo``).

``DemoData`` yields the rows of accounted's tables (``public.invoice_inbox_items``
and everything around it: ``auth.users``, companies and members, documents,
phone links, conversations, messages, ``processing_history``) in batches of
plain tuples in ``demo_rows.*_COLUMNS`` order, so ``seed_demo`` can COPY them
in. The same seed and the same ``now`` always give the same rows; the people
and companies (``demo_rows.organisation``) do not depend on the seed at all, so
several runs share them. One item's story is ``demo_items.ItemBuilder``'s.

Shapes follow ``../shared/bookkeeping/README.md`` ("channel_context, step by
step"): timestamps as JavaScript's ``toISOString()``, a half answer that keeps
the question open, a denial with ``denied: true``, questions over the budget
moved to the app straight away without an event, expiry by the cron.

Every document gets a drawn receipt image (the queue starts with the oldest
items, so they must have one too; a page without its file says so instead;
``receipts``). A benchmark that seeds a million items passes
``receipt_files`` to draw only about that many of the newest; the older rows
then name a file that is not in the local bucket, as when the app runs without
access to accounted's bucket (their ``sha256_hash`` is of the row's id, their
size unknown).
"""

from __future__ import annotations

import datetime as dt
import random
import uuid
from collections.abc import Iterator
from typing import Any, Final
from zoneinfo import ZoneInfo

from devtools.demo_items import ItemBuilder
from devtools.demo_rows import (
    HISTORY,
    LATE_REPLY_WINDOW,
    RESTAURANTS,
    SUPPLIERS,
    Batch,
    Chat,
    Organisation,
    Person,
    iso,
    to_json,
    to_ms,
)

BENCH_RECEIPT_FILES: Final = 500  # what a benchmark draws: about this many of the newest documents

# --- When things happen: a working month, not the same week again and again -------------
# Moments are drawn uniformly within each story's own window, then kept with the chance the
# day and the hour give them (rejection sampling): so every window a story needs (the chat's
# 48 hours, a late reply's week) still holds, and the days have weekdays and weekends.
ZONE: Final = ZoneInfo("Europe/Stockholm")
# Monday to Sunday: a weekend day has a fraction of a weekday's receipts and answers.
WEEKDAY_LEVEL: Final = (1.0, 1.0, 1.0, 0.95, 0.85, 0.22, 0.12)
# By hour of the day (Stockholm): office hours, some evening, little at night.
HOUR_LEVEL: Final = tuple(
    0.04 if h < 6 else 0.3 if h < 8 else 1.0 if h < 17 else 0.35 if h < 22 else 0.08 for h in range(24)
)
# How the busy-ness drifts from day to day: a random walk pulled back to 1 (AR(1)).
DRIFT_KEEP: Final = 0.8
DRIFT_NOISE: Final = 0.25
# Now and then a quiet day on a weekday (a holiday, a conference).
QUIET_DAY_CHANCE: Final = 0.04
MAX_TRIES: Final = 80

# --- What happened to each item ----------------------------------------------------------

# (weight, scenario); weights are per mille of the generated items.
SCENARIOS: Final = [
    (55, "email"),
    (30, "upload"),
    (40, "photo_only"),
    (60, "photo_caption"),
    (40, "open_representation"),
    (30, "open_context"),
    (20, "open_resend"),
    (45, "moved_representation"),
    (40, "moved_context"),
    (20, "moved_resend"),
    (20, "over_budget"),
    (20, "moved_representation_half"),
    (50, "half_answer"),
    (65, "denied"),
    (15, "denied_then_context_moved"),
    (140, "representation_answered"),
    (80, "context_answered"),
    (15, "resend_answered"),
    (20, "late_reply"),
    (5, "app_answer_replaced"),
    (25, "mail_hunt"),
    (15, "peppol"),
    (60, "booked"),
    (10, "booked_with_question_moved"),
    (10, "intake_error"),
    (12, "malformed"),
]
_SCENARIO_NAMES: Final = [name for _, name in SCENARIOS]
_SCENARIO_WEIGHTS: Final = [weight for weight, _ in SCENARIOS]
# Once per run, right after one of each scenario: a number Python cannot read.
HUGE_NUMBER: Final = "malformed_huge_number"
FIRST_SCENARIOS: Final = [*_SCENARIO_NAMES, HUGE_NUMBER]


class DemoData:
    """The demo rows for one ``seed``, relative to ``now``."""

    def __init__(self, *, seed: int, now: dt.datetime, org: Organisation, receipt_files: int | None = None) -> None:
        self.rng = random.Random(seed)
        self.now = to_ms(now)
        self.org = org
        # None: every document gets its image; a number: about that many of the newest.
        self.receipt_files = receipt_files
        self.files_drawn = 0
        self.files_since = self.now
        self.chats: dict[uuid.UUID, Chat] = {}
        self.day_level = self._day_levels(seed)

    def _day_levels(self, seed: int) -> dict[dt.date, float]:
        """Each Stockholm day's busy-ness, 0 to 1, from the seed: the weekday's level times a drifting factor.

        Its own generator, so the stories' draws are the same whatever this process is.
        """
        rng = random.Random(f"days-{seed}")
        today = self.now.astimezone(ZONE).date()
        first = today - 2 * HISTORY - dt.timedelta(days=30)
        drift, levels = 1.0, {}
        for n in range((today - first).days + 1):
            day = first + dt.timedelta(days=n)
            drift = DRIFT_KEEP * drift + (1 - DRIFT_KEEP) * 1.0 + rng.gauss(0, DRIFT_NOISE) * (1 - DRIFT_KEEP) ** 0.5
            drift = min(max(drift, 0.35), 1.8)
            quiet = 0.2 if rng.random() < QUIET_DAY_CHANCE else 1.0
            levels[day] = WEEKDAY_LEVEL[day.weekday()] * drift * quiet / 1.8
        return levels

    def _likely(self, moment: dt.datetime) -> bool:
        """Keep ``moment`` with the chance its day and hour give it."""
        local = moment.astimezone(ZONE)
        level = self.day_level.get(local.date(), 0.5) * HOUR_LEVEL[local.hour]
        return self.rng.random() < level

    def _drawn(self, draw: Any) -> dt.datetime:
        moment = draw()
        for _ in range(MAX_TRIES):
            if self._likely(moment):
                return moment
            moment = draw()
        return moment  # a window of nights and weekends only: its last draw

    # -- helpers
    def uuid(self) -> uuid.UUID:
        return uuid.UUID(int=self.rng.getrandbits(128), version=4)

    def ago(self, low: dt.timedelta, high: dt.timedelta) -> dt.datetime:
        """A moment between ``high`` and ``low`` before now, more likely on a busy day's working hours."""

        def draw() -> dt.datetime:
            seconds = self.rng.uniform(low.total_seconds(), high.total_seconds())
            return to_ms(self.now - dt.timedelta(seconds=seconds))

        return self._drawn(draw)

    def at_work(self, moment: dt.datetime, low: dt.timedelta, high: dt.timedelta) -> dt.datetime:
        """Like ``later``, when someone is likely at work: what moved on Saturday is answered on Monday."""
        return self._drawn(lambda: self.later(moment, low, high))

    def later(self, moment: dt.datetime, low: dt.timedelta, high: dt.timedelta) -> dt.datetime:
        seconds = self.rng.uniform(low.total_seconds(), high.total_seconds())
        return min(to_ms(moment + dt.timedelta(seconds=seconds)), self.now)

    def wamid(self) -> str:
        return f"wamid.HBgL{self.rng.getrandbits(128):032X}"

    # -- the whole run
    def batches(self, count: int, size: int) -> Iterator[Batch]:
        if self.receipt_files is None:
            self.files_since = self.now - 2 * HISTORY  # before any receipt of the run
        else:  # a benchmark's run: about receipt_files of the newest
            self.files_since = self.now - HISTORY * min(1.0, self.receipt_files / max(count, 1))
        batch = Batch()
        for index in range(count):
            if index < len(FIRST_SCENARIOS):
                scenario = FIRST_SCENARIOS[index]
            else:
                scenario = self.rng.choices(_SCENARIO_NAMES, _SCENARIO_WEIGHTS)[0]
            self._item(batch, scenario)
            if len(batch.items) >= size:
                yield batch
                batch = Batch()
        if batch.items:
            yield batch

    def conversations(self) -> list[tuple[Any, ...]]:
        """One row per phone that sent something, its ``context`` as the intake left it."""
        rows = []
        for company_id in self.org.company_ids:
            for person in self.org.people[company_id]:
                chat = self.chats.get(person.id)
                if chat is None or person.conversation_id is None:
                    continue
                rows.append(self._conversation(person, chat))
        return rows

    def _conversation(self, person: Person, chat: Chat) -> tuple[Any, ...]:
        # accounted prunes recent_questions to 7 days and the last 10 entries.
        recent = sorted(
            (q for q in chat.questions if q.asked_at >= self.now - LATE_REPLY_WINDOW), key=lambda q: q.asked_at
        )[-10:]
        context: dict[str, Any] = {"pin_expires_at": iso(self.now + dt.timedelta(hours=self.rng.randint(1, 20)))}
        waiting = [q for q in recent if q.status == "open"]
        state = "idle"
        if waiting:
            newest = waiting[-1]
            state = f"awaiting_{newest.type}"
            context["pending_question"] = {
                "type": newest.type,
                "inbox_item_id": str(newest.inbox_item_id),
                "asked_at": iso(newest.asked_at),
            }
        context["question_queue"] = []
        context["recent_questions"] = [
            {"type": q.type, "inbox_item_id": str(q.inbox_item_id), "asked_at": iso(q.asked_at), "status": q.status}
            for q in recent
        ]
        today = self.now.astimezone(dt.UTC).date()
        asked_today = sum(1 for q in chat.questions if q.asked_at.astimezone(dt.UTC).date() == today)
        context["budget"] = {"day_key": today.isoformat(), "count": min(asked_today, 6)}
        window = chat.last_inbound + dt.timedelta(hours=24) if chat.last_inbound else None
        return (
            person.conversation_id,
            person.phone_link_id,
            state,
            to_json(context),
            person.company_id,
            window,
            chat.last_inbound,
            chat.last_outbound,
            self.org.created_at,
        )

    # -- one item
    def _item(self, batch: Batch, scenario: str) -> None:
        rng = self.rng
        company_id = rng.choice(self.org.company_ids)
        people = self.org.people[company_id]
        senders = [p for p in people if p.phone_link_id is not None]
        if scenario.endswith("representation") or scenario.startswith(("denied", "half", "representation")):
            supplier, category, (low, high) = rng.choice(RESTAURANTS)
        else:
            supplier, category, (low, high) = rng.choice(SUPPLIERS)
        item = ItemBuilder(self, batch, scenario, company_id, supplier, category)
        match scenario:
            case "email":
                item.from_email(people[0], low, high)
            case "upload":
                item.from_upload(rng.choice([p for p in people if p.role != "viewer"]), low, high)
            case "mail_hunt" | "peppol":
                item.from_mailbox(people[0], low, high, peppol=scenario == "peppol")
            case _:
                item.from_whatsapp(rng.choice(senders), low, high)
        item.finish()
