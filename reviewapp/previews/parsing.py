"""Parsing untrusted JSON, with a size and depth limit and line/column errors.

Pasted JSON is untrusted: its size and nesting depth are checked before it is
parsed, because Python's parser recurses and a 100 000-deep ``[[[[`` would
otherwise end in a ``RecursionError`` deep inside a request.
"""

from __future__ import annotations

import json
import re
from typing import Any, Final

from django.utils.translation import gettext as _

from clarifications.cli import parse_line

#: The largest JSON text the preview accepts (API body, each playground field).
MAX_INPUT_BYTES: Final = 256 * 1024
#: The playground's whole form body: three JSON fields, form-encoded (which
#: can triple their size). Django refuses more than DATA_UPLOAD_MAX_MEMORY_SIZE anyway.
MAX_FORM_BYTES: Final = 1024 * 1024
#: Deeper than any real channel_context (four levels) by a wide margin.
MAX_DEPTH: Final = 64

JsonDict = dict[str, Any]

_STRUCTURAL = re.compile(r'\\.|["\[\]{}]', re.DOTALL)


class InvalidJson(ValueError):
    """A JSON text we refuse, with where the trouble is (1-based) when known."""

    def __init__(self, reason: str, *, line: int | None = None, column: int | None = None, text: str = "") -> None:
        self.reason = reason
        self.line = line
        self.column = column
        self.excerpt = _excerpt(text, line, column)
        super().__init__(self.message)

    @property
    def message(self) -> str:
        if self.line is None:
            return _("Invalid JSON: %(reason)s") % {"reason": self.reason}
        return _("Invalid JSON at line %(line)s, column %(column)s: %(reason)s") % {
            "line": self.line,
            "column": self.column,
            "reason": self.reason,
        }

    def as_json(self) -> JsonDict:
        return {"error": self.message, "line": self.line, "column": self.column}


def _excerpt(text: str, line: int | None, column: int | None) -> str:
    """The offending line with a caret under the column, for the playground."""
    if not text or line is None or column is None:
        return ""
    lines = text.splitlines() or [""]
    if line > len(lines):
        return ""
    shown = lines[line - 1]
    # Keep a long minified line readable: show at most 60 characters either side.
    start = max(0, column - 61)
    snippet = shown[start : column + 60]
    prefix = "…" if start else ""
    return f"{prefix}{snippet}\n{' ' * (len(prefix) + column - 1 - start)}^"


def _position(text: str, offset: int) -> tuple[int, int]:
    line = text.count("\n", 0, offset) + 1
    column = offset - (text.rfind("\n", 0, offset) + 1) + 1
    return line, column


def find_too_deep(text: str, limit: int = MAX_DEPTH) -> int | None:
    """The offset of the first bracket nested deeper than ``limit``, or None.

    A linear scan over the structural characters only (brackets outside
    strings), so it costs milliseconds on the largest accepted input and never
    recurses: ``find_too_deep("[" * 100_000)`` is ``64``.
    """
    if text.count("[") + text.count("{") <= limit:
        return None
    depth = 0
    in_string = False
    for match in _STRUCTURAL.finditer(text):
        char = match.group()
        if char == '"':
            in_string = not in_string
        elif in_string or char[0] == "\\":
            continue
        elif char in "[{":
            depth += 1
            if depth > limit:
                return match.start()
        else:
            depth -= 1
    return None


def parse_json(data: str | bytes) -> Any:
    """Parse one JSON text as ``python -m clarifications`` parses a line.

    Raises ``InvalidJson`` for text that is too large, nested deeper than
    ``MAX_DEPTH``, or not JSON (``NaN`` included: ``JSON.parse`` refuses it).
    Bytes that are not UTF-8 are read as the command line reads them (with
    replacement characters).
    """
    if isinstance(data, bytes):
        raw, text = data, data.decode("utf-8", "replace")
    else:
        raw, text = data.encode("utf-8", "surrogatepass"), data
    if len(raw) > MAX_INPUT_BYTES:
        raise InvalidJson(
            _("%(size)s KiB is more than the %(limit)s KiB the preview accepts")
            % {"size": -(-len(raw) // 1024), "limit": MAX_INPUT_BYTES // 1024}
        )
    too_deep = find_too_deep(text)
    if too_deep is not None:
        line, column = _position(text, too_deep)
        raise InvalidJson(
            _("nested deeper than %(limit)s levels") % {"limit": MAX_DEPTH}, line=line, column=column, text=text
        )
    if not text.strip():
        raise InvalidJson(_("the text is empty"), line=1, column=1, text=text)
    try:
        return parse_line(raw)
    except json.JSONDecodeError as exc:
        raise InvalidJson(exc.msg, line=exc.lineno, column=exc.colno, text=text) from None
    except RecursionError:  # belt and braces: find_too_deep should have caught it
        raise InvalidJson(_("nested too deeply")) from None
    except ValueError as exc:  # NaN, Infinity
        raise InvalidJson(str(exc)) from None
