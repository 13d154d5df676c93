"""At 390 px the list is cards and the nav wraps: the HTML names every cell, the CSS does the rest.

What a browser must confirm (no sideways scroll at 390 px, the nav usable)
is for the browser journeys; here, what the server sends for it.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.urls import reverse

from tests import factories
from tests.inbox.helpers import pending

pytestmark = pytest.mark.django_db

URL = reverse("inbox")
CSS = Path(__file__).resolve().parents[2] / "static" / "css" / "app.css"


def _text(html: str) -> str:
    return " ".join(re.sub(r"<[^>]+>", " ", html).split())


def test_every_cell_is_labelled_with_its_columns_heading_for_the_card_layout(bookkeeper_client):
    factories.make_item(channel_context=pending("moved_to_app"))
    factories.make_item(channel_context=pending("moved_to_app", type_="resend"))
    body = bookkeeper_client.get(URL).content.decode()
    headings = [_text(h) for h in re.findall(r"<th [^>]*>(.*?)</th>", body, re.DOTALL)]
    assert headings == ["Received", "Company", "Supplier", "Total", "State", "Open question", "Waiting in the app"]
    rows = re.findall(r'<tr class="inbox-row[^"]*"[^>]*>(.*?)</tr>', body, re.DOTALL)
    assert len(rows) == 2
    for row in rows:
        labels = re.findall(r'<td role="cell" data-label="([^"]+)"', row)
        assert labels == headings


def test_the_table_keeps_its_roles_when_css_turns_it_into_cards(bookkeeper_client):
    factories.make_item(channel_context=pending("moved_to_app"))
    body = bookkeeper_client.get(URL).content.decode()
    assert '<table class="inbox-table" role="table">' in body
    assert body.count('role="columnheader"') == 7
    assert re.search(r'<tr class="inbox-row" role="row"[ >]', body)


def test_the_list_page_has_no_inline_style_or_script_for_the_csp(bookkeeper_client):
    factories.make_item(channel_context=pending("moved_to_app"))
    response = bookkeeper_client.get(URL)
    body = response.content.decode()
    assert "style=" not in body
    assert "<style" not in body
    assert not re.search(r"<script(?![^>]*\bsrc=)[^>]*>", body)
    assert "'unsafe-inline'" not in response["Content-Security-Policy"]


def test_the_stylesheet_makes_cards_and_wraps_the_nav_on_narrow_screens():
    css = CSS.read_text(encoding="utf-8")
    group = css.split("/* list and nav */", 1)
    assert len(group) == 2, "the list and nav rules are grouped under their comment"
    rules = group[1]
    narrow = re.search(r"@media \(max-width: 50rem\) \{(.*?)\n\}", rules, re.DOTALL)
    assert narrow, "no narrow-screen block"
    block = narrow.group(1)
    assert re.search(r"\.inbox-table thead \{[^}]*clip-path: inset\(50%\)", block)
    assert re.search(r"\.inbox-table tr\.inbox-row \{[^}]*display: grid", block)
    assert re.search(r"\.inbox-table td::before \{[^}]*content: attr\(data-label\)", block)
    assert re.search(r"\.inbox-table td \{[^}]*overflow-wrap: anywhere", block)
    assert re.search(r"\.site-header nav ul \{[^}]*flex-wrap: wrap", rules)
