"""Rendering an input line exactly as ``python -m clarifications`` does, shaped for the playground."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from clarifications import render_case
from clarifications.cli import dump_line, parse_line
from reviewapp.bookkeeping.models import InboxItem
from reviewapp.core import text
from reviewapp.previews.parsing import JsonDict

_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def case_input(channel_context: Any, document_id: str | None, extracted_data: Any) -> JsonDict:
    """The input line for one underlag. ``item`` is always given, so the agent view renders."""
    return {"channel_context": channel_context, "item": {"document_id": document_id, "extracted_data": extracted_data}}


def line_from_texts(channel_context: str, document_id: str | None, extracted_data: str | None) -> JsonDict:
    """The input line the playground's fields make, parsed as one line.

    Each text must already have passed ``parse_json``. The command line reads a
    number by where it sits in the whole line (``-0`` keeps its sign only as a
    zero amount of ``item.extracted_data``), so the fields are joined into that
    line and parsed together rather than one by one.
    """
    line = b"".join(
        (
            b'{"channel_context":',
            channel_context.encode("utf-8", "surrogatepass"),
            b',"item":{"document_id":',
            dump_line(document_id),
            b',"extracted_data":',
            (extracted_data or "null").encode("utf-8", "surrogatepass"),
            b"}}",
        )
    )
    value = parse_line(line)
    assert isinstance(value, dict)  # built as an object above
    return value


def render(value: Any) -> JsonDict:
    """Exactly what ``python -m clarifications`` prints for the input line ``value``.

    The input goes through the command's own serialiser and parser first, so
    numbers are read as ``JSON.parse`` reads them; the output comes back the
    same way, so a saved expectation matches what the command line prints.
    """
    printed = dump_line(render_case(parse_line(dump_line(value))))
    return json.loads(printed)


def _escape_surrogate(match: re.Match[str]) -> str:
    return f"\\u{ord(match.group()):04x}"


def escape_surrogates(text: str) -> str:
    """``text`` with each lone surrogate written as its ``\\udXXX`` JSON escape, so it can be sent as UTF-8."""
    return _LONE_SURROGATE.sub(_escape_surrogate, text)


def pretty(value: Any) -> str:
    """Indented JSON for people. A lone surrogate (the notes cap can cut an
    emoji in half) is written as its ``\\udXXX`` escape, which is still exact
    JSON and, unlike the raw character, can be sent as UTF-8."""
    return escape_surrogates(json.dumps(value, ensure_ascii=False, indent=2))


@dataclass(frozen=True)
class Rendering:
    """Every rendering of one input, shaped for the playground."""

    input: JsonDict
    output: JsonDict

    @property
    def summary_json(self) -> str:
        return pretty(self.output.get("summary"))

    @property
    def lines(self) -> list[str]:
        return list(self.output.get("lines") or [])

    @property
    def notes(self) -> str | None:
        return self.output.get("notes")

    @property
    def agent_view(self) -> str | None:
        view = self.output.get("agent_view")
        return None if view is None else "\n".join(view)

    @property
    def problems(self) -> list[str]:
        """The renderer's own problems, then every text direction control in the input (the renderer keeps them)."""
        return list(self.output.get("problems") or []) + direction_problems(self.input)

    @property
    def printed(self) -> str:
        """The line ``python -m clarifications`` prints (lone surrogates escaped)."""
        return dump_line(self.output).decode("utf-8")


def direction_problems(value: Any, path: str = "") -> list[str]:
    """Each text in ``value`` holding a text direction control, named by its path, with the answer form's message.

    The renderer passes such a control on untouched, so the prompt line (and
    this page) shows the text in another order than it is stored: QA must be
    told, as a bookkeeper typing it into an answer is.
    """
    if isinstance(value, str):
        message = text.direction_problem(value)
        return [] if message is None else [f"{path or '$'}: {message}"]
    found: list[str] = []
    if isinstance(value, dict):
        for key, child in value.items():
            found += direction_problems(key, f"{path}.{key}" if path else str(key))
            found += direction_problems(child, f"{path}.{key}" if path else str(key))
    elif isinstance(value, list):
        for index, child in enumerate(value):
            found += direction_problems(child, f"{path}[{index}]")
    return found


def render_input(value: JsonDict) -> Rendering:
    return Rendering(input=value, output=render(value))


def input_for_item(item: InboxItem) -> JsonDict:
    return case_input(
        item.channel_context,
        None if item.document_id is None else str(item.document_id),
        item.extracted_data,
    )
