"""Every template under templates/ is rendered through the view that uses it, and a misspelled name fails.

The tests run with ``settings.STRICT_TEMPLATES`` (tests/envdefaults.py): a
name a template is not given raises instead of printing nothing. Each case
is one request a person (or htmx on their behalf) makes: the status it
gets, a text they see on it, and the template files it renders, recorded
as the engine loads them. Together the cases name every file under
templates/, so a new template without a case fails
``test_every_template_file_has_a_case``.

The engines find disjoint names (``test_no_template_is_found_by_both_engines``):
which engine renders a file never depends on the order of ``TEMPLATES``.
"""

from __future__ import annotations

import datetime as dt
import html
import json
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from unittest import mock

import jinja2
import pytest
from django.conf import settings
from django.contrib.auth.models import User
from django.http import HttpResponse
from django.template import TemplateDoesNotExist, engines
from django.test import Client
from django.urls import reverse

from reviewapp.bookkeeping.models import InboxItem
from reviewapp.core import roles
from reviewapp.models import GoldenCase
from reviewapp.previews.golden import save_golden_case
from reviewapp.readmodel import sync
from reviewapp.web.api_auth import create_token
from tests import factories
from tests.answers.conftest import HTMX, firm_wide_bookkeeper, moved_item
from tests.html import Page

pytestmark = pytest.mark.django_db

TEMPLATE_DIR = Path(settings.BASE_DIR) / "templates"
MISSING = uuid.UUID("00000000-0000-4000-8000-000000000000")


def _template_files() -> set[str]:
    return {path.relative_to(TEMPLATE_DIR).as_posix() for path in TEMPLATE_DIR.rglob("*") if path.is_file()}


@dataclass
class Scene:
    """What the pages show: a company with an item of each kind, a failing golden case, and a client per role."""

    keeper: Client
    support: Client
    qa: Client
    anonymous: Client
    representation: InboxItem  # waiting in the app, with an earlier answer of its company to suggest
    resend: InboxItem  # a resend question, with a newer item of its company to pick
    context: InboxItem  # a context question
    in_chat: InboxItem  # still open in the chat: answering it here is a conflict
    other_context: InboxItem  # a second context question of the company, for the bulk answer
    case: GoldenCase


def _client(user: User | None) -> Client:
    client = Client(raise_request_exception=False)
    if user is not None:
        client.force_login(user)
    return client


@pytest.fixture
def scene() -> Scene:
    company = factories.make_company(name="Tegelbruket AB")
    earlier = moved_item("representation", company=company, status="answered")
    InboxItem.objects.filter(pk=earlier.pk).update(
        extracted_data={"supplier": {"name": "Restaurang Tegel"}},
        channel_context={
            **earlier.channel_context,
            "representation": {
                "participants": [{"name": "Anna Berg", "company": "Volvo AB"}],
                "purpose": "Avtalsmöte",
                "event_date": None,
                "raw_answer": "svar",
                "answered_at": "2026-10-03T12:00:00.000Z",
            },
        },
    )
    representation = moved_item("representation", company=company)
    InboxItem.objects.filter(pk=representation.pk).update(extracted_data={"supplier": {"name": "Restaurang Tegel"}})
    resend = moved_item("resend", company=company, quality={"resend_requested_at": "2026-08-01T09:00:00.000Z"})
    newer = factories.make_item(company=company)
    InboxItem.objects.filter(pk=newer.pk).update(created_at=resend.created_at + dt.timedelta(minutes=5))
    sync.index_items([earlier.pk, representation.pk, newer.pk])
    case = save_golden_case(name="fall 1", value={"channel_context": {"channel": "whatsapp", "user_note": "hej"}})
    GoldenCase.objects.filter(pk=case.pk).update(expected={**case.expected, "notes": "gammal rad"})
    keeper = firm_wide_bookkeeper("bea")
    create_token(keeper, name="skript")
    return Scene(
        keeper=_client(keeper),
        support=_client(factories.make_user(roles.SUPPORT)),
        qa=_client(factories.make_user(roles.QA)),
        anonymous=_client(None),
        representation=representation,
        resend=resend,
        context=moved_item("context", company=company),
        in_chat=moved_item("context", company=company, status="open"),
        other_context=moved_item("context", company=company),
        case=GoldenCase.objects.get(pk=case.pk),
    )


@dataclass(frozen=True)
class Case:
    name: str
    request: Callable[[Scene], HttpResponse]
    status: int
    # What the person sees: this text, in this element (None: anywhere on the answer).
    element: str | None
    text: str
    templates: frozenset[str]
    # An htmx answer: a fragment, never a whole page.
    fragment: bool = False


