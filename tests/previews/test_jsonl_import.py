"""Golden files in and out: the import is all or nothing, a bad file is refused, a failed export leaves nothing."""

from __future__ import annotations

import io
import json
import os
import resource
import signal
import stat

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from reviewapp.models import GoldenCase
from reviewapp.previews.jsonl import (
    CaseRecord,
    InvalidCaseFile,
    import_cases,
    read_case_file,
    read_jsonl,
    write_file,
)

pytestmark = pytest.mark.django_db

EXPECTED = {"summary": None, "lines": [], "notes": None, "agent_view": []}


def _record(name: str, lines: list[str], line: int = 1) -> CaseRecord:
    return CaseRecord(name=name, input={"channel_context": None}, expected={**EXPECTED, "lines": lines}, line=line)


def test_a_conflict_writes_nothing_not_even_the_new_cases():
    import_cases([_record("kept", ["a"])])
    summary = import_cases([_record("new", ["b"], 1), _record("kept", ["other"], 2)])
    assert summary.conflicts == ["kept"]
    assert list(GoldenCase.objects.values_list("name", flat=True)) == ["kept"]
    assert GoldenCase.objects.get(name="kept").expected["lines"] == ["a"]


def _line(name: str, expected: object) -> str:
    return json.dumps({"name": name, "input": {"channel_context": None}, "expected": expected})


def test_a_name_used_twice_in_a_file_is_refused_with_both_line_numbers():
    with pytest.raises(InvalidCaseFile, match=r"line 3: name 'a' already used on line 1"):
        list(read_jsonl([_line("a", EXPECTED), _line("b", EXPECTED), _line("a", EXPECTED)]))


@pytest.mark.parametrize("expected", [[], "lines", None, 3])
def test_an_expected_that_is_not_an_object_is_refused(expected):
    with pytest.raises(InvalidCaseFile, match="line 1: expected must be an object"):
        list(read_jsonl([_line("a", expected)]))


def test_a_failed_export_leaves_the_file_as_it_was_and_no_partial_file(tmp_path):
    for number in range(40):
        GoldenCase.objects.create(name=f"case {number}", input={"channel_context": "x" * 500}, expected=EXPECTED)
    target = tmp_path / "golden.jsonl"
    target.write_text("the previous export\n", encoding="utf-8")
    # A disk that fills up half way: writes past 4 KiB fail (EFBIG, the signal ignored).
    soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    previous = signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (4096, hard))
    try:
        with pytest.raises(CommandError, match=str(target)):
            call_command("golden_export", "--output", str(target))
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))
        signal.signal(signal.SIGXFSZ, previous)
    assert target.read_text(encoding="utf-8") == "the previous export\n"
    assert [p.name for p in tmp_path.iterdir()] == ["golden.jsonl"]


def test_the_export_is_written_into_a_hidden_temporary_file_beside_the_target(tmp_path):
    # Beside it, so the final rename stays on one file system (atomic); hidden and
    # named .golden-export-*.tmp, so a copy left by a killed process is recognisable.
    target = tmp_path / "golden.jsonl"
    seen: list[list[str]] = []

    def lines():  # type: ignore[no-untyped-def]
        seen.append(sorted(p.name for p in tmp_path.iterdir()))
        yield "{}\n"

    write_file(str(target), lines())
    (names,) = seen
    (temporary,) = names
    assert temporary.startswith(".golden-export-")
    assert temporary.endswith(".tmp")
    assert [p.name for p in tmp_path.iterdir()] == ["golden.jsonl"]


def test_an_export_over_a_file_keeps_its_mode_and_a_new_one_is_readable_by_all(tmp_path):
    kept = tmp_path / "private.jsonl"
    kept.write_text("old\n", encoding="utf-8")
    os.chmod(kept, 0o600)
    write_file(str(kept), ["åäö\n"])
    assert stat.S_IMODE(kept.stat().st_mode) == 0o600
    assert kept.read_bytes() == "åäö\n".encode()

    new = tmp_path / "new.jsonl"
    write_file(str(new), ["{}\n"])
    assert stat.S_IMODE(new.stat().st_mode) == 0o644


def test_blank_lines_are_skipped_and_each_record_keeps_its_line_number():
    records = list(read_jsonl([_line("a", EXPECTED), "", "   ", _line("b", EXPECTED)]))
    assert [(record.name, record.line) for record in records] == [("a", 1), ("b", 4)]


def test_a_name_may_be_200_characters_but_not_201_nor_blank():
    assert [record.name for record in read_jsonl([_line("n" * 200, EXPECTED)])] == ["n" * 200]
    message = "line 1: name must be a non-empty string of at most 200 characters"
    for name in ("n" * 201, "   "):
        with pytest.raises(InvalidCaseFile) as caught:
            list(read_jsonl([_line(name, EXPECTED)]))
        assert str(caught.value) == message


def test_a_dash_reads_the_cases_from_standard_input(monkeypatch):
    monkeypatch.setattr("sys.stdin", io.StringIO(_line("from stdin", EXPECTED) + "\n"))
    assert [record.name for record in read_case_file("-")] == ["from stdin"]
