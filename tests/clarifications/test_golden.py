"""Every reference case, through the functions and through the command line.

Outputs are compared as parsed JSON (key order is free) but every string must
be byte-identical to what the TypeScript reference produced.
"""

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from clarifications import analyse, flatten, render_agent_view, render_case, render_lines, render_notes, summarise
from tests.clarifications import golden
from tests.clarifications.golden import load_cases, repo_root

try:
    CASES: list[dict[str, Any]] = load_cases()
    LOAD_ERROR = ""
except FileNotFoundError as exc:
    CASES = []
    LOAD_ERROR = str(exc)

# A missing golden file turns into one failing case instead of zero cases.
PARAMS = [pytest.param(case, id=case["name"]) for case in CASES] or [pytest.param(None, id="golden-file-missing")]


def _case(case: dict[str, Any] | None) -> dict[str, Any]:
    if case is None:
        pytest.fail(LOAD_ERROR)
    return case


def test_the_golden_file_is_there_and_holds_both_input_forms() -> None:
    assert not LOAD_ERROR, LOAD_ERROR
    forms = {next(iter(case["input"])) for case in CASES}
    assert forms == {"flatten", "channel_context"}
    assert len(CASES) >= 59


def test_a_missing_golden_file_fails_loudly_instead_of_skipping(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(golden, "golden_path", lambda: tmp_path / "absent.jsonl")
    with pytest.raises(FileNotFoundError, match=r"absent\.jsonl is missing"):
        golden.load_cases()


@pytest.mark.parametrize("case", PARAMS)
def test_render_case_matches_the_reference(case: dict[str, Any] | None) -> None:
    case = _case(case)
    out = render_case(case["input"])
    assert case["expected"], case["name"]
    for key, expected in case["expected"].items():
        assert out[key] == expected, key
    if "channel_context" in case["input"]:
        assert out["problems"] == []


@pytest.mark.parametrize("case", PARAMS)
def test_each_public_function_matches_the_reference(case: dict[str, Any] | None) -> None:
    case = _case(case)
    given, expected = case["input"], case["expected"]
    if "flatten" in given:
        assert flatten(given["flatten"]) == expected["flatten"]
        return
    ctx = given["channel_context"]
    summary = summarise(ctx)
    assert (None if summary is None else summary.to_json()) == expected["summary"]
    assert render_lines(summary) == expected["lines"]
    assert render_notes(ctx) == expected["notes"]
    assert analyse(ctx).summary == summary
    assert analyse(ctx).problems == ()
    if "item" in given:
        item = given["item"]
        view = render_agent_view(item["document_id"], item["extracted_data"], ctx)
        assert view == expected["agent_view"]


def test_the_command_line_prints_the_reference_output_for_every_case() -> None:
    assert not LOAD_ERROR, LOAD_ERROR
    stdin = "".join(json.dumps(case["input"], ensure_ascii=False) + "\n" for case in CASES)
    done = subprocess.run(
        [sys.executable, "-m", "clarifications"],
        input=stdin.encode(),
        capture_output=True,
        cwd=repo_root(),
        check=False,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr.decode()
    printed = done.stdout.decode("utf-8").split("\n")
    assert printed[-1] == ""
    assert len(printed) - 1 == len(CASES)
    passed = 0
    for case, line in zip(CASES, printed, strict=False):
        out = json.loads(line)
        assert {key: out.get(key) for key in case["expected"]} == case["expected"], case["name"]
        passed += 1
    assert passed == len(CASES)
