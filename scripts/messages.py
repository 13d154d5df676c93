"""The Swedish catalogue from the code: ``make messages`` runs this.

Django's makemessages cannot read Jinja2's ``{% trans %}``, so Babel extracts
the messages instead: Jinja2's own extractor for the pages and Babel's Python
extractor for reviewapp/ (babel.cfg says which files and how). Then

- ``python scripts/messages.py`` merges them into
  locale/sv/LC_MESSAGES/django.po (``pybabel update``: every translation is
  kept, a new message arrives untranslated, one the code no longer asks for
  is dropped) and compiles django.mo, which the running app reads;
- ``python scripts/messages.py --check`` changes nothing and fails, naming
  them, when the code asks for a message the catalogue does not translate or
  the catalogue holds one the code no longer asks for (tests/test_i18n.py).
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

from babel.messages.pofile import read_po

ROOT = Path(__file__).resolve().parent.parent
PO = ROOT / "locale" / "sv" / "LC_MESSAGES" / "django.po"
# Django's functions as reviewapp calls them (the lazy forms too); the pages use _, gettext, ngettext, pgettext.
KEYWORDS = [
    "_",
    "gettext",
    "gettext_lazy",
    "gettext_noop",
    "ngettext:1,2",
    "ngettext_lazy:1,2",
    "pgettext:1c,2",
    "pgettext_lazy:1c,2",
    "npgettext:1c,2,3",
    "npgettext_lazy:1c,2,3",
]
PYBABEL = str(Path(sys.executable).parent / "pybabel")

Key = tuple[str | None, str | tuple[str, ...]]


def extract(pot: Path, root: Path = ROOT) -> None:
    """Every message the code and the pages under ``root`` ask for, into the template ``pot``."""
    keywords = [arg for keyword in KEYWORDS for arg in ("-k", keyword)]
    subprocess.run(  # noqa: S603 - the venv's own pybabel
        [PYBABEL, "-q", "extract", "-F", "babel.cfg", "--no-default-keywords", *keywords,
         "--sort-by-file", "--project=reviewapp", "-o", str(pot), "."],
        cwd=root,
        check=True,
    )  # fmt: skip


def _keys(path: Path) -> dict[Key, bool]:
    """Each message of a catalogue: whether it is translated (every plural form too, and not fuzzy)."""
    with path.open("rb") as file:
        catalog = read_po(file)
    found: dict[Key, bool] = {}
    for message in catalog:
        if not message.id:
            continue  # the header
        key = (message.context, message.id if isinstance(message.id, str) else tuple(message.id))
        strings = message.string if isinstance(message.string, (list, tuple)) else [message.string]
        found[key] = all(strings) and not message.fuzzy
    return found


def problems(root: Path = ROOT) -> list[str]:
    """What ``make messages`` would change, or leave untranslated: nothing when the catalogue is current."""
    with tempfile.TemporaryDirectory() as folder:
        pot = Path(folder) / "django.pot"
        extract(pot, root)
        asked = set(_keys(pot))
    catalogue = _keys(PO)
    missing = [f"not in django.po: {key!r}" for key in sorted(asked - set(catalogue), key=repr)]
    untranslated = [f"untranslated: {key!r}" for key in sorted(asked & set(catalogue), key=repr) if not catalogue[key]]
    unused = [f"no longer asked for: {key!r}" for key in sorted(set(catalogue) - asked, key=repr)]
    return missing + untranslated + unused


def update() -> None:
    with tempfile.TemporaryDirectory() as folder:
        pot = Path(folder) / "django.pot"
        extract(pot)
        subprocess.run(  # noqa: S603 - the venv's own pybabel
            [PYBABEL, "-q", "update", "-i", str(pot), "-d", "locale", "-D", "django", "-l", "sv",
             "--ignore-obsolete", "--no-fuzzy-matching", "--ignore-pot-creation-date"],
            cwd=ROOT,
            check=True,
        )  # fmt: skip
    subprocess.run([PYBABEL, "-q", "compile", "-d", "locale", "-D", "django", "-l", "sv"], cwd=ROOT, check=True)  # noqa: S603
    untranslated = [line for line in problems() if line.startswith(("untranslated", "not in"))]
    if untranslated:
        sys.exit(
            "Translate these in locale/sv/LC_MESSAGES/django.po, then run make messages again:\n"
            + "\n".join(untranslated)
        )


if __name__ == "__main__":
    if sys.argv[1:] == ["--check"]:
        found = problems()
        if found:
            sys.exit("The catalogue is not what `make messages` makes:\n" + "\n".join(found))
    elif sys.argv[1:]:
        sys.exit("usage: python scripts/messages.py [--check]")
    else:
        update()
