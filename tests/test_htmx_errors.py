"""Which answers htmx swaps in: base.html's ``htmx-config`` (``responseHandling``), read as htmx 2 reads it.

A refusal comes with its real status (a conflict is a 409, a body too large
a 413). htmx 2 swaps no 4xx or 5xx unless told to; the page tells it which:
the answer panel's conflict where it was aimed, a request refused as a whole
in ``#request-refused`` (the form and what was typed stay), and nothing else.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from django.urls import reverse

from tests.html import Page

pytestmark = pytest.mark.django_db


def _config(client: Any) -> dict[str, Any]:
    meta = next(
        tag
        for tag in Page(client.get(reverse("login")).content.decode()).tags("meta")
        if tag.get("name") == "htmx-config"
    )
    return json.loads(meta["content"] or "")


def _handling(config: dict[str, Any], status: int) -> dict[str, Any]:
    """htmx 2's resolveResponseHandling: the first entry whose code (a regular expression) matches."""
    return next(entry for entry in config["responseHandling"] if re.search(entry["code"], str(status)))


def test_htmx_swaps_a_conflict_where_it_was_aimed(client):  # type: ignore[no-untyped-def]
    assert _handling(_config(client), 409) == {"code": "^409$", "swap": True}


@pytest.mark.parametrize("status", [413, 503])
def test_htmx_says_a_refusal_of_the_whole_request_beside_the_form(client, status):  # type: ignore[no-untyped-def]
    handling = _handling(_config(client), status)
    assert (handling["swap"], handling["target"], handling["swapOverride"]) == (True, "#request-refused", "innerHTML")
    assert not handling.get("error")


@pytest.mark.parametrize("status", [400, 403, 404, 422, 500, 502])
def test_htmx_swaps_no_other_error_page_into_a_region(client, status):  # type: ignore[no-untyped-def]
    # Whole pages meant for a tab (Django's error pages, a CSRF failure, a proxy's): an htmx:responseError.
    assert _handling(_config(client), status) == {"code": ".*", "swap": False, "error": True}


@pytest.mark.parametrize(("status", "swap"), [(200, True), (204, False), (286, True)])
def test_htmx_swaps_successes_as_by_default(client, status, swap):  # type: ignore[no-untyped-def]
    assert _handling(_config(client), status)["swap"] is swap


def test_the_config_keeps_htmx_from_inline_styles_and_eval(client):  # type: ignore[no-untyped-def]
    config = _config(client)
    assert (config["includeIndicatorStyles"], config["allowEval"], config["allowScriptTags"]) == (False, False, False)
