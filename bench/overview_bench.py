"""Benchmark of the overview (``/overview/``, ``/api/overview``) at 1 000 000 items.

    .venv/bin/python bench/overview_bench.py [--items 1000000] [--repeat 21]
        [--base-url postgres://postgres@127.0.0.1:5432] [--keep] [--reuse] [--explain]

Creates two databases of its own (``bench_overview_review`` and
``bench_overview_bookkeeping``; never the test or server databases), builds
the bookkeeping replica and migrates the review database, then fills, with
plain SQL (``generate_series``, as ``bench/sync_bench.py`` does):

- accounted's ``invoice_inbox_items``: ``--items`` rows over three years
  (about 900 a day), 20 companies, the states in tenths as sync_bench has
  them: one in ten waits in the app (so 100 000 wait at 1 M);
- accounted's ``processing_history``: for every item a ``DocumentIngested``,
  for every question a ``ChannelQuestionAsked``, then the chat's answer
  (``whatsapp-inbound``) or the sweep's ``ChannelQuestionExpired`` 48 hours
  later followed by the app's ``ChannelQuestionAnswered`` (``review-app``);
  about 2.3 events per item;
- the app's log (``ClarificationEvent``): the app's answers, by ten people,
  the representation ones as denials in one case of three;
- the read model (``IndexedItem``): one row per item with the columns the
  overview reads (company, needs answer, moved_to_app_at). Filled directly
  rather than by ``sync.poll()`` (222 s at 1 M, measured by sync_bench):
  the overview only reads it.

Then copies the question events and the app's answers into the review
database as every sync poll does (``reviewapp.overview.events.copy_new``,
each timed: the first poll after the overview's release does it once for the
whole history), VACUUM ANALYZE both, and times with Django's test client
(whole middleware stack, no network), medians and 90th percentiles of
``--repeat`` rounds after two warm-up rounds, each round taking every request
in turn: the page and the API for a superuser (every company) at 7, 30 and 90
days, and for a bookkeeper assigned 10 of the 20 companies. It prints the
load average before and after, the SQL statements each request sends to each
database, the time each of the overview's statements takes alone and, with
``--explain``, their plans for both users at 90 days.

``--reuse`` measures what an earlier ``--keep`` run left, after migrating it
(a migration that copies, as 0020 does, is timed).
"""

from __future__ import annotations

import argparse
import statistics
import time
from typing import Any

from common import (
    DEFAULT_BASE,
    bench_databases,
    client_for,
    database_urls,
    load_average,
    migrate,
    p90,
    plain_storages,
    setup_django,
    sql,
    superuser,
    time_round_robin,
)

REVIEW_DB = "bench_overview_review"
BOOKKEEPING_DB_NAME = "bench_overview_bookkeeping"
SPAN_DAYS = 3 * 365
PEOPLE = 10

# channel_context per g % 10, as sync_bench writes them: 0 waits in the app,
# 3 is open in the chat, 4 context answered, 5 representation answered,
# 6 a denial, 9 a resend answered; 1, 2, 7 and 8 have no answered question.
CONTEXTS = {
    0: """{"channel": "whatsapp", "pending_question": {"type": "representation",
        "asked_at": "2026-11-01T10:00:00.000Z", "status": "moved_to_app"}}""",
    3: """{"channel": "whatsapp", "pending_question": {"type": "context",
        "asked_at": "2026-11-29T10:00:00.000Z", "status": "open"}}""",
    4: """{"channel": "whatsapp", "user_note": "Fika", "context_answer": {"raw_answer": "fika",
        "answered_at": "2026-11-02T10:00:00.000Z"}, "pending_question": {"type": "context",
        "asked_at": "2026-11-01T10:00:00.000Z", "status": "answered"}}""",
    5: """{"channel": "whatsapp", "representation": {"participants": [{"name": "Anna Berg", "company": "Kund AB"}],
        "purpose": "Projektmöte", "event_date": null, "raw_answer": "Anna Berg, Kund AB. Projektmöte",
        "answered_at": "2026-11-02T10:00:00.000Z"}, "pending_question": {"type": "representation",
        "asked_at": "2026-11-01T10:00:00.000Z", "status": "answered"}}""",
    6: """{"channel": "whatsapp", "representation": {"participants": [], "purpose": null, "event_date": null,
        "raw_answer": "Nej", "answered_at": "2026-11-02T10:00:00.000Z", "denied": true},
        "pending_question": {"type": "representation", "asked_at": "2026-11-01T10:00:00.000Z",
        "status": "answered"}}""",
    9: """{"channel": "whatsapp", "quality": {"resend_requested_at": "2026-11-01T10:00:00.000Z"},
        "pending_question": {"type": "resend", "asked_at": "2026-11-01T10:00:00.000Z", "status": "answered"}}""",
}
QUESTION_TYPE = {0: "representation", 3: "context", 4: "context", 5: "representation", 6: "representation", 9: "resend"}

