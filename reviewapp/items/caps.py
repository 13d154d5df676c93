"""Cutting the item page's stored texts to their caps, and remembering what was cut.

Every text the item page and ``GET /api/items/<id>`` take from a stored row
is cut to its cap from ``reviewapp.core.rendering_caps`` when the ``ItemView`` is
built, so the page and the API carry the same cut values. Each view part
keeps ``cut``: the name of each field that was cut and how long it was
(characters for a text, entries for a list). The page puts a marker after a
cut value ("the first 10 000 of 26 000 000 characters"), with a link to the
whole stored value for those who may download it; the API adds
``"truncated": {field: original length}`` to the object holding the field,
only when something in it was cut.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, Final, TypeVar

from reviewapp.core.rendering_caps import (
    HUMAN_FIELDS,
    HUMAN_TEXT_MAX_CHARS,
    JSON_INDENT_DEPTH,
    PARTICIPANTS_MAX,
    PERSON_TEXT_MAX_CHARS,
    TextBudget,
    capped_json,
    capped_text,
)

T = TypeVar("T")

#: The API's ``summary`` (the library's structured summary, the same texts
#: as "what the human said"): every text and entry together.
SUMMARY_MAX_CHARS: Final = HUMAN_FIELDS * HUMAN_TEXT_MAX_CHARS + PARTICIPANTS_MAX * 2 * PERSON_TEXT_MAX_CHARS

#: Keys listed as changed by one answer (a context has a dozen).
CHANGED_KEYS_MAX: Final = 50


class Cuts:
    """Cuts one view part's texts, each to its own cap and, with a ``budget``, to what the section has left.

    ``original`` is the part's ``cut``: each cut field and its length before::

        cuts = Cuts()
        cuts.text("user_note", "x" * 26_000_000, max_chars=10_000)  # "x" * 10_000
        cuts.original  # {"user_note": 26_000_000}
    """

    def __init__(self, budget: TextBudget | None = None) -> None:
        self.budget = budget
        self.original: dict[str, int] = {}

    def text(self, name: str, value: str | None, *, max_chars: int) -> str | None:
        if value is None:
            return None
        if self.budget is not None:
            capped = self.budget.take(value, max_chars=max_chars)
        else:
            capped = capped_text(value, max_chars=max_chars)
        if capped.truncated:
            self.original[name] = capped.original_chars
        return capped.text

    def required(self, name: str, value: str, *, max_chars: int) -> str:
        """``text`` for a field that is never None."""
        return self.text(name, value, max_chars=max_chars) or ""

    def entries(self, name: str, values: Sequence[T], *, max_entries: int) -> tuple[T, ...]:
        if len(values) > max_entries:
            self.original[name] = len(values)
        return tuple(values[:max_entries])

    def lines(self, name: str, values: Sequence[str], *, max_chars: int) -> tuple[str, ...]:
        """The first lines that fit ``max_chars`` together; the line that does not is cut, the rest left out.

        A short text (every golden case) comes back exactly as it was: lines
        are only ever cut when together they pass the cap.
        """
        budget = TextBudget(max_chars if self.budget is None else min(max_chars, self.budget.remaining))
        kept: list[str] = []
        for line in values:
            capped = budget.take(line, max_chars=max_chars)
            kept.append(capped.text)
            if capped.truncated:
                self.original[name] = len("\n".join(values))
                break
        if self.budget is not None:
            self.budget.remaining -= sum(len(line) for line in kept)
        return tuple(kept)


def with_cuts(data: dict[str, Any], cut: dict[str, int]) -> dict[str, Any]:
    """``data`` with ``"truncated"`` when something of it was cut (JSON of a view part)."""
    if cut:
        data["truncated"] = dict(cut)
    return data


def shrink_json(value: Any, *, max_chars: int = SUMMARY_MAX_CHARS) -> tuple[Any, bool]:
    """``value`` with every text cut to ``HUMAN_TEXT_MAX_CHARS``, lists and objects to ``PARTICIPANTS_MAX``
    entries, and all of it to about ``max_chars`` characters; and whether anything was cut.

    A value within the caps comes back unchanged (equal, not a copy of
    another shape). A container nested deeper than ``JSON_INDENT_DEPTH``
    becomes its compact JSON text, cut like any text: the structure of a
    summary is three levels deep, anything deeper is stored noise.
    """
    budget = TextBudget(max_chars)
    cut = [False]

    def text(raw: str) -> str:
        capped = budget.take(raw, max_chars=HUMAN_TEXT_MAX_CHARS)
        cut[0] = cut[0] or capped.truncated
        return capped.text

    def walk(node: Any, depth: int) -> Any:
        if isinstance(node, str):
            return text(node)
        if isinstance(node, dict | list) and depth >= JSON_INDENT_DEPTH:
            cut[0] = True
            return text(capped_json(node, max_chars=HUMAN_TEXT_MAX_CHARS + 1, max_depth=0).text)
        if isinstance(node, dict):
            kept: dict[str, Any] = {}
            for index, (key, member) in enumerate(node.items()):
                if index >= PARTICIPANTS_MAX or budget.remaining <= 0:
                    cut[0] = True
                    break
                kept[text(str(key))] = walk(member, depth + 1)
            return kept
        if isinstance(node, list):
            items: list[Any] = []
            for index, member in enumerate(node):
                if index >= PARTICIPANTS_MAX or budget.remaining <= 0:
                    cut[0] = True
                    break
                items.append(walk(member, depth + 1))
            return items
        if isinstance(node, int | float) and not isinstance(node, bool):
            # At most 4 300 digits (Python reads no longer), but it counts.
            budget.remaining -= len(json.dumps(node))
        return node

    return walk(value, 0), cut[0]
