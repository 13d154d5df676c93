"""``call_command("sync_index")`` from a plain script, with no ``if __name__ == "__main__"`` guard.

The shared walk's helpers are processes of their own; they must never run
the caller's script again (multiprocessing's ``spawn`` did: every helper
re-ran the script, and the pass failed). The script here seeds nothing
itself: it writes a line to a file each time it runs, sets Django up and
indexes the rows this test committed, in two processes.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from urllib.parse import quote

import pytest
from django.conf import settings
from django.db import connections

from reviewapp.bookkeeping.routers import BOOKKEEPING_DB
from reviewapp.models import IndexedItem
from tests import factories

pytestmark = pytest.mark.django_db(transaction=True)

ROWS = 300

SCRIPT = """\
import os

with open(os.environ["RAN_LOG"], "a") as ran:
    ran.write("ran\\n")

import django

django.setup()

from django.core.management import call_command

from reviewapp.readmodel import bulk

bulk.SWAP_FROM = 0  # the new-table path, shared between processes, at any size
call_command("sync_index")
"""


def _url(alias: str) -> str:
    database = connections[alias].settings_dict
    # A Unix socket's folder (the embedded server's) goes in the URL percent-encoded.
    host, port = quote(database["HOST"] or "127.0.0.1", safe=""), database["PORT"] or 5432
    auth = database["USER"] + (f":{database['PASSWORD']}" if database.get("PASSWORD") else "")
    return f"postgres://{auth}@{host}:{port}/{database['NAME']}"


def test_sync_index_from_a_script_without_a_main_guard_indexes_every_row_once_and_runs_the_script_once(
    tmp_path: Path,
) -> None:
    company = factories.make_company()
    with connections[BOOKKEEPING_DB].cursor() as cursor:
        # Rows long enough to fill many pages, so that the helper gets shares of its own.
        cursor.execute(
            """INSERT INTO public.invoice_inbox_items (user_id, company_id, source, extracted_data, channel_context)
               SELECT %s, %s, 'whatsapp', '{"supplier": {"name": "Taxi"}}'::jsonb,
                      jsonb_build_object('channel', 'whatsapp', 'user_note', repeat('kundmöte ', 60) || n)
               FROM generate_series(1, %s) AS n""",
            [company.created_by, company.id, ROWS],
        )
    script = tmp_path / "seeded.py"
    script.write_text(SCRIPT)
    ran = tmp_path / "ran.log"
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "reviewapp.settings",
        "PYTHONPATH": str(settings.BASE_DIR),
        "RAN_LOG": str(ran),
        "SYNC_WORKERS": "2",
        "LOG_LEVEL": "INFO",
        "DATABASE_URL": _url("default"),
        "BOOKKEEPING_DATABASE_URL": _url(BOOKKEEPING_DB),
    }

    result = subprocess.run(  # our own interpreter on the test's script
        [sys.executable, str(script)], env=env, cwd=tmp_path, capture_output=True, text=True, timeout=120
    )

    assert result.returncode == 0, result.stderr[-3000:]
    assert ran.read_text() == "ran\n"  # the helper did not run the script again
    assert "poll: 300 indexed" in result.stdout
    assert IndexedItem.objects.count() == ROWS
    assert IndexedItem.objects.filter(search_text__contains="kundmöte").count() == ROWS
