"""Public endpoints for machines: ``/healthz`` for the load balancer and ``/favicon.ico``.

Both answer without a login (``login_not_required``). ``/healthz`` is also
exempt from the HTTPS redirect (SECURE_REDIRECT_EXEMPT), because a load
balancer checks each host over plain HTTP; it still needs a Host header in
ALLOWED_HOSTS, like every request.
"""

from __future__ import annotations

import logging

from django.conf import settings
from django.contrib.auth.decorators import login_not_required
from django.db import DatabaseError, connections
from django.http import FileResponse, HttpRequest, HttpResponse, HttpResponseBase, JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_safe

from reviewapp.routers import BOOKKEEPING_DB

logger = logging.getLogger(__name__)

DATABASES = ("default", BOOKKEEPING_DB)
FAVICON = settings.BASE_DIR / "static" / "favicon.ico"


def _database_answers(alias: str) -> bool:
    try:
        with connections[alias].cursor() as cursor:
            cursor.execute("SELECT 1")
            return cursor.fetchone() == (1,)
    except DatabaseError:
        # Django drops the broken connection when the request finishes.
        logger.exception("health check: database %r does not answer", alias)
        return False


@login_not_required
@never_cache
@require_safe
def healthz(request: HttpRequest) -> HttpResponse:
    """200 ``{"status": "ok"}`` when both databases answer ``SELECT 1``; 503 naming the ones that do not."""
    checks = {alias: "ok" if _database_answers(alias) else "unavailable" for alias in DATABASES}
    if all(value == "ok" for value in checks.values()):
        return JsonResponse({"status": "ok", "databases": checks})
    failed = [alias for alias, value in checks.items() if value != "ok"]
    return JsonResponse({"status": "unavailable", "failed": failed, "databases": checks}, status=503)


@login_not_required
@require_safe
def favicon(request: HttpRequest) -> HttpResponseBase:
    # Browsers ask for /favicon.ico on their own, whatever the page declares.
    response = FileResponse(FAVICON.open("rb"), content_type="image/x-icon")
    response["Cache-Control"] = "public, max-age=86400"
    return response
