"""Admin forms whose JSON fields never 500, whatever is typed into them.

Django's ``forms.JSONField`` reads with ``json.loads`` and catches only
``JSONDecodeError``: a 5 000-digit integer (Python's 4 300-digit limit)
raises ``ValueError`` and 10 000-deep nesting ``RecursionError``, both a
500. What it does read may still be refused by PostgreSQL's jsonb when the
row is saved (``NaN``, ``Infinity``, ``1e400``, ``\\u0000``, a lone
surrogate): another 500. ``SafeJSONField`` reads with the project's safe
decoder and refuses all of these with a message under the field, plus
integers JavaScript cannot hold exactly (past ±2**53), since the renderer
treats every number as a JavaScript double.

Wire it with one line in ``GoldenCaseAdmin``: ``form = GoldenCaseAdminForm``.
"""

from __future__ import annotations

import math
from typing import Any, Final

from django import forms
from django.core.exceptions import ValidationError
from django.forms.fields import InvalidJSONInput, JSONString  # type: ignore[attr-defined]
from django.utils.translation import gettext as _

from reviewapp.core.stored_json import Undecodable, decode_json
from reviewapp.models import GoldenCase

# JavaScript's Number.MAX_SAFE_INTEGER + 1: past it, integers lose digits in a double.
SAFE_INTEGER: Final = 2**53


def json_problem(value: Any) -> str | None:
    """Why a decoded value cannot be stored as jsonb and read back the same, or None.

    Walks the value with a stack, not recursion, so depth never matters.
    """
    stack: list[Any] = [value]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            for key, inner in node.items():
                problem = _string_problem(key) if isinstance(key, str) else None
                if problem:
                    return problem
                stack.append(inner)
        elif isinstance(node, list):
            stack.extend(node)
        elif isinstance(node, str):
            problem = _string_problem(node)
            if problem:
                return problem
        elif isinstance(node, bool) or node is None:
            continue
        elif isinstance(node, int):
            if not -SAFE_INTEGER <= node <= SAFE_INTEGER:
                return _("A number is too large: whole numbers must lie between -2^53 and 2^53.")
        elif isinstance(node, float) and not math.isfinite(node):
            return _("NaN and Infinity are not JSON, and a number this large cannot be stored.")
    return None


def _string_problem(text: str) -> str | None:
    if "\x00" in text:
        return _("The NUL character (\\u0000) cannot be stored.")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return _("Half an emoji (a lone surrogate such as \\ud83d) cannot be stored.")
    return None


def _undecodable_message(value: Undecodable) -> str:
    if "digits" in value.reason or "integer string conversion" in value.reason:
        return _("A number is too large: whole numbers must lie between -2^53 and 2^53.")
    if "nested too deep" in value.reason:
        return _("The JSON is nested too deep to read.")
    return _("Enter valid JSON: %(reason)s.") % {"reason": value.reason}


class SafeJSONField(forms.JSONField):
    """A JSON form field that refuses, with a message, what would otherwise be a 500."""

    def to_python(self, value: Any) -> Any:
        if self.disabled:
            return value
        if value in self.empty_values:
            return None
        if isinstance(value, list | dict | int | float | JSONString):
            converted = value
        else:
            converted = decode_json(value)
            if isinstance(converted, Undecodable):
                raise ValidationError(_undecodable_message(converted), code="invalid")
        problem = json_problem(converted)
        if problem is not None:
            raise ValidationError(problem, code="invalid")
        return JSONString(converted) if isinstance(converted, str) else converted

    def bound_data(self, data: Any, initial: Any) -> Any:
        # Re-showing the form after an error: the text as typed, never parsed again.
        if self.disabled:
            return initial
        if data is None:
            return None
        decoded = decode_json(data)
        if isinstance(decoded, Undecodable) or json_problem(decoded) is not None:
            return InvalidJSONInput(data)
        return decoded


class GoldenCaseAdminForm(forms.ModelForm):
    class Meta:
        model = GoldenCase
        fields = ("name", "input", "expected", "tags", "source_item_id")
        field_classes = {"input": SafeJSONField, "expected": SafeJSONField, "tags": SafeJSONField}
