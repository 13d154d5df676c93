"""channel_context builders for the inbox tests (shapes as the chat intake writes them)."""

from __future__ import annotations

from typing import Any


def pending(status: str, *, type_: str = "context", asked_at: str = "2026-11-01T09:00:00Z") -> dict[str, Any]:
    return {"channel": "whatsapp", "pending_question": {"type": type_, "asked_at": asked_at, "status": status}}


def denial() -> dict[str, Any]:
    return {
        "channel": "whatsapp",
        "representation": {"participants": [], "purpose": None, "denied": True, "raw_answer": "nej"},
    }


def participants_only(*names: str) -> dict[str, Any]:
    return {
        "channel": "whatsapp",
        "representation": {"participants": [{"name": n, "company": None} for n in names], "purpose": None},
    }


def note(text: str) -> dict[str, Any]:
    return {"channel": "whatsapp", "user_note": text}
