"""One way to count characters: the counter (static/js/count.js), the server's limit and its message agree.

The count is JavaScript's ``String.length`` (UTF-16 code units), as accounted
and its renderer count: the expected numbers below are worked out by hand
from the Unicode code points (one unit below U+10000, two above).
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from django.urls import reverse

from reviewapp.answers.inputs import ContextAnswer
from reviewapp.answers.validation import MAX_TEXT_LENGTH, AnswerInvalid, validate
from reviewapp.core import text
from tests.answers.conftest import HTMX, moved_item
from tests.html import Page

COUNT_JS = Path(__file__).resolve().parents[2] / "static" / "js" / "count.js"

PIZZA = "\U0001f355"  # 🍕: one code point above U+FFFF, two units
THUMB_MEDIUM = "\U0001f44d\U0001f3fd"  # 👍🏽: thumbs up + skin tone, two code points, four units
FLAG_SE = "\U0001f1f8\U0001f1ea"  # 🇸🇪: two regional indicators, four units
E_ACUTE_COMBINING = "e\u0301"  # é as e + combining acute: two units
FAMILY = "\U0001f468\u200d\U0001f469\u200d\U0001f467"  # 👨‍👩‍👧: three emoji joined by two ZWJ: 3*2 + 2

CASES = [
    ("Lunch " + PIZZA + " med kund " + THUMB_MEDIUM, 6 + 2 + 10 + 4),
    (FLAG_SE + " Stockholm", 4 + 10),
    ("Cr" + E_ACUTE_COMBINING + "me br\u00fbl" + E_ACUTE_COMBINING, 2 + 2 + len("me br") + 1 + 1 + 2),
    (FAMILY, 8),
    ("  rad ett\r\nrad tv\u00e5  ", 15),
]


@pytest.mark.parametrize(("value", "units"), CASES)
def test_the_server_counts_as_javascript_does(value, units):
    assert text.length(value.replace("\r\n", "\n").strip()) == units


@pytest.mark.skipif(shutil.which("node") is None, reason="needs node to run the counter's own code")
def test_the_counter_counts_what_the_server_counts():
    script = (
        f"const {{charCount}} = require({json.dumps(str(COUNT_JS))});"
        "const input = JSON.parse(require('fs').readFileSync(0, 'utf8'));"
        "process.stdout.write(JSON.stringify(input.map(charCount)));"
    )
    done = subprocess.run(
        ["node", "-e", script],
        input=json.dumps([value for value, _ in CASES]),
        capture_output=True,
        text=True,
        timeout=30,
        check=True,
    )
    assert json.loads(done.stdout) == [units for _, units in CASES]


def test_1999_letters_and_two_emoji_are_2003_and_three_over():
    with pytest.raises(AnswerInvalid) as caught:
        validate(ContextAnswer(text="a" * 1999 + PIZZA + THUMB_MEDIUM[:1]))
    (message,) = caught.value.errors["text"]
    assert message == "3 characters over the limit: use at most 2000 (this has 2003)."


def test_a_text_of_exactly_the_limit_in_units_passes_and_one_flag_more_does_not():
    exactly = "a" * (MAX_TEXT_LENGTH - 4) + FLAG_SE
    assert validate(ContextAnswer(text=exactly)).text == exactly
    with pytest.raises(AnswerInvalid):
        validate(ContextAnswer(text="a" * (MAX_TEXT_LENGTH - 3) + FLAG_SE))


@pytest.mark.django_db
def test_the_page_refuses_a_text_the_counter_shows_over_the_limit(bookkeeper_client):
    item = moved_item("context")
    # 1 997 letters and a skin-toned thumb: 1 998 code points, but 2 001 as the counter counts.
    response = bookkeeper_client.post(
        reverse("item_answer", args=[item.pk]),
        {"question": "context", "text": "a" * 1997 + THUMB_MEDIUM},
        **HTMX,
    )
    page = Page(response.content.decode())
    assert page.text("id_text_error") == "1 character over the limit: use at most 2000 (this has 2001)."
    item.refresh_from_db()
    assert "user_note" not in item.channel_context