def _case(
    name: str,
    request: Callable[[Scene], HttpResponse],
    status: int,
    shows: tuple[str | None, str],
    *templates: str,
    fragment: bool = False,
) -> Case:
    return Case(name, request, status, shows[0], shows[1], frozenset(templates), fragment)


def _url(name: str, *args: Any) -> str:
    return reverse(name, args=args)


def _server_error(scene: Scene) -> HttpResponse:
    """The overview when something under it breaks: the 500 page."""
    with mock.patch("reviewapp.web.views.overview.numbers.overview", side_effect=RuntimeError("broken")):
        return scene.keeper.get(_url("overview"))


# Past the app's 1 MiB request cap (settings.REQUEST_BODY_MAX_BYTES): refused before any view reads it.
_TOO_LARGE = {"channel_context": "x" * (1024 * 1024 + 1)}

PAGE = "base.html"
FIELD = "forms/field.html"
PANEL = "items/_answer_panel.html"
LIVE = "items/_answer_preview.html"

# fmt: off
CASES = [
    _case("the login page", lambda s: s.anonymous.get(_url("login")), 200, (None, "Log in"),
          "registration/login.html", PAGE, FIELD),
    _case("the queue", lambda s: s.keeper.get(_url("inbox")), 200,
          ("bulk-select", "Answer the ticked items together"),
          "inbox/list.html", PAGE, "answers/_bulk_bar.html", "answers/_bulk_keys.html"),
    _case("the list's results, for htmx",
          lambda s: s.keeper.get(_url("inbox"), {"sort": "received", "q": "Tegel"}, **HTMX), 200,
          ("inbox-results", "Restaurang Tegel"), "inbox/list.html", fragment=True),
    _case("an item with its answer form and suggestions",
          lambda s: s.keeper.get(_url("item_detail", s.representation.pk)), 200,
          ("answer-suggestions", "Anna Berg (Volvo AB)"), "items/detail.html", PAGE, PANEL, LIVE,
          "answers/_suggestions.html", FIELD),
    _case("a hold with a date in the past, without JavaScript",
          lambda s: s.keeper.post(_url("item_hold", s.context.pk), {"until": "2020-01-01", "reason": "called"}), 200,
          ("team-title", "On hold and notes"), "items/team.html", "items/_team.html", PAGE, FIELD),
    _case("an item with QA's actions", lambda s: s.qa.get(_url("item_detail", s.representation.pk)), 200,
          ("qa-save-golden", "Save as golden case"), "items/detail.html", "items/_qa_actions.html"),
    _case("the answer page of a resend question", lambda s: s.keeper.get(_url("item_answer", s.resend.pk)), 200,
          ("newer-items", "The company's newer items"), "items/answer.html", PAGE, PANEL, LIVE,
          "answers/_newer_items.html", FIELD),
    _case("an answer left empty, for htmx",
          lambda s: s.keeper.post(_url("item_answer", s.context.pk), {"question": "context", "text": ""}, **HTMX),
          200, ("id_text_error", "Write what the purchase was for."), "items/answer.html", PANEL, LIVE, FIELD,
          fragment=True),
    _case("an answer the chat is still asking, for htmx",
          lambda s: s.keeper.post(_url("item_answer", s.in_chat.pk), {"question": "context", "text": "Lunch"}, **HTMX),
          409, ("answer-conflict", "What the agent is told now"), "items/answer.html", PANEL, fragment=True),
    _case("the answer's live preview, for htmx",
          lambda s: s.keeper.post(_url("item_answer_preview", s.context.pk),
                                  {"question": "context", "text": "Lunch med kund"}, **HTMX),
          200, ("preview-agent-after", "Lunch med kund"), LIVE, fragment=True),
    _case("an item without a receipt file", lambda s: s.keeper.get(_url("item_document", s.context.pk)), 404,
          ("document-missing", "This item has no document."), "items/document_missing.html", PAGE),
    _case("a bulk answer",
          lambda s: s.keeper.get(_url("answers_bulk"), {"items": [s.context.pk, s.other_context.pk]}), 200,
          ("bulk-items-title", "2 items of Tegelbruket AB"), "answers/bulk.html", PAGE),
    _case("the overview", lambda s: s.keeper.get(_url("overview")), 200, ("queue-title", "queue"),
          "overview/page.html", PAGE),
    _case("the prompt preview of an example", lambda s: s.qa.get(_url("preview"), {"example": "half-answer"}), 200,
          ("loaded-from", "example"), "preview/page.html", PAGE, FIELD),
    _case("the prompt preview's renderings, for htmx",
          lambda s: s.qa.post(_url("preview"), {"channel_context": json.dumps({"user_note": "Fika med Anna"})},
                              **HTMX),
          200, ("preview-results", "Fika med Anna"), "preview/page.html", fragment=True),
    _case("the golden cases", lambda s: s.qa.get(_url("golden_cases")), 200, ("golden-counts", "1 case"),
          "preview/cases.html", PAGE, FIELD),
    _case("a failing golden case", lambda s: s.qa.get(_url("golden_case_detail", s.case.pk)), 200,
          ("golden-diff", "gammal rad"), "preview/case_detail.html", PAGE, FIELD),
    _case("accepting a case's output", lambda s: s.qa.get(_url("golden_case_accept", s.case.pk)), 200,
          ("golden-diff", "gammal rad"), "preview/case_accept.html", PAGE),
    _case("deleting a case", lambda s: s.qa.get(_url("golden_case_delete", s.case.pk)), 200,
          ("golden-delete", "Delete the case"), "preview/case_delete.html", PAGE),
    _case("the API tokens", lambda s: s.keeper.get(_url("api_tokens")), 200, ("token-table", "skript"),
          "tokens/list.html", PAGE, FIELD),
    _case("a bad request (400)", lambda s: s.anonymous.get(_url("login"), HTTP_HOST="evil.example"), 400,
          (None, "Bad request"), "400.html", PAGE),
    _case("a page the role may not open (403)", lambda s: s.support.get(_url("item_answer", s.context.pk)), 403,
          (None, "Access denied"), "403.html", PAGE),
    _case("an id that names nothing (404)", lambda s: s.keeper.get(_url("item_detail", MISSING)), 404,
          (None, "Page not found"), "404.html", PAGE),
    _case("an address that names nothing (404)", lambda s: s.keeper.get("/no-such-page/"), 404,
          (None, "Page not found"), "404.html", PAGE),
    _case("a server error (500)", _server_error, 500, (None, "Something went wrong"), "500.html"),
    _case("a body too large (413)", lambda s: s.qa.post(_url("preview"), _TOO_LARGE), 413,
          (None, "Too large to send"), "refused.html"),
    _case("a body too large, for htmx (413)", lambda s: s.qa.post(_url("preview"), _TOO_LARGE, **HTMX), 413,
          (None, "Too large to send"), "refused.html", fragment=True),
]
# fmt: on


