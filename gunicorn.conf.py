"""gunicorn settings for `make serve` and production; each can be changed from the environment.

    gunicorn reviewapp.wsgi -c gunicorn.conf.py

The app keeps no state in the process (sessions, cache and login throttling
live in PostgreSQL), so more capacity is more workers here, or more hosts
running this same command against the same database behind a load balancer.
"""

from __future__ import annotations

import multiprocessing
import os


def _int(name: str, default: int) -> int:
    raw = os.environ.get(name, "").strip()
    return int(raw) if raw else default


# Loopback by default: a proxy (nginx, the load balancer) terminates TLS in front.
bind = os.environ.get("GUNICORN_BIND", "127.0.0.1:8000")

# Sync workers: one request at a time each, one database connection each.
# 2 x cores + 1 is gunicorn's rule of thumb; capped because every worker holds
# a PostgreSQL connection and the database's max_connections is shared by all hosts.
workers = _int("WEB_CONCURRENCY", min(2 * multiprocessing.cpu_count() + 1, 9))
worker_class = "sync"
timeout = _int("GUNICORN_TIMEOUT", 30)
graceful_timeout = 30
keepalive = 5  # behind a load balancer that reuses connections
# Recycle workers now and then so a slow leak can never take a host down.
max_requests = _int("GUNICORN_MAX_REQUESTS", 2000)
max_requests_jitter = 200
# Heartbeat files in memory, not on a possibly slow disk.
worker_tmp_dir = "/dev/shm" if os.path.isdir("/dev/shm") else None  # noqa: S108

# Trust X-Forwarded-* only from the proxy in front (see SECURE_PROXY_SSL_HEADER).
forwarded_allow_ips = os.environ.get("FORWARDED_ALLOW_IPS", "127.0.0.1")

# Access log to stdout with the request id the app puts on every response,
# so a line here leads to the app's log lines (and the 500 page) for the same request.
accesslog = "-"
errorlog = "-"
loglevel = os.environ.get("GUNICORN_LOG_LEVEL", "info")
access_log_format = '%(h)s "%(r)s" %(s)s %(b)s %(M)sms rid=%({x-request-id}o)s'

# gunicorn's control socket (for gunicornc) defaults to one path per user, which
# two instances on one host would share; it is on only when given a path.
control_socket = os.environ.get("GUNICORN_CONTROL_SOCKET", "")
control_socket_disable = not control_socket
