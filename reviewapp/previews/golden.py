"""Golden cases: a saved input checked against what the current code renders, and the diffs."""

from __future__ import annotations

import difflib
import json
import re
import uuid
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Final

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

from reviewapp.models import GoldenCase
from reviewapp.previews.parsing import JsonDict
from reviewapp.previews.rendering import escape_surrogates, render


def canonical(value: Any) -> str:
    """One spelling per JSON value, so ``1`` and ``1.0`` and ``true`` differ."""
    return json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def canonical_pretty(value: Any) -> str:
    """Indented JSON with sorted keys: what the case page compares and shows.

    jsonb stores an object's keys shorter first, while the renderer writes
    them in its own order, so a stored output and the same output rendered
    now differ in key order alone. Sorted, a one-field change is one changed
    line, not a reshuffled block. Lone surrogates are escaped as ``pretty``
    does.
    """
    return escape_surrogates(json.dumps(value, ensure_ascii=False, sort_keys=True, indent=2))


_DIGITS = re.compile(r"(\d+)")


def natural_key(name: str) -> tuple[tuple[int, int | str], ...]:
    """Sort key reading digit runs as numbers: "case 2" before "case 10", case-insensitively.

    ``sorted(["10", "2", "1"], key=natural_key)`` → ``["1", "2", "10"]``.
    """
    return tuple((0, int(part)) if part.isdigit() else (1, part.casefold()) for part in _DIGITS.split(name) if part)


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
        """A unified diff, expected to actual, per changed key, one JSON value a line (``canonical_pretty``)."""
        out: list[str] = []
        for key in self.changed:
            before = canonical_pretty(self.expected[key]).splitlines()
            after = canonical_pretty(self.actual[key]).splitlines() if key in self.actual else [_ABSENT]
            out.extend(
                difflib.unified_diff(before, after, fromfile=f"expected {key}", tofile=f"actual {key}", lineterm="")
            )
        return out


@dataclass(frozen=True)
class DiffLine:
    kind: str  # "file", "hunk", "add", "remove" or "same", for the page's styling
    text: str
    # The line as escaped HTML; a removed line paired with an added one marks
    # the words that differ with <del> (on the removed) and <ins> (on the added).
    html: SafeString


def _kind(line: str) -> str:
    if line.startswith(("--- ", "+++ ")):
        return "file"
    if line.startswith("@@"):
        return "hunk"
    if line.startswith("+"):
        return "add"
    if line.startswith("-"):
        return "remove"
    return "same"


def classify_diff(lines: Iterable[str]) -> list[DiffLine]:
    return [DiffLine(_kind(line), line, escape(line)) for line in lines]


# Words (letters and digits, any script), runs of spaces, and each other character alone.
_TOKENS = re.compile(r"\w+|\s+|[^\w\s]")


def _words(text: str) -> list[str]:
    return _TOKENS.findall(text)


def mark_words(before: str, after: str) -> tuple[SafeString, SafeString]:
    """Both lines as HTML, the words only ``before`` has in <del>, those only ``after`` has in <ins>.

    ``("lunch med Anna", "lunch med Bo")`` → ``("lunch med <del>Anna</del>", "lunch med <ins>Bo</ins>")``.
    """
    old, new = _words(before), _words(after)
    removed: list[str] = []
    added: list[str] = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes():
        old_text, new_text = escape("".join(old[i1:i2])), escape("".join(new[j1:j2]))
        if tag == "equal":
            removed.append(old_text)
            added.append(new_text)
            continue
        if i2 > i1:
            removed.append(f"<del>{old_text}</del>")
        if j2 > j1:
            added.append(f"<ins>{new_text}</ins>")
    return mark_safe("".join(removed)), mark_safe("".join(added))  # noqa: S308  every piece is escaped above


def word_diff(lines: Iterable[str]) -> list[DiffLine]:
    """A unified diff with what changed inside each line.

    Within a hunk, a run of removed lines followed by a run of added lines is
    paired line by line, and each pair marks its differing words; lines left
    over are wholly removed or added and carry no word marks.
    """
    out = classify_diff(lines)
    index = 0
    while index < len(out):
        if out[index].kind != "remove":
            index += 1
            continue
        start = index
        while index < len(out) and out[index].kind == "remove":
            index += 1
        middle = index
        while index < len(out) and out[index].kind == "add":
            index += 1
        for offset in range(min(middle - start, index - middle)):
            old, new = out[start + offset], out[middle + offset]
            old_html, new_html = mark_words(old.text[1:], new.text[1:])
            out[start + offset] = DiffLine(old.kind, old.text, mark_safe("-" + old_html))  # noqa: S308
            out[middle + offset] = DiffLine(new.kind, new.text, mark_safe("+" + new_html))  # noqa: S308
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


def save_golden_case(
    *, name: str, value: JsonDict, user: Any = None, source_item_id: uuid.UUID | None = None
) -> GoldenCase:
    """Store ``value`` with what it renders to now; ``source_item_id``: the inbox item it was taken from."""
    # By id: request.user is a lazy object, which the database router cannot place.
    return GoldenCase.objects.create(
        name=name,
        input=value,
        expected=render(value),
        created_by_id=getattr(user, "pk", None),
        source_item_id=source_item_id,
    )
