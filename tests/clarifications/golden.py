"""Where the reference cases live, and how to read them.

The golden file is shared data next to the repository (``../shared/golden``),
not part of it. A missing file must fail the suite loudly, never skip it.
"""

import json
from pathlib import Path
from typing import Any

_ROOT_MARKERS = ("manage.py", "pyproject.toml")


def repo_root() -> Path:
    """The nearest ancestor of this file holding manage.py or pyproject.toml."""
    here = Path(__file__).resolve()
    for parent in here.parents:
        if any((parent / marker).is_file() for marker in _ROOT_MARKERS):
            return parent
    raise FileNotFoundError(f"no manage.py or pyproject.toml above {here}")


def golden_path() -> Path:
    """``shared/golden/clarifications.jsonl`` beside the repository, or beside an ancestor of it.

    The ancestors count for a copy of the repository inside it (``make mutate`` runs the
    tests in ``mutants/``); the first candidate is the one named when none exists.
    """
    candidates = [parent / "shared" / "golden" / "clarifications.jsonl" for parent in repo_root().parents]
    return next((path for path in candidates if path.is_file()), candidates[0])


def load_cases() -> list[dict[str, Any]]:
    """Every case in the golden file; raises FileNotFoundError when it is missing."""
    path = golden_path()
    if not path.is_file():
        raise FileNotFoundError(
            f"golden file {path} is missing: the clarifications port cannot be checked without it "
            "(it lives in ../shared/golden next to the repository)"
        )
    with path.open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]
