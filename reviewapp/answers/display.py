"""What an answer looks like once written: the latest answer event, and the
summary, prompt lines, agent view and verifikat line a context renders to.
"""

from __future__ import annotations

from typing import Any

import clarifications
from reviewapp import items
from reviewapp.bookkeeping.models import InboxItem, Undecodable
from reviewapp.models import ClarificationEvent


def latest_answer_event(item: InboxItem) -> ClarificationEvent | None:
    return (
        ClarificationEvent.objects.filter(item_id=item.pk, event_type=ClarificationEvent.ANSWERED)
        .order_by("-occurred_at", "-id")
        .first()
    )


def outputs(item: InboxItem, ctx: object) -> dict[str, Any]:
    """The summary, prompt lines, agent view and verifikat line for ``ctx``."""
    if isinstance(ctx, Undecodable):
        ctx = None
    data = item.extracted_data if not isinstance(item.extracted_data, Undecodable) else None
    summary = clarifications.summarise(ctx)
    agent_view = clarifications.render_agent_view(items.document_id_of(item), data, ctx)
    return {
        "summary": summary.to_json() if summary else None,
        "lines": clarifications.render_lines(summary) if summary else [],
        "notes": clarifications.render_notes(ctx),
        "agent_view": agent_view,
        # One line per entry, exactly as the model receives them.
        "agent_view_text": "\n".join(agent_view),
    }
