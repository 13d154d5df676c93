"""Golden cases: a saved input checked against what the current code renders, and the diffs."""

from __future__ import annotations

import difflib
import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Final

from reviewapp.models import GoldenCase
from reviewapp.previews.parsing import JsonDict
from reviewapp.previews.rendering import pretty, render


def canonical(value: Any) -> str:
    """One spelling per JSON value, so ``1`` and ``1.0`` and ``true`` differ."""
    return json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


_ABSENT: Final = "(absent)"


@dataclass(frozen=True)
class CaseResult:
    """One golden case checked against the current code."""

    name: str
    input: Any
    expected: JsonDict
    actual: JsonDict
    #: Keys of ``expected`` whose value differs. Keys only in ``actual`` (say
    #: ``problems`` for a case from the shared file) are not compared.
    changed: tuple[str, ...]
    case_id: int | None = None

    @property
    def passed(self) -> bool:
        return not self.changed

    def diff(self) -> list[str]:
        """A unified diff, expected to actual, per changed key, one JSON value a line."""
        out: list[str] = []
        for key in self.changed:
            before = pretty(self.expected[key]).splitlines()
            after = pretty(self.actual[key]).splitlines() if key in self.actual else [_ABSENT]
            out.extend(
                difflib.unified_diff(before, after, fromfile=f"expected {key}", tofile=f"actual {key}", lineterm="")
            )
        return out


@dataclass(frozen=True)
class DiffLine:
    kind: str  # "file", "hunk", "add", "remove" or "same", for the page's styling
    text: str


def classify_diff(lines: Iterable[str]) -> list[DiffLine]:
    out: list[DiffLine] = []
    for line in lines:
        if line.startswith(("--- ", "+++ ")):
            kind = "file"
        elif line.startswith("@@"):
            kind = "hunk"
        elif line.startswith("+"):
            kind = "add"
        elif line.startswith("-"):
            kind = "remove"
        else:
            kind = "same"
        out.append(DiffLine(kind, line))
    return out


def check(name: str, value: Any, expected: Any, *, case_id: int | None = None) -> CaseResult:
    if not isinstance(expected, dict):
        expected = {"(expected)": expected}
    try:
        actual = render(value)
    except Exception as exc:  # a stored input must not take the whole list down
        actual = {"error": f"{type(exc).__name__}: {exc}"}
    changed = tuple(key for key in expected if key not in actual or canonical(actual[key]) != canonical(expected[key]))
    return CaseResult(name=name, input=value, expected=expected, actual=actual, changed=changed, case_id=case_id)


def check_case(case: GoldenCase) -> CaseResult:
    return check(case.name, case.input, case.expected, case_id=case.pk)


def check_all(cases: Iterable[GoldenCase]) -> list[CaseResult]:
    return [check_case(case) for case in cases]


def save_golden_case(*, name: str, value: JsonDict, user: Any = None) -> GoldenCase:
    """Store ``value`` with what it renders to now."""
    # By id: request.user is a lazy object, which the database router cannot place.
    return GoldenCase.objects.create(
        name=name, input=value, expected=render(value), created_by_id=getattr(user, "pk", None)
    )