# Item g: its id, and when it arrived (g = 1 is the newest).
ITEM_ID = "md5('bench-item-' || g)::uuid"
CREATED = "(now() - interval '1 hour' - (g * %(span)s / %(items)s) * interval '1 day')"


def _fill(items: int) -> float:
    """Fill both databases with ``items`` items and their events; the seconds it took."""
    from django.contrib.auth.models import User

    started = time.perf_counter()
    owner = sql("bookkeeping", "INSERT INTO auth.users (email) VALUES ('bench@example.se') RETURNING id")[0][0]
    sql(
        "bookkeeping",
        """INSERT INTO public.companies (id, name, entity_type, created_by)
           SELECT md5('bench-company-' || n)::uuid, 'Företag ' || n || ' AB', 'aktiebolag', %s
           FROM generate_series(0, 19) n""",
        [owner],
    )
    company = "md5('bench-company-' || (mod(g, 20)))::uuid"
    shape = {"span": SPAN_DAYS, "items": items}
    contexts = ", ".join(f"({n}, %s::jsonb)" for n in CONTEXTS)
    sql(
        "bookkeeping",
        f"""WITH contexts(n, ctx) AS (VALUES {contexts})
            INSERT INTO public.invoice_inbox_items
                (id, user_id, company_id, source, extracted_data, channel_context, correlation_id,
                 created_at, updated_at)
            SELECT {ITEM_ID}, %s, {company}, 'whatsapp', '{{"supplier": {{"name": "Sjöbaren"}}}}'::jsonb,
                   coalesce(contexts.ctx, '{{"channel": "whatsapp"}}'::jsonb), md5('bench-corr-' || g)::uuid,
                   {CREATED % shape}, {CREATED % shape}
            FROM generate_series(1, %s) g LEFT JOIN contexts ON contexts.n = mod(g, 10)""",  # noqa: S608 - constants
        [*CONTEXTS.values(), owner, items],
    )
    questions = ", ".join(f"({n}, '{kind}')" for n, kind in QUESTION_TYPE.items())
    # The chat answers items with g % 20 < 10 (of the answered kinds 4, 5, 6, 9); the
    # others expire after 48 hours and are answered in the app 12 hours later.
    event = f"""
        INSERT INTO public.processing_history
            (company_id, correlation_id, aggregate_type, aggregate_id, event_type, payload, actor, occurred_at)
        SELECT {company}, md5('bench-corr-' || g)::uuid, %s, {ITEM_ID}, %s,
               jsonb_build_object('channel', 'whatsapp', 'inbox_item_id', {ITEM_ID}, 'question_type', q.kind),
               %s::jsonb, {CREATED % shape} + %s::interval
        FROM generate_series(1, %s) g
        LEFT JOIN (VALUES {questions}) AS q(n, kind) ON q.n = mod(g, 10)
        WHERE {{where}}"""  # noqa: S608 - constants
    steps = [
        ("Document", "DocumentIngested", '{"type": "system", "id": "inbox-intake"}', "0 s", "true"),
        ("System", "ChannelQuestionAsked", '{"type": "system", "id": "whatsapp-inbound"}', "1 min", "q.n IS NOT NULL"),
        (
            "System",
            "ChannelQuestionAnswered",
            '{"type": "system", "id": "whatsapp-inbound"}',
            "3 hours",
            "mod(g, 10) IN (4, 5, 6, 9) AND mod(g, 20) < 10",
        ),
        (
            "System",
            "ChannelQuestionExpired",
            '{"type": "cron", "id": "whatsapp-sweep"}',
            "48 hours",
            "mod(g, 10) = 0 OR (mod(g, 10) IN (4, 5, 6, 9) AND mod(g, 20) >= 10)",
        ),
        (
            "System",
            "ChannelQuestionAnswered",
            '{"type": "system", "id": "review-app"}',
            "60 hours",
            "mod(g, 10) IN (4, 5, 6, 9) AND mod(g, 20) >= 10",
        ),
    ]
    for aggregate, kind, actor, after, where in steps:
        sql("bookkeeping", event.format(where=where), [aggregate, kind, actor, after, items])

    people = [User.objects.get_or_create(username=f"bench-person-{n}")[0].pk for n in range(PEOPLE)]
    sql(
        "default",
        f"""INSERT INTO reviewapp_indexeditem
                (id, company_id, company_name, created_at, source_updated_at, currency,
                 state_needs_answer, state_waiting_in_chat, state_denied, state_purpose_missing, state_answered,
                 state_no_answers, state_malformed, state_booked, state_answer_replaced,
                 open_question_type, open_question_asked_at, moved_to_app_at, search_text, search_fields,
                 malformed_reason, indexed_at)
            SELECT {ITEM_ID}, {company}, 'Företag ' || (mod(g, 20)) || ' AB',
                   {CREATED % shape}, {CREATED % shape}, 'SEK',
                   mod(g, 10) = 0, mod(g, 10) = 3, mod(g, 10) = 6, false, mod(g, 10) IN (4, 5, 6, 9),
                   mod(g, 10) IN (1, 2, 7, 8), false, false, false,
                   CASE WHEN mod(g, 10) = 0 THEN 'representation' WHEN mod(g, 10) = 3 THEN 'context' END,
                   CASE WHEN mod(g, 10) IN (0, 3) THEN {CREATED % shape} + interval '1 min' END,
                   CASE WHEN mod(g, 10) = 0 THEN {CREATED % shape} + interval '48 hours' END,
                   'sjöbaren', '[]', '', now()
            FROM generate_series(1, %s) g""",  # noqa: S608 - constants
        [items],
    )
    sql(
        "default",
        f"""INSERT INTO reviewapp_clarificationevent
                (item_id, event_type, question_type, actor_id, actor_label, channel, payload, occurred_at)
            SELECT {ITEM_ID}, 'ChannelQuestionAnswered', q.kind, (%s::int[])[1 + mod(g, {PEOPLE})], 'bench',
                   'app', jsonb_build_object('answer', CASE WHEN mod(g, 10) = 6 THEN '{{"denied": true}}'::jsonb
                                                            ELSE '{{"text": "Taxi"}}'::jsonb END,
                                             'amended', false),
                   {CREATED % shape} + interval '60 hours'
            FROM generate_series(1, %s) g JOIN (VALUES {questions}) AS q(n, kind) ON q.n = mod(g, 10)
            WHERE mod(g, 10) IN (4, 5, 6, 9) AND mod(g, 20) >= 10""",  # noqa: S608 - constants
        [people, items],
    )
    sql("bookkeeping", "VACUUM ANALYZE")
    filled = time.perf_counter() - started
    from reviewapp.overview import events

    for label, copy in (("question events", events.copy_question_events), ("app answers", events.copy_app_answers)):
        started = time.perf_counter()
        copied = copy()
        print(f"copied {copied:,} {label} in {time.perf_counter() - started:.1f} s (the first poll's backfill)")
    sql("default", "VACUUM ANALYZE")
    return filled


