"""The interface speaks Swedish by default and English on request; the compiled
catalogue says exactly what locale/sv/LC_MESSAGES/django.po says; what the
agent receives (prompt lines, agent view, notes) is never translated.

The rest of the suite runs in English (tests/conftest.py); every test here
puts back the default from settings.py first.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import translation

from reviewapp import settings as app_settings
from reviewapp.web.api_auth import create_token
from tests import factories
from tests.html import page_of

ROOT = Path(__file__).resolve().parents[1]
PO = ROOT / "locale" / "sv" / "LC_MESSAGES" / "django.po"
GOLDEN = Path(__file__).resolve().parents[2] / "shared" / "golden" / "clarifications.jsonl"


@pytest.fixture(autouse=True)
def _project_default_language(settings):  # type: ignore[no-untyped-def]
    settings.LANGUAGE_CODE = app_settings.LANGUAGE_CODE


# --- The catalogue as written --------------------------------------------------


@dataclass
class Entry:
    msgid: str = ""
    msgid_plural: str | None = None
    msgctxt: str | None = None
    msgstr: dict[int, str] = field(default_factory=dict)  # plural index -> text; 0 for a singular entry
    flags: set[str] = field(default_factory=set)


_KEYWORD = re.compile(r'^(msgctxt|msgid_plural|msgid|msgstr)(?:\[(\d+)\])?\s+(".*")$')


def _read_po(path: Path) -> list[Entry]:
    """Every live entry of a .po file (obsolete ``#~`` entries are skipped), header excluded."""
    entries: list[Entry] = []
    entry, target = Entry(), None

    def finish() -> None:
        nonlocal entry, target
        if target is not None and entry.msgid:
            entries.append(entry)
        entry, target = Entry(), None

    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            finish()
        elif line.startswith("#,"):
            entry.flags.update(flag.strip() for flag in line[2:].split(","))
        elif line.startswith("#"):
            continue
        elif match := _KEYWORD.match(line):
            keyword, index, text = match.groups()
            target = (keyword, int(index or 0))
            _append(entry, target, json.loads(text), start=True)
        else:
            if not line.startswith('"') or target is None:
                raise ValueError(f"not a .po line: {line!r}")
            _append(entry, target, json.loads(line), start=False)
    finish()
    return entries


def _append(entry: Entry, target: tuple[str, int], text: str, *, start: bool) -> None:
    keyword, index = target
    if keyword == "msgstr":
        entry.msgstr[index] = ("" if start else entry.msgstr[index]) + text
    else:
        setattr(entry, keyword, ("" if start else getattr(entry, keyword)) + text)


ENTRIES = _read_po(PO)


def test_the_po_file_was_read():
    # Guards the checks below against a parser that silently reads nothing.
    assert len(ENTRIES) >= 300
    assert any(entry.msgid == "Inbox" and entry.msgstr == {0: "Inkorg"} for entry in ENTRIES)
    assert any(entry.msgid_plural is not None for entry in ENTRIES)


def test_no_entry_is_untranslated_or_fuzzy():
    fuzzy = [entry.msgid for entry in ENTRIES if "fuzzy" in entry.flags]
    untranslated = [
        entry.msgid
        for entry in ENTRIES
        if not all(entry.msgstr.get(i) for i in ((0, 1) if entry.msgid_plural is not None else (0,)))
    ]
    assert fuzzy == []
    assert untranslated == []


def test_the_catalogue_is_what_make_messages_makes():
    # Babel extracts every message the pages ({% trans %}, _(), ngettext()...)
    # and reviewapp/ ask for (babel.cfg, scripts/messages.py). A text added to
    # a page without a translation would show in English on the Swedish page;
    # one reworded leaves a stale entry behind. Either fails here, named.
    result = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "messages.py"), "--check"],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr


def test_the_check_names_a_page_text_the_catalogue_lacks(tmp_path):
    # The check above is live: a {% trans %} on a page that django.po lacks is named.
    import importlib.util

    spec = importlib.util.spec_from_file_location("messages_script", ROOT / "scripts" / "messages.py")
    assert spec is not None
    assert spec.loader is not None
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    (tmp_path / "babel.cfg").write_bytes((ROOT / "babel.cfg").read_bytes())
    (tmp_path / "templates").mkdir()
    (tmp_path / "templates" / "page.html").write_text(
        "{% trans %}Inbox{% endtrans %} {% trans %}A text nobody translated{% endtrans %}\n", encoding="utf-8"
    )
    found = script.problems(tmp_path)
    assert "not in django.po: (None, 'A text nobody translated')" in found
    assert not any("'Inbox'" in line for line in found)  # translated, and asked for


_MARKUP = re.compile(r"%\(\w+\)[sd]|%[sd]|\{[^{}]*\}|<[^<>]+>")


def test_every_translation_keeps_the_placeholders_and_markup():
    # msgfmt --check-format checks %(name)s but not HTML tags or {braces}.
    broken = [
        (entry.msgid, text)
        for entry in ENTRIES
        for text in entry.msgstr.values()
        if sorted(_MARKUP.findall(text)) != sorted(_MARKUP.findall(entry.msgid))
    ]
    assert broken == []


