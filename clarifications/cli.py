"""``python -m clarifications``: JSON Lines in, one JSON line out per line.

Input lines are ``{"flatten": "<text>"}`` or ``{"channel_context": <any>,
"item": {"document_id": …, "extracted_data": …}}`` (``item`` optional), as in
``../shared/golden/README.md``. Output is compact UTF-8 JSON like
``JSON.stringify``: non-ASCII as is, lone surrogates as ``\\udXXX`` escapes.
A line that is not JSON, or not one of the two forms, prints
``{"error": "…"}``; the other lines still run and the exit status is 1.
"""

import math
import re
import sys
import time
from collections.abc import Callable, Iterable
from typing import BinaryIO, Final

from clarifications.flattening import flatten
from clarifications.model import JsonDict
from clarifications.reading import json_kind, read
from clarifications.render import agent_bullet, agent_view, notes_from, render_lines

try:
    import orjson
except ImportError:  # pragma: no cover - orjson is in requirements.txt
    orjson = None  # type: ignore[assignment]

_FORMS: Final = '"flatten" or "channel_context"'
# orjson reads the integer -0 as 0, JSON.parse as -0. The sign only ever
# shows in an amount ("−0 SEK"; JSON.stringify writes -0 as 0), so only a line
# with a zero amount is scanned for a -0 token and, if it has one, re-read.
_MINUS_ZERO = re.compile(rb"-0(?![0-9.eE])")
_JSON_SPACE: Final = b" \t\r\n"
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
_IO_BUFFER: Final = 1 << 20


def render_case(case_input: object) -> JsonDict:
    """What the command line prints for one parsed input line.

    ``{"flatten": s}`` gives ``{"flatten": …}``; a ``channel_context`` input
    gives ``summary``, ``lines``, ``notes``, ``agent_view`` (only with an
    ``item`` object) and ``problems``. Anything else gives ``{"error": …}``:
    ``render_case([])`` is ``{"error": "expected an object, got array"}``.
    """
    if not isinstance(case_input, dict):
        return {"error": f"expected an object, got {json_kind(case_input)}"}
    out: JsonDict = {}
    if "flatten" in case_input:
        text = case_input["flatten"]
        if not isinstance(text, str):
            return {"error": f"flatten: expected a string, got {json_kind(text)}"}
        out["flatten"] = flatten(text)
    if "channel_context" in case_input:
        reading = read(case_input["channel_context"])
        summary = reading.summary()
        lines = render_lines(summary)
        out["summary"] = None if summary is None else summary.to_json()
        out["lines"] = lines
        out["notes"] = notes_from(reading)
        problems = reading.problems
        item = case_input.get("item")
        if isinstance(item, dict):
            bullet = agent_bullet(item.get("document_id"), item.get("extracted_data"), problems)
            out["agent_view"] = agent_view(bullet, lines)
        elif item is not None:
            problems.append(f"item: expected an object, got {json_kind(item)}")
        out["problems"] = problems
    if not out:
        return {"error": f"expected an object with {_FORMS}"}
    return out


def _has_zero_amount(value: object) -> bool:
    item = value.get("item") if type(value) is dict else None
    data = item.get("extracted_data") if type(item) is dict else None
    totals = data.get("totals") if type(data) is dict else None
    if type(totals) is not dict:
        return False
    total, vat = totals.get("total"), totals.get("vatAmount")
    return (type(total) is int and total == 0) or (type(vat) is int and vat == 0)


def _has_negative_zero(line: bytes) -> bool:
    """Whether ``-0`` occurs as a number token (a false hit inside a string
    only costs the exact parse)."""
    for match in _MINUS_ZERO.finditer(line):
        before = line[: match.start()].rstrip(_JSON_SPACE)
        if not before or before[-1:] in (b"[", b":", b","):
            return True
    return False


def _js_number(token: str) -> float:
    # JSON.parse reads every number as a double: "-0" is -0, a 400-digit
    # integer is Infinity.
    return float(token)


def _reject_constant(token: str) -> float:
    raise ValueError(f"{token} is not JSON")


