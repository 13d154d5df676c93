"""``python -m clarifications``: see ``clarifications.cli``."""

import sys

from clarifications.cli import main

sys.exit(main())