def _compiled(entry: Entry, n: int) -> str:
    if entry.msgid_plural is not None:
        if entry.msgctxt is not None:
            return translation.npgettext(entry.msgctxt, entry.msgid, entry.msgid_plural, n)
        return translation.ngettext(entry.msgid, entry.msgid_plural, n)
    if entry.msgctxt is not None:
        return translation.pgettext(entry.msgctxt, entry.msgid)
    return translation.gettext(entry.msgid)


def test_the_compiled_catalogue_says_what_the_po_file_says():
    # A .po edit without `manage.py compilemessages` fails here: the running
    # app reads only the committed .mo.
    stale = []
    with translation.override("sv"):
        for entry in ENTRIES:
            for n, index in ((1, 0), (2, 1)) if entry.msgid_plural is not None else ((1, 0),):
                got = _compiled(entry, n)
                if got != entry.msgstr[index]:
                    stale.append(f"{entry.msgid!r} [{index}]: .po {entry.msgstr[index]!r}, .mo {got!r}")
    assert stale == [], "Run `manage.py compilemessages`:\n" + "\n".join(stale)


# --- Pages ---------------------------------------------------------------------


def test_the_login_page_is_swedish_by_default(client):
    response = client.get(reverse("login"))

    assert response.status_code == 200
    body = response.content.decode()
    assert '<html lang="sv">' in body
    assert "<h1>Logga in</h1>" in body
    assert ">Logga in</button>" in body
    assert "Log in" not in body


def test_the_inbox_is_swedish_by_default_and_offers_english(bookkeeper_client, company):
    factories.make_item(company, channel_context={"channel": "whatsapp", "user_note": "kontorsmaterial"})

    response = bookkeeper_client.get(reverse("inbox"))

    assert response.status_code == 200
    body = response.content.decode()
    assert '<html lang="sv">' in body
    assert "<h1>Inkorg</h1>" in body
    assert ">Behöver svar i appen</span>" in body
    assert ">Logga ut</button>" in body
    assert '<span class="role-badge">Bokförare</span>' in body
    # The way out names English in English: a reader without Swedish finds it.
    assert 'name="language" value="en" class="link-button" lang="en">English</button>' in body
    assert "Inbox" not in body


def test_choosing_english_turns_the_inbox_english_and_it_stays_english(bookkeeper_client):
    inbox = reverse("inbox")

    response = bookkeeper_client.post(reverse("set_language"), {"language": "en", "next": inbox}, follow=True)

    assert response.redirect_chain == [(inbox, 302)]
    assert response.status_code == 200
    body = response.content.decode()
    assert '<html lang="en">' in body
    assert "<h1>Inbox</h1>" in body
    assert ">Log out</button>" in body
    assert '<span class="role-badge">Bookkeeper</span>' in body
    assert "Inkorg" not in body
    # The choice is remembered for the next page, not just the redirect.
    later = bookkeeper_client.get(inbox).content.decode()
    assert "<h1>Inbox</h1>" in later
    assert 'name="language" value="sv" class="link-button" lang="sv">Svenska</button>' in later


def test_choosing_swedish_again_turns_it_back(bookkeeper_client):
    inbox = reverse("inbox")
    bookkeeper_client.post(reverse("set_language"), {"language": "en", "next": inbox})

    response = bookkeeper_client.post(reverse("set_language"), {"language": "sv", "next": inbox}, follow=True)

    assert "<h1>Inkorg</h1>" in response.content.decode()


# --- What the agent receives stays as it is --------------------------------------


def _golden_case(name: str) -> dict[str, Any]:
    for line in GOLDEN.read_text(encoding="utf-8").splitlines():
        if line.strip() and (case := json.loads(line))["name"] == name:
            return case
    raise AssertionError(f"no golden case named {name!r}")


def test_the_item_page_shows_the_agent_view_and_notes_verbatim_in_swedish(support_client, company):
    case = _golden_case("full answer")
    item_input = case["input"]["item"]
    item = factories.make_item(
        company, channel_context=case["input"]["channel_context"], extracted_data=item_input["extracted_data"]
    )
    expected_view = [line.replace("document_id=doc-1, ", "") for line in case["expected"]["agent_view"]]
    assert expected_view != case["expected"]["agent_view"], "the golden bullet names doc-1"

    response = support_client.get(reverse("item_detail", args=[item.pk]))

    assert response.status_code == 200
    page = page_of(response)
    assert '<h2 id="agent-view-title">Det här får agenten veta</h2>' in response.content.decode()
    assert page.text("agent-view-text") == "\n".join(expected_view)
    assert page.text("notes-text") == case["expected"]["notes"]


def test_the_preview_api_answers_errors_in_swedish_but_leaves_the_prompt_lines_alone(qa):
    client = Client(headers={"authorization": f"Bearer {create_token(qa)}"})
    case = _golden_case("full answer")

    good = client.post(reverse("api_preview"), case["input"], content_type="application/json")
    bad = client.post(reverse("api_preview"), '{\n  "channel_context": {\n}', content_type="application/json")

    assert good.status_code == 200
    data = good.json()
    for key in ("lines", "agent_view", "notes", "summary"):
        assert data[key] == case["expected"][key], key
    assert bad.status_code == 400
    assert "Ogiltig JSON på rad 3, kolumn 2" in bad.json()["error"]
