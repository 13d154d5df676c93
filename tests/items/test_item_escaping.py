"""The item page escapes every human-typed text and needs no inline script or style."""

from __future__ import annotations

from reviewapp.models import ClarificationEvent
from tests import factories
from tests.html import page_of
from tests.items.bookkeeping import (
    PNG,
    accounted_event,
    make_document,
)
from tests.items.page import ASKED_AT, url

# --- Escaping -----------------------------------------------------------------------

SCRIPT = "<script>alert('x')</script>"
MARKUP = '<img src=x onerror="alert(1)"><b>fet</b>'


def test_human_typed_text_is_escaped_everywhere(support_client, company):
    item = factories.make_item(
        company,
        extracted_data={"supplier": {"name": SCRIPT}, "invoice": {"invoiceDate": MARKUP}},
        channel_context={
            "channel": "whatsapp",
            "caption": MARKUP,
            "user_note": SCRIPT,
            "context_answer": {"raw_answer": MARKUP},
            "representation": {
                "participants": [{"name": SCRIPT, "company": MARKUP}],
                "purpose": MARKUP,
                "event_date": SCRIPT,
                "raw_answer": MARKUP,
            },
            # Short: the type lands in 20-character columns.
            "pending_question": {"type": "<b>fet</b>", "asked_at": ASKED_AT, "status": "open"},
        },
    )
    accounted_event(
        item,
        ClarificationEvent.ASKED,
        ASKED_AT,
        actor={"type": "system", "id": "x", "label": SCRIPT},
        question_type="<b>fet</b>",
    )

    response = support_client.get(url(item))

    body = response.content.decode()
    assert response.status_code == 200
    assert "<script>alert" not in body
    assert "<b>fet</b>" not in body
    assert "&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt;" in body
    page = page_of(response)
    # Only our own scripts (with src) and no injected elements or handlers.
    assert all(script.get("src") for script in page.tags("script"))
    assert all(not img.get("onerror") for img in page.tags("img"))
    assert page.tags("b") == []
    # The text still reads as the human typed it.
    assert SCRIPT in page.text("human-said")
    assert MARKUP in page.text("human-said")


def test_the_page_needs_no_inline_script_or_style(support_client, company):
    item = factories.make_item(
        company,
        channel_context={
            "channel": "whatsapp",
            "pending_question": {"type": "context", "asked_at": ASKED_AT, "status": "moved_to_app"},
        },
        document=make_document(company, content=PNG),
    )

    page = page_of(support_client.get(url(item)))

    assert page.tags("style") == []
    for tag, attrs in page.all_tags():
        assert "style" not in attrs, tag
        assert not [name for name in attrs if name.startswith("on")], tag
    assert all(script.get("src") for script in page.tags("script"))
    assert any(str(script.get("src")).endswith("js/item.js") for script in page.tags("script"))
