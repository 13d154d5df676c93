"""How the environment spells on and off: one reading for the settings and for the embedded server's starter.

No Django here: ``manage.py`` and the test run read ``DEBUG`` and
``EMBEDDED_POSTGRES`` through this before the settings are loaded
(``reviewapp.dev.embedded_pg``). Each caller says in its own way that a value
is misspelled (the settings raise ImproperlyConfigured, the starter exits),
so ``DEBUG=ture`` stops the process instead of silently meaning "off".
"""

from __future__ import annotations

from typing import Final

TRUE: Final = frozenset({"1", "true", "yes", "on"})
FALSE: Final = frozenset({"0", "false", "no", "off", ""})
SPELLINGS: Final = sorted(TRUE | FALSE)


def flag(raw: str | None, default: bool) -> bool | None:
    """``raw`` as on or off, ``default`` when it is unset, None when it is neither spelling."""
    if raw is None:
        return default
    value = raw.strip().lower()
    if value in TRUE:
        return True
    if value in FALSE:
        return False
    return None
