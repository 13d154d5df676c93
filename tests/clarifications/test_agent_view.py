"""render_agent_view(): the categorisation agent's view of one inbox underlag."""

from typing import Any

import pytest

from clarifications import render_agent_view, render_case
from clarifications.phrases import AGENT_GUIDANCE

NB = "\u00a0"
NO_DATA = "  • invoice_inbox: (ingen extraherad data: läs underlaget med gnubok_get_document_content)"


def data(
    supplier: Any = None, date: Any = None, currency: Any = None, total: Any = None, vat: Any = None
) -> dict[str, Any]:
    return {
        "supplier": {"name": supplier},
        "invoice": {"invoiceDate": date, "currency": currency},
        "totals": {"total": total, "vatAmount": vat},
    }


BULLETS = [
    (None, None, NO_DATA),
    ("", {}, NO_DATA),
    (None, data(supplier="", date=""), NO_DATA),
    ("doc-9", None, "  • invoice_inbox: document_id=doc-9"),
    # Zero is an amount; only null/absent is left out.
    (None, data(total=0, vat=0), "  • invoice_inbox: total=0 SEK, moms=0 SEK"),
    (None, data(currency="EUR", total=0.5, vat=2.5), "  • invoice_inbox: total=0,5 EUR, moms=2,5 EUR"),
    # `currency ?? 'SEK'`: an empty currency string is kept, not defaulted.
    (None, data(currency="", total=5), "  • invoice_inbox: total=5 "),
    (
        "d",
        data(supplier="Clas Ohlson", date="2026-07-30", total=-1234.5675, vat=1e21),
        f"  • invoice_inbox: document_id=d, leverantör=Clas Ohlson, datum=2026-07-30, "
        f"total=\u22121{NB}234,568 SEK, moms=1{NB}000{NB}000{NB}000{NB}000{NB}000{NB}000{NB}000 SEK",
    ),
    # Extracted data is shown as extracted, not flattened.
    (None, data(supplier="## Ica\nMaxi"), "  • invoice_inbox: leverantör=## Ica\nMaxi"),
]


@pytest.mark.parametrize(("document_id", "extracted", "bullet"), BULLETS)
def test_the_bullet_lists_only_what_was_extracted(document_id: Any, extracted: Any, bullet: str) -> None:
    assert render_agent_view(document_id, extracted, None) == [bullet]


def test_clarification_lines_are_indented_and_followed_by_the_guidance() -> None:
    ctx = {"channel": "whatsapp", "user_note": "hej", "caption": "bild"}
    assert render_agent_view("d", None, ctx) == [
        "  • invoice_inbox: document_id=d",
        "    - anteckning från användaren: hej",
        "",
        AGENT_GUIDANCE,
    ]


@pytest.mark.parametrize(
    "ctx",
    [
        {"channel": "whatsapp", "caption": "bara en bildtext"},
        {"channel": "whatsapp", "pending_question": {"type": "context", "status": "answered"}},
        {"channel": "whatsapp", "representation": {"participants": [], "purpose": None, "event_date": "2026-01-01"}},
    ],
)
def test_no_rendered_line_means_no_guidance_paragraph(ctx: dict[str, Any]) -> None:
    assert render_agent_view("d", None, ctx) == ["  • invoice_inbox: document_id=d"]


ITEM_PROBLEMS = [
    ({"document_id": 5, "extracted_data": None}, NO_DATA, ["item.document_id: expected a string, got number"]),
    ({"document_id": None, "extracted_data": "{}"}, NO_DATA, ["item.extracted_data: expected an object, got string"]),
    (
        {"document_id": None, "extracted_data": {"totals": {"total": "12", "vatAmount": True}}},
        NO_DATA,
        [
            "item.extracted_data.totals.total: expected a number, got string",
            "item.extracted_data.totals.vatAmount: expected a number, got boolean",
        ],
    ),
    (
        {
            "document_id": None,
            "extracted_data": {"supplier": "Ica", "invoice": {"currency": 752}, "totals": {"total": 1}},
        },
        "  • invoice_inbox: total=1 SEK",
        [
            "item.extracted_data.supplier: expected an object, got string",
            "item.extracted_data.invoice.currency: expected a string, got number",
        ],
    ),
    (
        {"document_id": None, "extracted_data": {"supplier": {"name": 7}, "invoice": [], "totals": "x"}},
        NO_DATA,
        [
            "item.extracted_data.invoice: expected an object, got array",
            "item.extracted_data.totals: expected an object, got string",
            "item.extracted_data.supplier.name: expected a string, got number",
        ],
    ),
    (
        {"document_id": None, "extracted_data": {"invoice": {"invoiceDate": 20260101}}},
        NO_DATA,
        ["item.extracted_data.invoice.invoiceDate: expected a string, got number"],
    ),
]


@pytest.mark.parametrize(("item", "bullet", "problems"), ITEM_PROBLEMS)
def test_a_malformed_item_field_is_left_out_and_reported(item: Any, bullet: str, problems: list[str]) -> None:
    out = render_case({"channel_context": {"channel": "whatsapp"}, "item": item})
    assert out["agent_view"] == [bullet]
    assert out["problems"] == problems
