"""Benchmark of the clarifications port on the golden inputs.

    .venv/bin/python bench/clarifications_bench.py [--lines 100000] [--runs 3]
        [--compare "node /tmp/reference-harness.js"]

Builds the workload the reference is measured on: the inputs of
``../shared/golden/clarifications.jsonl`` repeated, in order, to ``--lines``
lines. Then it times

(a) ``python -m clarifications`` end to end, stdin from a temporary file and
    stdout to /dev/null, median of ``--runs`` runs (wall time, plus the
    child's CPU time, which is steadier on a busy machine);
(b) the same command on a *varied* workload, where every line carries a
    unique document id and note, to show the figure does not depend on lines
    repeating;
(c) ``analyse`` + ``render_lines`` in process, microseconds per context;
(d) with ``--compare CMD``, any other command fed the same stdin the same
    way, e.g. a Node harness of the TypeScript reference (not part of this
    repository), so both figures come from one machine at one time.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = ROOT.parent / "shared" / "golden" / "clarifications.jsonl"
sys.path.insert(0, str(ROOT))

import clarifications  # noqa: E402  (after the path set-up above)


def golden_inputs() -> list[dict[str, Any]]:
    if not GOLDEN.is_file():
        sys.exit(f"golden file {GOLDEN} is missing: it lives in ../shared/golden next to the repository")
    with GOLDEN.open(encoding="utf-8") as handle:
        return [json.loads(line)["input"] for line in handle if line.strip()]


def varied(case: dict[str, Any], n: int) -> dict[str, Any]:
    """The same case made unique: a numbered document id and note."""
    case = json.loads(json.dumps(case))
    if "flatten" in case:
        case["flatten"] = f"{case['flatten']} {n}"
        return case
    ctx = case.get("channel_context")
    if isinstance(ctx, dict) and isinstance(ctx.get("user_note"), str):
        ctx["user_note"] = f"{ctx['user_note']} {n}"
    item = case.get("item")
    if isinstance(item, dict):
        item["document_id"] = f"doc-{n}"
    return case


def write_workload(path: Path, inputs: list[dict[str, Any]], lines: int, *, unique: bool) -> None:
    with path.open("w", encoding="utf-8") as handle:
        for n in range(lines):
            case = inputs[n % len(inputs)]
            handle.write(json.dumps(varied(case, n) if unique else case, ensure_ascii=False) + "\n")


def time_command(command: list[str], workload: Path, runs: int) -> tuple[float, float]:
    """Median wall seconds and median child CPU seconds over ``runs`` runs."""
    walls, cpus = [], []
    for _ in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        with workload.open("rb") as stdin, open(os.devnull, "wb") as stdout:
            start = time.perf_counter()
            subprocess.run(command, stdin=stdin, stdout=stdout, check=True, cwd=ROOT)
            walls.append(time.perf_counter() - start)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return statistics.median(walls), statistics.median(cpus)


def report(label: str, lines: int, wall: float, cpu: float) -> None:
    print(
        f"{label:<44} {wall:6.2f} s wall {lines / wall:>9,.0f} contexts/s"
        f"   {cpu:6.2f} s CPU {lines / cpu:>9,.0f} contexts/s"
    )


def in_process(inputs: list[dict[str, Any]], repeat: int = 2000) -> float:
    """Best-of-5 microseconds for analyse + render_lines per channel_context."""
    contexts = [case["channel_context"] for case in inputs if "channel_context" in case]

    def once() -> None:
        for ctx in contexts:
            clarifications.render_lines(clarifications.analyse(ctx).summary)

    best = min(_timed(once, repeat) for _ in range(5))
    return best / (repeat * len(contexts)) * 1e6


def _timed(function: Any, repeat: int) -> float:
    start = time.process_time()
    for _ in range(repeat):
        function()
    return time.process_time() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lines", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--compare", metavar="CMD", help="another command to time on the same stdin")
    args = parser.parse_args()

    inputs = golden_inputs()
    python_cli = [sys.executable, "-m", "clarifications"]
    with tempfile.TemporaryDirectory() as tmp:
        repeated, unique = Path(tmp) / "repeated.jsonl", Path(tmp) / "unique.jsonl"
        write_workload(repeated, inputs, args.lines, unique=False)
        write_workload(unique, inputs, args.lines, unique=True)
        print(f"{len(inputs)} golden inputs repeated to {args.lines:,} lines; median of {args.runs} runs")
        report("(a) python -m clarifications", args.lines, *time_command(python_cli, repeated, args.runs))
        report("(b) python -m clarifications, unique lines", args.lines, *time_command(python_cli, unique, args.runs))
        if args.compare:
            report(
                f"(d) {args.compare}"[:44], args.lines, *time_command(shlex.split(args.compare), repeated, args.runs)
            )
    print(f"(c) analyse + render_lines in process: {in_process(inputs):.2f} µs per context (best of 5, CPU time)")


if __name__ == "__main__":
    main()
