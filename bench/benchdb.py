"""The benchmark scripts' own PostgreSQL database: named, guarded, (re)created.

Imported by bench/list_bench.py and bench/load.py, which run as scripts with
bench/ first on sys.path.
"""

from __future__ import annotations

from urllib.parse import urlsplit, urlunsplit

# Databases a benchmark must never drop: the test suite's and the server's own.
PROTECTED = {"test", "postgres", "template0", "template1"}


def database_name(url: str) -> str:
    """The database ``url`` names, refusing one the benchmark must not drop."""
    name = urlsplit(url).path.lstrip("/")
    if not name or name in PROTECTED:
        raise SystemExit(f"refusing to use database {name!r}: give the benchmark a database of its own")
    return name


def recreate_database(url: str, *, drop_only: bool = False) -> None:
    """Drop the database ``url`` names and, unless ``drop_only``, create it empty."""
    import psycopg

    name = database_name(url)
    parts = urlsplit(url)
    maintenance = urlunsplit((parts.scheme, parts.netloc, "/postgres", parts.query, parts.fragment))
    with psycopg.connect(maintenance, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        if not drop_only:
            conn.execute(f'CREATE DATABASE "{name}"')
