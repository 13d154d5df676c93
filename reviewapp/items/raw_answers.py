"""The stored ``raw_answer`` texts in pieces, each labelled by who wrote it, for the item page and the panel.

``raw_answer`` may hold the customer's words from the chat, the customer's
words a bookkeeper entered (by phone, e-mail or a message) and the firm's
attributed text, one after the other (``reviewapp.answers.evidence``). The
screens call only the customer's words theirs; the app's log tells the
pieces apart.
"""

from __future__ import annotations

from collections.abc import Sequence

from reviewapp.answers import evidence
from reviewapp.core.rendering_caps import HUMAN_TEXT_MAX_CHARS, TextBudget
from reviewapp.items.item_view import RawPieceView
from reviewapp.items.labels import raw_source_label
from reviewapp.models import ClarificationEvent


def raw_pieces(ctx: object, question: str, log: Sequence[ClarificationEvent]) -> tuple[RawPieceView, ...]:
    """The stored ``raw_answer`` of ``question`` in labelled pieces, together cut to ``HUMAN_TEXT_MAX_CHARS``."""
    raw = evidence.stored_raw_answer(ctx, question)
    if raw is None or not raw.strip():
        return ()
    budget = TextBudget(HUMAN_TEXT_MAX_CHARS)
    pieces = []
    for part in evidence.raw_answer_parts(raw, question, log):
        capped = budget.take(part.text, max_chars=HUMAN_TEXT_MAX_CHARS)
        pieces.append(
            RawPieceView(
                text=capped.text,
                source=part.source,
                label=raw_source_label(part.source),
                customer_words=part.is_customer_words,
                original_chars=capped.original_chars if capped.truncated else None,
            )
        )
        if capped.truncated:
            break
    return tuple(pieces)