def _idle_copy_ms(repeat: int) -> dict[str, float]:
    """A poll's copy with nothing new (each part re-reading its overlap), median ms."""
    from reviewapp.overview import events

    calls = {"question events": events.copy_question_events, "app answers": events.copy_app_answers}
    return {label: statistics.median(times) for label, times in time_round_robin(calls, repeat).items()}


def _users() -> dict[str, Any]:
    from django.contrib.auth.models import Group, User

    from reviewapp.core import roles
    from reviewapp.models import CompanyAssignment

    bookkeeper, created = User.objects.get_or_create(username="bench-bookkeeper")
    if created:
        bookkeeper.groups.add(Group.objects.get(name=roles.BOOKKEEPER))
        ids = [row[0] for row in sql("bookkeeping", "SELECT id FROM public.companies ORDER BY id LIMIT 10")]
        CompanyAssignment.objects.bulk_create(CompanyAssignment(user=bookkeeper, company_id=pk) for pk in ids)
    return {"admin": superuser(), "bookkeeper": User.objects.get(pk=bookkeeper.pk)}


REQUESTS = [
    ("page, every company, 7 days", "admin", "/overview/?days=7"),
    ("page, every company, 30 days", "admin", "/overview/?days=30"),
    ("page, every company, 90 days", "admin", "/overview/?days=90"),
    ("page, bookkeeper of 10 companies, 7 days", "bookkeeper", "/overview/?days=7"),
    ("page, bookkeeper of 10 companies, 30 days", "bookkeeper", "/overview/?days=30"),
    ("page, bookkeeper of 10 companies, 90 days", "bookkeeper", "/overview/?days=90"),
    ("API, every company, 90 days", "admin", "/api/overview?days=90"),
    ("API, bookkeeper of 10 companies, 90 days", "bookkeeper", "/api/overview?days=90"),
]