@pytest.fixture
def loaded(monkeypatch: pytest.MonkeyPatch) -> set[str]:
    """The names of the templates the Jinja2 engine loads: pages, their bases, includes, imports, form fields."""
    env = engines["jinja2"].env  # type: ignore[attr-defined]
    names: set[str] = set()
    get_template = env.get_template

    def recording(name: Any, *args: Any, **kwargs: Any) -> jinja2.Template:
        template = get_template(name, *args, **kwargs)
        names.add(template.name)
        return template

    monkeypatch.setattr(env, "get_template", recording)
    return names


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_each_template_renders_through_its_view(case: Case, scene: Scene, loaded: set[str]) -> None:
    response = case.request(scene)
    body = response.content.decode()
    assert response.status_code == case.status, body[:2000]
    page = Page(body)
    shown = page.text(case.element) if case.element else html.unescape(body)
    assert case.text in shown
    assert ("<html" in body) is not case.fragment
    assert case.templates <= loaded, f"not rendered: {sorted(case.templates - loaded)}"


def test_every_template_file_has_a_case() -> None:
    covered = set().union(*(case.templates for case in CASES))
    assert _template_files() - covered == set(), "add a case to CASES for each new template"
    assert covered - _template_files() == set()


def test_a_name_a_template_is_not_given_fails_the_page() -> None:
    template = engines["jinja2"].from_string("<p>{{ misspelled }}</p>")
    with pytest.raises(jinja2.UndefinedError):
        template.render({})


def test_no_template_is_found_by_both_engines() -> None:
    # The Jinja2 engine reads templates/ only; the Django engine the installed
    # apps only (the admin's, django/forms/...). A file both could pick would
    # be rendered by whichever comes first in TEMPLATES.
    django_engine = engines["django"]
    found_by_both = []
    for name in sorted(_template_files()):
        try:
            django_engine.get_template(name)
        except TemplateDoesNotExist:
            continue
        found_by_both.append(name)
    assert found_by_both == []
