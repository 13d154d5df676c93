"""Golden cases as JSON Lines: the shared file's format, read, written and imported."""

from __future__ import annotations

import json
import os
import sys
import tempfile
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, Final

from django.db import transaction

from reviewapp.models import GoldenCase
from reviewapp.previews.golden import canonical
from reviewapp.previews.parsing import JsonDict
from reviewapp.previews.rendering import escape_surrogates


def to_jsonl(case: GoldenCase) -> str:
    """One line of ``../shared/golden/clarifications.jsonl``."""
    line = json.dumps({"name": case.name, "input": case.input, "expected": case.expected}, ensure_ascii=False)
    return escape_surrogates(line)


def write_file(path: str, lines: Iterable[str]) -> None:
    """Write ``lines`` to ``path`` whole or not at all; ``OSError`` when it cannot.

    Into a temporary file beside it, then renamed over it: a disk that fills
    half way leaves the previous file as it was, never half an export.
    """
    folder = os.path.dirname(os.path.abspath(path))
    handle, temporary = tempfile.mkstemp(dir=folder, prefix=".golden-export-", suffix=".tmp")
    try:
        with os.fdopen(handle, "w", encoding="utf-8", newline="\n") as out:
            out.writelines(lines)
        # mkstemp's file is private (0600); the export keeps the file's mode, or is readable as open() made it.
        os.chmod(temporary, os.stat(path).st_mode & 0o7777 if os.path.exists(path) else 0o644)
        os.replace(temporary, path)
    except BaseException:
        os.unlink(temporary)
        raise


NAME_MAX_LENGTH: Final = 200  # GoldenCase.name


class InvalidCaseFile(ValueError):
    pass


@dataclass(frozen=True)
class CaseRecord:
    name: str
    input: Any
    expected: JsonDict
    line: int


def read_jsonl(lines: Iterable[str]) -> Iterator[CaseRecord]:
    """Records from a golden file; ``InvalidCaseFile`` names the first bad line."""
    seen: dict[str, int] = {}
    for number, raw in enumerate(lines, start=1):
        if not raw.strip():
            continue
        try:
            record = json.loads(raw)
        except (ValueError, RecursionError) as exc:
            raise InvalidCaseFile(f"line {number}: not JSON: {exc}") from None
        if not isinstance(record, dict) or not {"name", "input", "expected"} <= record.keys():
            raise InvalidCaseFile(f'line {number}: expected an object with "name", "input" and "expected"')
        name, expected = record["name"], record["expected"]
        if not isinstance(name, str) or not name.strip() or len(name) > NAME_MAX_LENGTH:
            raise InvalidCaseFile(
                f"line {number}: name must be a non-empty string of at most {NAME_MAX_LENGTH} characters"
            )
        if not isinstance(expected, dict):
            raise InvalidCaseFile(f"line {number}: expected must be an object")
        if name in seen:
            raise InvalidCaseFile(f"line {number}: name {name!r} already used on line {seen[name]}")
        seen[name] = number
        yield CaseRecord(name=name, input=record["input"], expected=expected, line=number)


def read_case_file(path: str) -> list[CaseRecord]:
    """The records of the golden file at ``path`` (``-``: standard input).

    ``InvalidCaseFile`` says what is wrong, starting with the path: a file
    that cannot be opened, is not UTF-8, or has a bad line.
    """
    try:
        if path == "-":
            return list(read_jsonl(sys.stdin))
        with open(path, encoding="utf-8") as handle:
            return list(read_jsonl(handle))
    except OSError as exc:
        raise InvalidCaseFile(f"{path}: {exc.strerror}") from None
    except UnicodeDecodeError as exc:
        raise InvalidCaseFile(f"{path}: not UTF-8 ({exc.reason})") from None
    except InvalidCaseFile as exc:
        raise InvalidCaseFile(f"{path}: {exc}") from None


@dataclass
class ImportSummary:
    created: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    conflicts: list[str] = field(default_factory=list)


@transaction.atomic
def import_cases(records: Iterable[CaseRecord], *, replace: bool = False, user: Any = None) -> ImportSummary:
    """Create cases; a name already stored with other content is a conflict unless ``replace``.

    All or nothing: on a conflict nothing is written.
    """
    summary = ImportSummary()
    existing = {case.name: case for case in GoldenCase.objects.all()}
    to_create: list[GoldenCase] = []
    to_update: list[GoldenCase] = []
    for record in records:
        case = existing.get(record.name)
        if case is None:
            to_create.append(
                GoldenCase(name=record.name, input=record.input, expected=record.expected, created_by=user)
            )
            summary.created.append(record.name)
        elif canonical(case.input) == canonical(record.input) and canonical(case.expected) == canonical(
            record.expected
        ):
            summary.unchanged.append(record.name)
        elif replace:
            case.input, case.expected = record.input, record.expected
            to_update.append(case)
            summary.updated.append(record.name)
        else:
            summary.conflicts.append(record.name)
    if summary.conflicts:
        return summary
    GoldenCase.objects.bulk_create(to_create)
    GoldenCase.objects.bulk_update(to_update, ["input", "expected"])
    return summary
