"""clarifications is a plain library: importing it must not load Django."""

import subprocess
import sys

from tests.clarifications.golden import repo_root

PROBE = """
import sys
sys.path.insert(0, sys.argv[1])
import clarifications
import clarifications.cli
print(sorted(name for name in sys.modules if name.split(".")[0] == "django"))
"""


def test_importing_clarifications_does_not_load_django() -> None:
    # -I: a fresh, isolated interpreter (no PYTHONPATH, no site customisation
    # from the environment), so nothing but the import itself can load Django.
    done = subprocess.run(
        [sys.executable, "-I", "-c", PROBE, str(repo_root())],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
