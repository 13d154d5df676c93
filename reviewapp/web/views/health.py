"""Public endpoints for machines: ``/healthz`` for the load balancer and ``/favicon.ico``.

Both answer without a login (``login_not_required``). ``/healthz`` is also
exempt from the HTTPS redirect (SECURE_REDIRECT_EXEMPT), because a load
balancer checks each host over plain HTTP; it still needs a Host header in
ALLOWED_HOSTS, like every request.

``/healthz`` also says how old the list's read model is (``read_model``:
seconds since ``sync_index`` last polled successfully) without failing on
it: a stale list is a reason to look at the sync, not to take the host out
of the load balancer, whose pages and answers read the live rows.
"""

from __future__ import annotations

import logging
from contextlib import AbstractContextManager, nullcontext
from typing import Any

from django.conf import settings
from django.contrib.auth.decorators import login_not_required
from django.db import DatabaseError, connections
from django.http import FileResponse, HttpRequest, HttpResponse, HttpResponseBase, JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_safe

from reviewapp import readmodel
from reviewapp.bookkeeping.routers import BOOKKEEPING_DB
from reviewapp.core import states
from reviewapp.readmodel import replication

logger = logging.getLogger(__name__)

DATABASES = ("default", BOOKKEEPING_DB)
FAVICON = settings.BASE_DIR / "static" / "favicon.ico"


def _bounded(alias: str) -> AbstractContextManager[None]:
    """accounted's check waits at most BOOKKEEPING_HEALTH_CHECK_TIMEOUT (``bounded_pg``), connecting included.

    A load balancer's check must answer within its own timeout, saying
    accounted is down, rather than hang with it. When every slot for accounted
    is taken, the check is refused at once and reports it unavailable too.
    """
    bounded = getattr(connections[alias], "bounded", None)
    return bounded(settings.BOOKKEEPING_HEALTH_CHECK_TIMEOUT) if bounded else nullcontext()


def _database_answers(alias: str) -> bool:
    try:
        with _bounded(alias), connections[alias].cursor() as cursor:
            cursor.execute("SELECT 1")
            return cursor.fetchone() == (1,)
    except DatabaseError:
        # Django drops the broken connection when the request finishes.
        logger.exception("health check: database %r does not answer", alias)
        return False


def _read_model() -> dict[str, Any] | None:
    """The read model's age (None when the review database cannot say)."""
    try:
        last_poll_at = readmodel.synced(with_companies=False).indexed_at
    except DatabaseError:
        logger.exception("health check: the sync state cannot be read")
        return None
    age = readmodel.read_model_age(last_poll_at)
    report: dict[str, Any] = {
        "last_poll_at": states.to_iso(last_poll_at),
        "age_seconds": None if age is None else int(age.total_seconds()),
        "stale_after_seconds": int(readmodel.stale_after().total_seconds()),
        # Never built counts as stale too: the list may be missing items.
        "stale": age is None or age > readmodel.stale_after(),
    }
    if settings.SYNC_SOURCE == "replication":
        # The subscription's state and lag, from the review database's own catalogs.
        try:
            report["replication"] = replication.status().as_json()
        except DatabaseError:
            logger.exception("health check: the subscription's state cannot be read")
            report["replication"] = None
    return report


@login_not_required
@never_cache
@require_safe
def healthz(request: HttpRequest) -> HttpResponse:
    """200 when both databases answer ``SELECT 1``, 503 naming the ones that do not; the read model's age either way."""
    checks = {alias: "ok" if _database_answers(alias) else "unavailable" for alias in DATABASES}
    read_model = _read_model() if checks["default"] == "ok" else None
    if all(value == "ok" for value in checks.values()):
        return JsonResponse({"status": "ok", "databases": checks, "read_model": read_model})
    failed = [alias for alias, value in checks.items() if value != "ok"]
    return JsonResponse(
        {"status": "unavailable", "failed": failed, "databases": checks, "read_model": read_model}, status=503
    )


@login_not_required
@require_safe
def favicon(request: HttpRequest) -> HttpResponseBase:
    # Browsers ask for /favicon.ico on their own, whatever the page declares.
    response = FileResponse(FAVICON.open("rb"), content_type="image/x-icon")
    response["Cache-Control"] = "public, max-age=86400"
    return response