def _statement_times(users: dict[str, Any], repeat: int) -> dict[str, float]:
    """Each part of the 90-day page alone, for both users, in ms (median)."""
    from django.utils import timezone

    from reviewapp.core import access
    from reviewapp.overview import numbers

    now = timezone.now()
    first = numbers.period_dates(90, now)[0]
    scoped = [str(c) for c in access.company_ids(users["bookkeeper"]) or ()]
    calls = {
        "copied events, every company": lambda: numbers.counts_by_day(None, first),
        "copied events, bookkeeper of 10 companies": lambda: numbers.counts_by_day(scoped, first),
        "queue, every company": lambda: numbers.queue_now(users["admin"], now),
        "queue, bookkeeper of 10 companies": lambda: numbers.queue_now(users["bookkeeper"], now),
    }
    return {label: statistics.median(times) for label, times in time_round_robin(calls, repeat).items()}


def _explain(who: str, user: Any) -> None:
    from django.db import connections
    from django.test.utils import CaptureQueriesContext

    from reviewapp.overview import numbers

    with (
        CaptureQueriesContext(connections["default"]) as review,
        CaptureQueriesContext(connections["bookkeeping"]) as bookkeeping,
    ):
        numbers.overview(user, 90, whole_team=True)
    for alias, captured in (("default", review), ("bookkeeping", bookkeeping)):
        for query in captured.captured_queries:
            statement = query["sql"]
            if not statement.lstrip().upper().startswith(("SELECT", "WITH")) or "django_session" in statement:
                continue
            plan = sql(alias, "EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) " + statement)
            print(f"\n### {who}, 90 days ({alias})\n\n{statement}\n\n" + "\n".join(row[0] for row in plan))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--items", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=21)
    parser.add_argument("--base-url", default=DEFAULT_BASE)
    parser.add_argument("--keep", action="store_true", help="keep the benchmark databases")
    parser.add_argument("--reuse", action="store_true", help="measure what an earlier --keep run left")
    parser.add_argument("--explain", action="store_true")
    args = parser.parse_args()
    review_url, bookkeeping_url = database_urls(args.base_url, REVIEW_DB, BOOKKEEPING_DB_NAME)
    with bench_databases(review_url, bookkeeping_url, keep=args.keep, reuse=args.reuse):
        setup_django(review_url, bookkeeping_url)
        from django.db import connections, reset_queries
        from django.test.utils import CaptureQueriesContext, override_settings

        started = time.perf_counter()
        migrate()
        print(f"migrated in {time.perf_counter() - started:.1f} s", flush=True)
        if args.reuse:
            sql("default", "VACUUM ANALYZE")  # as autovacuum would after what a migration copied
        else:
            print(f"filled {args.items:,} items in {_fill(args.items):.0f} s", flush=True)
        counts = {
            "items": sql("default", "SELECT count(*) FROM reviewapp_indexeditem")[0][0],
            "waiting": sql("default", "SELECT count(*) FROM reviewapp_indexeditem WHERE state_needs_answer")[0][0],
            "history events": sql("bookkeeping", "SELECT count(*) FROM public.processing_history")[0][0],
            "app answers": sql("default", "SELECT count(*) FROM reviewapp_clarificationevent")[0][0],
            "copied events": sql("default", "SELECT count(*) FROM reviewapp_overviewevent")[0][0],
        }
        print(", ".join(f"{label}: {n:,}" for label, n in counts.items()))
        idle = _idle_copy_ms(args.repeat)
        print("a poll's copy with nothing new: " + ", ".join(f"{label} {ms:.1f} ms" for label, ms in idle.items()))
        users = _users()
        clients = {who: client_for(user) for who, user in users.items()}
        print(f"load average before: {load_average()}", flush=True)
        with override_settings(STORAGES=plain_storages()):
            statements = {}
            for label, who, path in REQUESTS:
                reset_queries()
                with (
                    CaptureQueriesContext(connections["default"]) as review,
                    CaptureQueriesContext(connections["bookkeeping"]) as bookkeeping,
                ):
                    response = clients[who].get(path)
                assert response.status_code == 200, (path, response.status_code)
                statements[label] = (len(review), len(bookkeeping))
            timings = time_round_robin(
                {label: (lambda who=who, path=path: clients[who].get(path)) for label, who, path in REQUESTS},
                args.repeat,
            )
        print(f"load average after: {load_average()}")
        print("\n| request | median ms | p90 ms | SQL review + bookkeeping |\n| --- | ---: | ---: | ---: |")
        for label, _who, _path in REQUESTS:
            review_n, bookkeeping_n = statements[label]
            print(
                f"| {label} | {statistics.median(timings[label]):.1f} | {p90(timings[label]):.1f} "
                f"| {review_n} + {bookkeeping_n} |"
            )
        print("\nThe 90-day page's statements alone, median ms:")
        for label, ms in _statement_times(users, args.repeat).items():
            print(f"- {label}: {ms:.1f}")
        if args.explain:
            for who, user in users.items():
                _explain(who, user)


if __name__ == "__main__":
    main()
