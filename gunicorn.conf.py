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

# Threaded workers (gthread): a request that waits on the database or a slow
# reader ties up one thread, not a whole process. Each thread holds its own
# database connections (two: the review database and accounted's), so
# workers x threads x hosts must stay below PostgreSQL's max_connections
# (or set DB_POOL=1). Defaults: cores + 1 processes (at most 4) x 4 threads.
# At most BOOKKEEPING_MAX_CONCURRENT of a process's threads (default
# GUNICORN_THREADS - 1) wait on accounted's database at once, so a hung
# accounted always leaves a thread for the pages that do not need it.
workers = _int("WEB_CONCURRENCY", max(2, min(multiprocessing.cpu_count() + 1, 4)))
worker_class = "gthread"
threads = _int("GUNICORN_THREADS", 4)
# The arbiter restarts a worker whose main loop has been silent this long (a
# hung process); with threads a single slow request does not count.
timeout = _int("GUNICORN_TIMEOUT", 30)
graceful_timeout = _int("GUNICORN_GRACEFUL_TIMEOUT", 30)
# An idle kept-alive connection (or one that sent nothing yet) is closed after this.
keepalive = _int("GUNICORN_KEEPALIVE", 5)
# Request-line and header caps, far above what a browser or the proxy sends,
# so an oversized header is refused with 400 before Django sees it.
limit_request_line = 8190
limit_request_fields = 100
limit_request_field_size = 8190
# gunicorn does not buffer: a client that sends its request slowly holds a
# thread until it is done. In production a buffering proxy sits in front and
# hands over only complete requests (docs/deploy/nginx.conf); bind stays on
# loopback so nothing reaches gunicorn around it.

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
