"""python -m clarifications: JSON Lines in, one JSON line per input line out."""

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from clarifications import render_case
from tests.clarifications.golden import repo_root


def run_cli(stdin: bytes, *args: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "clarifications", *args],
        input=stdin,
        capture_output=True,
        cwd=repo_root(),
        check=False,
        timeout=60,
    )


def output_lines(done: subprocess.CompletedProcess[bytes]) -> list[Any]:
    text = done.stdout.decode("utf-8")
    assert text.endswith("\n")
    # Split on "\n" only: U+2028 inside a JSON string is not a line break.
    return [json.loads(line) for line in text[:-1].split("\n")]


def test_a_line_that_is_not_json_gets_an_error_and_the_rest_still_run() -> None:
    stdin = b'{"flatten": "## a"}\nnot json\n\n{"flatten": "- b"}\n'
    done = run_cli(stdin)
    assert done.returncode == 1
    first, bad, blank, last = output_lines(done)
    assert first == {"flatten": "a"}
    assert set(bad) == {"error"}
    assert set(blank) == {"error"}
    assert last == {"flatten": "b"}


def test_every_input_line_that_parses_exits_zero() -> None:
    done = run_cli(b'{"channel_context": null}\r\n{"channel_context": [1]}')
    assert done.returncode == 0, done.stderr
    assert output_lines(done) == [
        {"summary": None, "lines": [], "notes": None, "problems": []},
        {"summary": None, "lines": [], "notes": None, "problems": ["channel_context: expected an object, got array"]},
    ]


@pytest.mark.parametrize(
    ("stdin", "expected"),
    [
        # JSON.parse rejects NaN/Infinity literals, which Python's json accepts.
        (b'{"flatten": NaN}', "error"),
        (b'{"channel_context": Infinity}', "error"),
        (b"[]", "error"),
        (b'{"other": 1}', "error"),
        (b'{"flatten": 5}', "error"),
    ],
)
def test_inputs_javascript_would_reject_print_an_error(stdin: bytes, expected: str) -> None:
    done = run_cli(stdin + b"\n")
    assert done.returncode == 1
    assert list(output_lines(done)[0]) == [expected]


def test_numbers_are_read_as_javascript_doubles() -> None:
    # -0 stays negative, 1e400 and a 400-digit integer are Infinity, and an
    # integer beyond 2**53 loses the digits a double cannot hold.
    item = '{"document_id": "d", "extracted_data": {"totals": {"total": -0, "vatAmount": %s}}}'
    lines = [
        '{"channel_context": null, "item": %s}' % (item % value)
        for value in ("1e400", "1" + "0" * 400, "12345678901234567890")
    ]
    done = run_cli(("\n".join(lines) + "\n").encode())
    assert done.returncode == 0, done.stderr
    views = [out["agent_view"][0] for out in output_lines(done)]
    nb = "\u00a0"
    assert views == [
        "  • invoice_inbox: document_id=d, total=\u22120 SEK, moms=∞ SEK",
        "  • invoice_inbox: document_id=d, total=\u22120 SEK, moms=∞ SEK",
        f"  • invoice_inbox: document_id=d, total=\u22120 SEK, moms=12{nb}345{nb}678{nb}901{nb}234{nb}567{nb}000 SEK",
    ]


def test_lone_surrogates_are_read_and_written_as_escapes_like_json_stringify() -> None:
    note = "😀" * 110 + "a"  # the 220 cap cuts the last emoji in half
    stdin = json.dumps({"channel_context": {"channel": "whatsapp", "user_note": note}}) + "\n"
    stdin += '{"flatten": "- \\ud83d x"}\n'
    done = run_cli(stdin.encode())
    assert done.returncode == 0, done.stderr
    assert b'\\ud83d\xe2\x80\xa6"' in done.stdout  # "\ud83d…" as JSON.stringify writes it
    notes, flat = output_lines(done)
    assert notes["notes"] == "😀" * 109 + "\ud83d…"
    assert flat == {"flatten": "\ud83d x"}


def test_output_is_compact_utf8_json() -> None:
    done = run_cli('{"flatten": "Åsa  och\\u00a0Örjan"}\n'.encode())
    assert done.stdout == '{"flatten":"Åsa och Örjan"}\n'.encode()


def test_render_case_is_exactly_what_the_command_line_prints() -> None:
    cases = [
        {"flatten": "> x"},
        {"channel_context": {"channel": "whatsapp", "user_note": "n"}, "item": {"document_id": "d"}},
        {"channel_context": {"user_note": 3}, "item": "d"},
        {"flatten": "a", "channel_context": None},
        "x",
    ]
    done = run_cli("".join(json.dumps(case) + "\n" for case in cases).encode())
    assert output_lines(done) == [render_case(case) for case in cases]


def test_bench_reports_contexts_per_second(tmp_path: Path) -> None:
    workload = tmp_path / "w.jsonl"
    workload.write_text('{"channel_context": {"channel": "whatsapp", "user_note": "x"}}\n' * 50)
    done = run_cli(b"", "--bench", str(workload))
    assert done.returncode == 0, done.stderr
    assert b"50 contexts in" in done.stdout
    assert b"contexts/s" in done.stdout
