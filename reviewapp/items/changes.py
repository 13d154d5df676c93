"""What an answer written by the app changed: the keys, and the agent lines before and after."""

from __future__ import annotations

from typing import Any, Final

import clarifications
from reviewapp.items.item_view import AnswerChange, KeyChange

_MISSING: Final = object()


def _dict(value: object) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def lines_of(channel_context: object) -> tuple[str, ...]:
    summary = clarifications.analyse(channel_context).summary
    return tuple(clarifications.render_lines(summary)) if summary is not None else ()


def answer_change(payload: object) -> AnswerChange | None:
    """The before/after of an answer, from an event payload holding both.

    Only the app's answers carry ``{"before": ..., "after": ...}``; a chat
    answer's payload does not, and gets None.
    """
    data = _dict(payload)
    if "before" not in data or "after" not in data:
        return None
    before, after = data["before"], data["after"]
    old, new = _dict(before), _dict(after)
    changes = [
        KeyChange(key, "added" if key not in old else "changed") for key in new if old.get(key, _MISSING) != new[key]
    ]
    changes += [KeyChange(key, "removed") for key in old if key not in new]
    return AnswerChange(changed_keys=tuple(changes), lines_before=lines_of(before), lines_after=lines_of(after))
