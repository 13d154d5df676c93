from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.clarifications.golden import golden_path

REPO = Path(__file__).resolve().parents[2]
# Beside the repository, or beside an ancestor of it (make mutate runs the tests in mutants/).
GOLDEN = golden_path()


def golden_records() -> list[dict[str, Any]]:
    """Every line of the shared golden file, parsed, in file order."""
    return [json.loads(line) for line in GOLDEN.read_text(encoding="utf-8").splitlines() if line.strip()]


def cli_output(lines: list[bytes]) -> list[bytes]:
    """What ``python -m clarifications`` prints for each input line (one process)."""
    done = subprocess.run(
        [sys.executable, "-m", "clarifications"],
        input=b"".join(line + b"\n" for line in lines),
        capture_output=True,
        cwd=REPO,
        check=False,
        timeout=60,
    )
    printed = done.stdout.splitlines()
    assert len(printed) == len(lines), done.stderr
    return printed
