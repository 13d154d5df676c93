"""QA's changes to a golden case, each logged in ``GoldenCaseChange`` with who, when, before and after.

- ``accept_current_output``: a deliberate renderer change becomes the new
  expectation. The person saw a diff; the change is refused when either side
  of it moved since (another person accepted first, or the code rendering it
  changed), so what is stored is exactly what was looked at;
- ``rename_case``, ``set_tags``, ``delete_case``.

Each runs in one transaction with the case's row locked, so two people
changing one case are recorded one after the other, never interleaved.
"""

from __future__ import annotations

import hashlib
import re
from typing import Any, Final

from django.db import transaction

from reviewapp.models import GoldenCase, GoldenCaseChange
from reviewapp.previews.golden import canonical
from reviewapp.previews.rendering import render

MAX_TAGS: Final = 20
MAX_TAG_LENGTH: Final = 50
_SPACES = re.compile(r"\s+")


class CaseChanged(Exception):
    """What the person looked at is no longer what would be stored; ``reason`` says which side moved."""

    def __init__(self, reason: str) -> None:
        self.reason = reason  # "expected" or "actual"
        super().__init__(reason)


def digest(value: Any) -> str:
    """A short fingerprint of a JSON value, for "is this still what I saw?"."""
    return hashlib.sha256(canonical(value).encode("utf-8", "surrogatepass")).hexdigest()[:32]


def normalise_tags(values: list[str]) -> list[str]:
    """Tags as stored: trimmed, inner spaces collapsed, lower-case, no duplicates, sorted.

    ``[" Denial ", "denial", "moved  context"]`` → ``["denial", "moved context"]``.
    """
    cleaned = {_SPACES.sub(" ", value).strip().lower() for value in values}
    return sorted(tag for tag in cleaned if tag)


def _log(case: GoldenCase, kind: str, old: Any, new: Any, user: Any) -> GoldenCaseChange:
    # By id: request.user is a lazy object, which the database router cannot place.
    return GoldenCaseChange.objects.create(
        case_id=case.pk,
        case_name=case.name,
        kind=kind,
        old=old,
        new=new,
        changed_by_id=getattr(user, "pk", None),
        changed_by_label=user.get_username() if hasattr(user, "get_username") else "",
    )


def _locked(case_id: int) -> GoldenCase:
    return GoldenCase.objects.select_for_update().get(pk=case_id)


def accept_current_output(
    case_id: int, *, user: Any, seen_expected: str | None = None, seen_actual: str | None = None
) -> GoldenCase:
    """Store what the current code renders as the case's expected output.

    ``seen_expected``/``seen_actual`` are the ``digest`` of the stored and the
    rendered output the person compared; ``CaseChanged`` when either moved.
    """
    with transaction.atomic():
        case = _locked(case_id)
        if seen_expected is not None and digest(case.expected) != seen_expected:
            raise CaseChanged("expected")
        current = render(case.input)
        if seen_actual is not None and digest(current) != seen_actual:
            raise CaseChanged("actual")
        old = case.expected
        case.expected = current
        case.save(update_fields=["expected"])
        _log(case, GoldenCaseChange.Kind.ACCEPTED, old, current, user)
    return case


def rename_case(case_id: int, *, name: str, user: Any) -> GoldenCase:
    """Give the case a new name (unique: the database refuses a taken one with ``IntegrityError``)."""
    with transaction.atomic():
        case = _locked(case_id)
        old = case.name
        if old == name:
            return case
        case.name = name
        case.save(update_fields=["name"])
        _log(case, GoldenCaseChange.Kind.RENAMED, old, name, user)
    return case


def set_tags(case_id: int, *, tags: list[str], user: Any) -> GoldenCase:
    with transaction.atomic():
        case = _locked(case_id)
        old = list(case.tags or [])
        new = normalise_tags(tags)
        if old == new:
            return case
        case.tags = new
        case.save(update_fields=["tags"])
        _log(case, GoldenCaseChange.Kind.TAGGED, old, new, user)
    return case


def delete_case(case_id: int, *, user: Any) -> str:
    """Delete the case; its log (this deletion included) stays, by name. Returns the name."""
    with transaction.atomic():
        case = _locked(case_id)
        _log(case, GoldenCaseChange.Kind.DELETED, {"input": case.input, "expected": case.expected}, None, user)
        name = case.name
        case.delete()
    return name


def all_tags() -> list[str]:
    """Every tag in use, sorted (the list's filter offers these)."""
    found: set[str] = set()
    for tags in GoldenCase.objects.values_list("tags", flat=True):
        if isinstance(tags, list):
            found.update(tag for tag in tags if isinstance(tag, str))
    return sorted(found)
