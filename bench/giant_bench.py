"""Benchmark of the item page and the answer page of a giant row beside an ordinary one (issue 35, part 3).

    .venv/bin/python bench/giant_bench.py [--repeat 9] [--chars 26000000] [--participants 100000]
        [--base-url postgres://postgres@127.0.0.1:5432] [--name bench_giant] [--keep] [--reuse]
        [--profile [RENDERS]]

Creates two databases of its own (``<name>_review`` and ``<name>_bookkeeping``,
``bench_giant`` unless ``--name``; never the test or server databases), builds the
bookkeeping replica and migrates the review database, seeds 20 demo items
(``seed_demo``), then writes beside an ordinary item with an open question
copies of it whose ``channel_context`` holds, each with the same open question:

- a ``user_note`` of ``--chars`` characters (words, runs of spaces and line
  breaks, so that the white-space collapsing of the prompt lines has work);
- a ``context_answer.raw_answer`` of as many characters;
- a representation with ``--participants`` participants (names and companies).

It times with Django's test client as a logged-in superuser (whole middleware
stack and templates, no network) the item page (``/items/<id>/``) and the
answer page (``/items/<id>/answer/``) of each, medians and 90th percentiles of
``--repeat`` rounds after two warm-up rounds, each round taking every request
in turn, and prints each giant page's median as a multiple of the ordinary
item's, and the size of each response. With ``--profile``, cProfile over
RENDERS renders (3 unless given) of each giant item page: the top 25
functions by cumulative time.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import statistics
import uuid
from typing import Any

from common import (
    DEFAULT_BASE,
    bench_databases,
    database_urls,
    load_average,
    migrate,
    p90,
    plain_storages,
    setup_django,
    superuser_client,
    time_round_robin,
)

PROFILE_TOP = 25
OPEN_QUESTION = {"type": "context", "status": "moved_to_app", "asked_at": "2026-11-01T09:00:00Z"}


def _words(chars: int) -> str:
    """``chars`` characters of Swedish words, single and double spaces and line breaks."""
    piece = "middag med kunden  Lindqvist\nsyfte: avtal \t om leverans "
    return (piece * (chars // len(piece) + 1))[:chars]


def _rows(chars: int, participants: int) -> dict[str, str]:
    """The ordinary item and its giant copies, written to accounted's table; {label: item id}."""
    from django.core.management import call_command

    from reviewapp.bookkeeping.models import InboxItem
    from reviewapp.readmodel import sync

    if not InboxItem.objects.exists():
        call_command("seed_demo", items=20, seed=35, no_users=True, allow_production=True, verbosity=0)
    ordinary = InboxItem.objects.order_by("created_at", "id").first()
    assert ordinary is not None
    base = {"channel": "whatsapp", "pending_question": OPEN_QUESTION}
    contexts = {
        "ordinary item": {**base, "user_note": "Lunch med kunden, avtal om leverans."},
        f"user_note of {chars:,} characters": {**base, "user_note": _words(chars)},
        f"context_answer.raw_answer of {chars:,} characters": {
            **base,
            "context_answer": {"raw_answer": _words(chars), "answered_at": "2026-11-02T09:00:00Z"},
        },
        f"{participants:,} participants": {
            **base,
            "representation": {
                "participants": [
                    {"name": f"Gäst {n} Lindqvist", "company": f"Bolag {n} AB"} for n in range(participants)
                ],
                "purpose": "Kundmiddag",
            },
        },
    }
    ids = {}
    for label, context in contexts.items():
        row = InboxItem.objects.get(pk=ordinary.pk)
        row.pk = uuid.uuid4()
        # One item per photo and per correlation (unique in accounted's table).
        row.whatsapp_message_id = None
        row.correlation_id = uuid.uuid4()
        row.channel_context = context
        row.save(force_insert=True)
        ids[label] = str(row.pk)
    sync.index_items(list(ids.values()))
    return ids


def _profile(client: Any, path: str, renders: int) -> str:
    profiler = cProfile.Profile()
    profiler.enable()
    for _ in range(renders):
        client.get(path)
    profiler.disable()
    out = io.StringIO()
    pstats.Stats(profiler, stream=out).sort_stats("cumulative").print_stats(PROFILE_TOP)
    return out.getvalue()


def _run(repeat: int, chars: int, participants: int, profile: int) -> None:
    from django.test.utils import override_settings

    ids = _rows(chars, participants)
    client = superuser_client()
    print(f"\nload average before: {load_average()}\n")
    with override_settings(STORAGES=plain_storages()):
        calls = {}
        sizes = {}
        for label, item in ids.items():
            for page, path in (("item page", f"/items/{item}/"), ("answer page", f"/items/{item}/answer/")):
                response = client.get(path)
                assert response.status_code == 200, (path, response.status_code)
                sizes[f"{page}: {label}"] = len(response.content)
                calls[f"{page}: {label}"] = lambda path=path: client.get(path)
        timings = time_round_robin(calls, repeat)
        print("| request | median (ms) | p90 (ms) | × ordinary | response (bytes) |")
        print("|---|---:|---:|---:|---:|")
        for label, values in timings.items():
            page = label.split(":", 1)[0]
            ordinary = statistics.median(timings[f"{page}: ordinary item"])
            median = statistics.median(values)
            print(
                f"| {label} | {median:.1f} | {p90(values):.1f} | {median / ordinary:.1f}× | {sizes[label]:,} |",
                flush=True,
            )
        print(f"\nload average after: {load_average()}")
        if profile:
            for label, item in ids.items():
                if label != "ordinary item":
                    print(f"\n### cProfile: item page, {label}, {profile} renders\n")
                    print(_profile(client, f"/items/{item}/", profile))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=9, help="timed rounds (default 9)")
    parser.add_argument("--chars", type=int, default=26_000_000, help="characters of a giant text (default 26 M)")
    parser.add_argument("--participants", type=int, default=100_000, help="participants of the giant list")
    parser.add_argument("--base-url", default=DEFAULT_BASE, help="the PostgreSQL server (default: the local one)")
    parser.add_argument("--name", default="bench_giant", help="the databases' name prefix (default bench_giant)")
    parser.add_argument("--keep", action="store_true", help="keep the benchmark databases afterwards")
    parser.add_argument("--reuse", action="store_true", help="measure the databases a --keep run left")
    parser.add_argument(
        "--profile", type=int, nargs="?", const=3, default=0, metavar="RENDERS", help="profile each giant item page"
    )
    args = parser.parse_args()
    if args.repeat < 2:
        parser.error("--repeat must be 2 or more (a median and a 90th percentile)")
    review_url, bookkeeping_url = database_urls(args.base_url, f"{args.name}_review", f"{args.name}_bookkeeping")
    with bench_databases(review_url, bookkeeping_url, keep=args.keep, reuse=args.reuse):
        setup_django(review_url, bookkeeping_url)
        migrate()
        _run(args.repeat, args.chars, args.participants, args.profile)


if __name__ == "__main__":
    main()
