"""Builders for channel_context records in the shape the WhatsApp bot writes."""

from typing import Any


def wa(**fields: Any) -> dict[str, Any]:
    """A WhatsApp record with the given top-level fields."""
    return {"channel": "whatsapp", **fields}


def rep(participants: Any, purpose: Any = None, **more: Any) -> dict[str, Any]:
    """A representation answer; ``more`` adds or overrides fields (``denied=True``)."""
    return {"participants": participants, "purpose": purpose, "event_date": None, "raw_answer": "x", **more}


def person(name: Any, company: Any = None) -> dict[str, Any]:
    return {"name": name, "company": company}
