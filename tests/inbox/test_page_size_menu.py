"""The per-page menu shows the size the page lists, also when the URL names none."""

from __future__ import annotations

import re

from django.urls import reverse

from reviewapp.inbox.query import DEFAULT_PAGE_SIZE
from reviewapp.web.forms.inbox import PAGE_SIZE_CHOICES

URL = reverse("inbox")


def _selected_page_size(html: str) -> list[str]:
    menu = re.search(r'<select name="page_size".*?</select>', html, re.S)
    assert menu is not None
    return re.findall(r'<option value="(\d+)"[^>]*\bselected\b', menu.group(0))


def test_without_a_page_size_in_the_url_the_menu_shows_the_default(bookkeeper_client):
    # A bound select with nothing selected shows its first option: the browser said
    # 25 while the page listed the default, and the next filter change went to 25.
    assert PAGE_SIZE_CHOICES[0] != DEFAULT_PAGE_SIZE
    html = bookkeeper_client.get(URL).content.decode()
    assert _selected_page_size(html) == [str(DEFAULT_PAGE_SIZE)]
    assert _selected_page_size(bookkeeper_client.get(URL, {"page_size": ""}).content.decode()) == [
        str(DEFAULT_PAGE_SIZE)
    ]


def test_a_page_size_in_the_url_is_the_one_shown(bookkeeper_client):
    other = next(n for n in PAGE_SIZE_CHOICES if n != DEFAULT_PAGE_SIZE)
    html = bookkeeper_client.get(URL, {"page_size": str(other)}).content.decode()
    assert _selected_page_size(html) == [str(other)]
