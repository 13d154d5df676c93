"""One unchanged poll of an open queue, in-process: its CPU, its queries and, with --profile, where the time goes.

    .venv/bin/python bench/load.py --items 20000 --idle-queues 50 --duration 60 --name bench_live --keep
    .venv/bin/python bench/poll_profile.py --name bench_live [--repeat 300] [--profile]

Runs on the databases a ``load.py --keep`` run left (its bookkeeper ``load000``,
every company assigned), with Django's test client: the whole middleware stack
and the view, no gunicorn and no network, so it measures what the app itself
spends on a ``304`` (``bench/README.md``, "Idle open queues"). The queue is
asked once without a tag, then ``--repeat`` times as ``static/js/inbox.js``
polls it (``HX-Request``, ``HX-Trigger: inbox-live``, ``If-None-Match``). The
figure is this process's CPU time per poll (``time.process_time``), the test
client's own share included (``/favicon.ico`` through the same client is
printed beside it as the floor).
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import secrets
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
QUEUE = "/?state=needs_answer&sort=queue"
POLL_HEADERS = {"HTTP_HX_REQUEST": "true", "HTTP_HX_TRIGGER": "inbox-live", "HTTP_ACCEPT_LANGUAGE": "sv"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--name", default="bench_live", help="the prefix load.py --keep left (default bench_live)")
    parser.add_argument("--base-url", default="postgres://postgres@127.0.0.1:5432")
    parser.add_argument("--repeat", type=int, default=300)
    parser.add_argument("--profile", action="store_true", help="print cProfile's top functions (CPU time)")
    args = parser.parse_args()
    base = args.base_url.rstrip("/")
    os.environ.update(
        DATABASE_URL=f"{base}/{args.name}_review",
        BOOKKEEPING_DATABASE_URL=f"{base}/{args.name}_bookkeeping",
        SECRET_KEY=secrets.token_urlsafe(50),
        DEBUG="0",
        ALLOWED_HOSTS="testserver",
        SECURE_SSL_REDIRECT="0",
        DJANGO_SETTINGS_MODULE="reviewapp.settings",
        LOG_LEVEL="WARNING",
    )
    sys.path.insert(0, str(ROOT))
    import django

    django.setup()
    from django.contrib.auth.models import User
    from django.db import connection
    from django.test import Client

    client = Client()
    client.force_login(User.objects.get(username="load000"))
    first = client.get(QUEUE, **POLL_HEADERS)
    tag = first["ETag"]
    headers = {**POLL_HEADERS, "HTTP_IF_NONE_MATCH": tag}
    for _ in range(20):  # warm: the first requests import and compile what the rest reuse
        assert client.get(QUEUE, **headers).status_code == 304
    statements: list[str] = []

    def count(execute, sql, params, many, context):  # type: ignore[no-untyped-def]
        statements.append(sql)
        return execute(sql, params, many, context)

    with connection.execute_wrapper(count):
        client.get(QUEUE, **headers)
    started = time.process_time()
    for _ in range(args.repeat):
        client.get(QUEUE, **headers)
    per_poll = (time.process_time() - started) / args.repeat * 1000
    started = time.process_time()
    for _ in range(args.repeat):
        client.get("/favicon.ico")
    floor = (time.process_time() - started) / args.repeat * 1000
    print(f"first answer {first.status_code}, then 304 × {args.repeat + 21}")
    print(f"queries per 304: {len(statements)}")
    for sql in statements:
        print(f"  {' '.join(sql.split())[:110]}")
    print(f"CPU per 304: {per_poll:.2f} ms (the test client's /favicon.ico: {floor:.2f} ms)")
    if args.profile:
        profile = cProfile.Profile(time.process_time)
        profile.enable()
        for _ in range(args.repeat):
            client.get(QUEUE, **headers)
        profile.disable()
        pstats.Stats(profile).sort_stats("cumulative").print_stats(40)


if __name__ == "__main__":
    main()