def _parse_exact(line: bytes) -> object:
    """JSON.parse semantics: lone surrogate escapes allowed, no NaN literal."""
    import json  # the rare path; keeps start-up lean

    text = line.decode("utf-8", "replace")  # Node decodes stdin the same way
    return json.loads(
        text,
        parse_int=_js_number,
        parse_float=_js_number,
        parse_constant=_reject_constant,
    )


def _escape_surrogate(match: re.Match[str]) -> str:
    return f"\\u{ord(match.group()):04x}"


def _js_value(value: object) -> object:
    # What JSON.stringify writes for values json.dumps would not: a
    # non-finite number becomes null.
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {key: _js_value(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_js_value(item) for item in value]
    return value


def _dump_exact(value: object) -> bytes:
    import json

    text = json.dumps(_js_value(value), ensure_ascii=False, separators=(",", ":"))
    return _LONE_SURROGATE.sub(_escape_surrogate, text).encode("utf-8")


if orjson is not None:
    _orjson_loads = orjson.loads
    _orjson_dumps = orjson.dumps
    _OrjsonError = orjson.JSONDecodeError

    def parse_line(line: bytes) -> object:
        """Parse one input line as JavaScript's ``JSON.parse`` would.

        Numbers are doubles, ``NaN`` is refused, lone surrogate escapes are
        kept. orjson's fast path reads ``-0`` as ``0``; a line is re-read
        exactly only when that could show, i.e. when an amount is zero.
        """
        try:
            value = _orjson_loads(line)
        except _OrjsonError:
            return _parse_exact(line)  # lone surrogates, Infinity, bad UTF-8
        if _has_zero_amount(value) and _has_negative_zero(line):
            return _parse_exact(line)
        return value

    def dump_line(value: object) -> bytes:
        """Serialise like ``JSON.stringify`` (compact, UTF-8)."""
        try:
            return _orjson_dumps(value)
        except TypeError:  # a lone surrogate, e.g. notes cut inside an emoji
            return _dump_exact(value)

else:  # pragma: no cover - exercised only without orjson installed
    parse_line = _parse_exact
    dump_line = _dump_exact


def run_lines(lines: Iterable[bytes], write: Callable[[bytes], object]) -> bool:
    """Process JSON Lines; True when no line printed an error."""
    ok = True
    for raw in lines:
        try:
            case_input = parse_line(raw.rstrip(b"\n"))
        except (ValueError, RecursionError) as exc:
            result: JsonDict = {"error": f"not JSON: {exc}"}
        else:
            result = render_case(case_input)
        try:
            data = dump_line(result)
        except (ValueError, RecursionError) as exc:
            result = {"error": f"result not serialisable: {exc}"}
            data = dump_line(result)
        if "error" in result:
            ok = False
        write(data + b"\n")
    return ok


def _bench(path: str, out: BinaryIO) -> None:
    with open(path, "rb") as handle:
        lines = handle.readlines()
    sink: list[bytes] = []
    start = time.perf_counter()
    run_lines(lines, sink.append)
    elapsed = time.perf_counter() - start
    rate = len(lines) / elapsed if elapsed else float("inf")
    out.write(
        f"{len(lines)} contexts in {elapsed:.3f} s: {rate:,.0f} contexts/s "
        f"(parse + render + serialise, in process)\n".encode()
    )


def main(argv: list[str] | None = None) -> int:
    import argparse

    parser = argparse.ArgumentParser(
        prog="python -m clarifications",
        description="Render channel_context clarifications from JSON Lines on stdin.",
    )
    parser.add_argument(
        "--bench",
        metavar="FILE",
        help="time every line of FILE in process and report contexts per second",
    )
    args = parser.parse_args(argv)
    if args.bench:
        _bench(args.bench, sys.stdout.buffer)
        return 0
    # Streams line by line, through larger buffers than sys.std*'s 8 KiB:
    # on 100 000 lines that is a few hundred system calls instead of ~10 000.
    with (
        open(sys.stdin.fileno(), "rb", buffering=_IO_BUFFER, closefd=False) as stdin,
        open(sys.stdout.fileno(), "wb", buffering=_IO_BUFFER, closefd=False) as stdout,
    ):
        sys.stdout.flush()
        ok = run_lines(stdin, stdout.write)
    return 0 if ok else 1
