"""reviewapp.web.htmx: one place decides what a page answers an htmx request (the answer views use it)."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import RequestFactory
from django_htmx.middleware import HtmxDetails

from reviewapp.web.htmx import HtmxHttpRequest, redirect_htmx, render_htmx
from reviewapp.web.view_models.panel import answer_panel
from tests.answers.conftest import moved_item
from tests.html import Page

pytestmark = pytest.mark.django_db

PAGE = "items/answer.html"


def made(user: User, *, htmx: bool) -> HtmxHttpRequest:
    request: Any = RequestFactory().get("/", headers={"HX-Request": "true"} if htmx else {})
    request.htmx = HtmxDetails(request)
    request.user = user
    return request


@pytest.fixture
def context(bookkeeper):  # type: ignore[no-untyped-def]
    item = moved_item("context", status="open")  # still in the chat: the panel says so, nothing is reserved
    return {"item": item, "answer_panel": answer_panel(item, bookkeeper)}


def test_a_page_and_htmx_s_partial_both_keep_the_status(bookkeeper, context):
    page = render_htmx(made(bookkeeper, htmx=False), PAGE, context, partial="answer_panel", status=409)
    fragment = render_htmx(made(bookkeeper, htmx=True), PAGE, context, partial="answer_panel", status=409)
    assert page.status_code == 409
    assert "<html" in page.content.decode()
    # htmx swaps a 409 in because base.html's htmx-config says so: no 200 standing in for it.
    assert fragment.status_code == 409
    html = fragment.content.decode()
    assert "<html" not in html
    assert html.strip().startswith('<section id="answer-panel"')
    assert Page(html).has("answer-waiting")


def test_htmx_is_told_which_url_to_show_and_a_page_is_not(bookkeeper, context):
    url = "/?state=needs_answer&sort=queue"
    fragment = render_htmx(made(bookkeeper, htmx=True), PAGE, context, partial="answer_panel", url=url)
    page = render_htmx(made(bookkeeper, htmx=False), PAGE, context, partial="answer_panel", url=url)
    assert fragment["HX-Push-Url"] == url
    assert "HX-Push-Url" not in page


def test_a_redirect_loads_the_whole_page_for_htmx(bookkeeper):
    for_htmx = redirect_htmx(made(bookkeeper, htmx=True), "/items/x/")
    plain = redirect_htmx(made(bookkeeper, htmx=False), "/items/x/")
    assert (for_htmx.status_code, for_htmx["HX-Redirect"]) == (200, "/items/x/")
    assert (plain.status_code, plain["Location"]) == (302, "/items/x/")
