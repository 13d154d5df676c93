"""Settings parsing, roles and their permissions, login on every page."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.contrib.auth.models import Group
from django.core.exceptions import ImproperlyConfigured
from django.urls import reverse

from reviewapp import settings as app_settings
from reviewapp.dev import embedded_pg
from tests import factories


@pytest.mark.parametrize(
    ("raw", "expected"),
    [("1", True), ("true", True), ("On", True), ("0", False), ("no", False), ("", False)],
)
def test_envbool_reads_the_usual_spellings(monkeypatch, raw, expected):
    monkeypatch.setenv("X_FLAG", raw)
    assert app_settings.envbool("X_FLAG", not expected) is expected


def test_envbool_refuses_a_typo_instead_of_guessing(monkeypatch):
    monkeypatch.setenv("X_FLAG", "ture")
    with pytest.raises(ImproperlyConfigured, match="X_FLAG"):
        app_settings.envbool("X_FLAG", False)


def test_envint_refuses_text(monkeypatch):
    monkeypatch.setenv("X_NUM", "ten")
    with pytest.raises(ImproperlyConfigured, match="X_NUM"):
        app_settings.envint("X_NUM", 3)


def test_envlist_splits_and_trims(monkeypatch):
    monkeypatch.setenv("X_HOSTS", " a.example , b.example,,")
    assert app_settings.envlist("X_HOSTS", []) == ["a.example", "b.example"]


# Two PostgreSQL URLs that are never connected to: importing the settings only parses them.
REVIEW_URL = "postgres://postgres@127.0.0.1:5432/review"
BOOKKEEPING_URL = "postgres://postgres@127.0.0.1:5432/bookkeeping"
_SETTINGS_ENV = {"SECRET_KEY", "DEBUG", "DATABASE_URL", "BOOKKEEPING_DATABASE_URL", "EMBEDDED_POSTGRES"}


def _load_settings(monkeypatch, code: str = "", **env: str) -> subprocess.CompletedProcess[str]:
    """Import settings.py in a fresh interpreter with ``env`` (run ``code`` after it).

    Neither database URL is inherited, and the embedded server is never
    started: a test that needs the databases configured passes both URLs.
    """
    full_env = {k: v for k, v in os.environ.items() if k not in _SETTINGS_ENV}
    full_env.update(env)
    return subprocess.run(
        [sys.executable, "-c", "import reviewapp.settings as s\n" + code],
        env=full_env,
        capture_output=True,
        text=True,
        check=False,
    )


def test_production_refuses_to_start_without_a_secret_key(monkeypatch):
    result = _load_settings(monkeypatch, DEBUG="0", DATABASE_URL=REVIEW_URL, BOOKKEEPING_DATABASE_URL=BOOKKEEPING_URL)
    assert result.returncode != 0
    assert "SECRET_KEY must be set" in result.stderr


def test_debug_starts_with_the_development_key(monkeypatch):
    show = "print(s.SECRET_KEY.startswith('django-insecure-'))"
    result = _load_settings(
        monkeypatch, show, DEBUG="1", DATABASE_URL=REVIEW_URL, BOOKKEEPING_DATABASE_URL=BOOKKEEPING_URL
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "True"


def test_the_two_database_urls_select_the_apps_and_accounteds_postgresql(monkeypatch):
    show = "for a in ('default', 'bookkeeping'): d = s.DATABASES[a]; print(a, d['ENGINE'], d['NAME'], d['HOST'])"
    result = _load_settings(
        monkeypatch, show, DEBUG="1", DATABASE_URL=REVIEW_URL, BOOKKEEPING_DATABASE_URL=BOOKKEEPING_URL
    )
    assert result.stdout.splitlines() == [
        "default django.db.backends.postgresql review 127.0.0.1",
        # Django's PostgreSQL backend with the app's own limits on every wait (reviewapp/bookkeeping/bounded_pg).
        "bookkeeping reviewapp.bookkeeping.bounded_pg bookkeeping 127.0.0.1",
    ]


@pytest.mark.parametrize("which", ["DATABASE_URL", "BOOKKEEPING_DATABASE_URL"])
def test_one_database_url_without_the_other_is_refused(monkeypatch, which):
    result = _load_settings(monkeypatch, DEBUG="1", **{which: REVIEW_URL})
    assert result.returncode != 0
    assert "Set both DATABASE_URL" in result.stderr


def test_production_without_database_urls_refuses_to_start(monkeypatch):
    # SQLite is gone; without URLs only the embedded server would do, and production must not guess.
    result = _load_settings(monkeypatch, DEBUG="0", SECRET_KEY="x" * 60)
    assert result.returncode != 0
    assert "DATABASE_URL and BOOKKEEPING_DATABASE_URL must be set" in result.stderr


def test_a_database_that_is_not_postgresql_is_refused(monkeypatch):
    sqlite = f"sqlite:///{Path(app_settings.BASE_DIR) / 'db.sqlite3'}"
    result = _load_settings(monkeypatch, DEBUG="1", DATABASE_URL=sqlite, BOOKKEEPING_DATABASE_URL=BOOKKEEPING_URL)
    assert result.returncode != 0
    assert "Both databases must be PostgreSQL" in result.stderr


# What a process without a database URL imported, and what its first query said.
_NO_SERVER = """
import sys
print(sorted(m for m in sys.modules if 'embedded' in m))
from reviewapp.models import IndexedItem
try:
    IndexedItem.objects.count()
except Exception as error:
    print(type(error).__name__, error)
"""


@pytest.mark.parametrize("module", ["django.setup()", "reviewapp.wsgi"])
def test_debug_without_database_urls_loads_but_starts_no_server(monkeypatch, module):
    # mypy (django-stubs) loads the settings with DEBUG=1 and no URL, and so
    # may gunicorn: neither may start the embedded server or create databases.
    setup = "import django; django.setup()" if module == "django.setup()" else "import reviewapp.wsgi"
    result = _load_settings(monkeypatch, setup + _NO_SERVER, DEBUG="1", DJANGO_SETTINGS_MODULE="reviewapp.settings")
    assert result.returncode == 0, result.stderr
    imported, said = result.stdout.splitlines()
    assert imported == "[]"
    # The first query says what to set instead of failing somewhere deeper.
    assert said.startswith("ImproperlyConfigured No database: DATABASE_URL and BOOKKEEPING_DATABASE_URL are not set.")


def test_embedded_postgres_is_for_the_starters_not_the_settings(monkeypatch):
    # EMBEDDED_POSTGRES=1 asks manage.py and the test run for the server; a
    # process that loads the settings directly (gunicorn) with DEBUG off still refuses.
    result = _load_settings(monkeypatch, DEBUG="0", SECRET_KEY="x" * 60, EMBEDDED_POSTGRES="1")
    assert result.returncode != 0
    assert "DATABASE_URL and BOOKKEEPING_DATABASE_URL must be set" in result.stderr


@pytest.mark.parametrize(
    ("env", "asked"),
    [
        ({"DEBUG": "1"}, True),
        ({"DEBUG": "0", "EMBEDDED_POSTGRES": "1"}, True),
        ({}, False),  # production: the settings refuse to load instead
        ({"DEBUG": "0", "EMBEDDED_POSTGRES": "0"}, False),
        ({"DEBUG": "1", "DATABASE_URL": REVIEW_URL, "BOOKKEEPING_DATABASE_URL": BOOKKEEPING_URL}, False),
        ({"DEBUG": "1", "DATABASE_URL": REVIEW_URL}, False),  # half a configuration: the settings say so
    ],
)
def test_the_embedded_server_is_started_only_when_no_database_is_named(env, asked):
    assert embedded_pg.asked(dict(env)) is asked


# manage.py with the server's start faked: a socket folder whose name needs quoting in a URL.
_FAKE_SERVER = """
import runpy, sys
from reviewapp.dev import embedded_pg
created = []
server = {"HOST": "/tmp/Some Folder", "PORT": "5433", "USER": "postgres", "PASSWORD": ""}
embedded_pg.connection_settings = lambda: server
embedded_pg.ensure_database = created.append
sys.argv = ["manage.py", "shell", "--no-imports", "-c", "from django.conf import settings as s; "
    "print([(a, d['HOST'], d['PORT'], d['NAME']) for a, d in s.DATABASES.items()])"]
try:
    runpy.run_path("manage.py", run_name="__main__")
finally:
    print(created)
"""


def test_manage_py_starts_the_embedded_server_before_django_reads_the_settings(monkeypatch):
    result = subprocess.run(
        [sys.executable, "-c", _FAKE_SERVER],
        env={**{k: v for k, v in os.environ.items() if k not in _SETTINGS_ENV}, "DEBUG": "1"},
        cwd=app_settings.BASE_DIR,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    databases, created = result.stdout.strip().splitlines()[-2:]
    assert databases == (
        "[('default', '/tmp/Some Folder', 5433, 'review'), ('bookkeeping', '/tmp/Some Folder', 5433, 'bookkeeping')]"
    )
    assert created == "['review', 'bookkeeping']"


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("role", "may_answer", "may_see_raw", "may_preview", "may_save_golden"),
    [
        ("Bookkeeper", True, False, False, False),
        ("Support", False, True, True, False),
        ("QA", False, True, True, True),
    ],
)
def test_each_role_holds_exactly_its_capabilities(role, may_answer, may_see_raw, may_preview, may_save_golden):
    user = factories.make_user(role)
    assert user.has_perm("reviewapp.view_indexeditem")
    assert user.has_perm("reviewapp.answer_question") is may_answer
    assert user.has_perm("reviewapp.view_raw_context") is may_see_raw
    assert user.has_perm("reviewapp.use_preview") is may_preview
    assert user.has_perm("reviewapp.add_goldencase") is may_save_golden
    assert not user.has_perm("reviewapp.change_indexeditem")
    assert not user.has_perm("reviewapp.change_clarificationevent")


@pytest.mark.django_db
def test_the_roles_exist_on_a_fresh_database():
    assert set(Group.objects.values_list("name", flat=True)) >= {"Bookkeeper", "Support", "QA"}


@pytest.mark.django_db
@pytest.mark.parametrize("url_name", ["inbox", "preview", "golden_cases"])
def test_anonymous_visitors_are_sent_to_the_login_page(client, url_name):
    response = client.get(reverse(url_name))
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("login"))


@pytest.mark.django_db
def test_anonymous_item_page_redirects_to_login(client):
    item = factories.make_item()
    response = client.get(reverse("item_detail", args=[item.id]))
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("login"))


@pytest.mark.django_db
def test_the_login_page_is_swedish_by_default(client, settings):
    # Undo the suite's English default (tests/conftest.py): this test is about settings.py's.
    settings.LANGUAGE_CODE = app_settings.LANGUAGE_CODE
    response = client.get(reverse("login"))
    assert response.status_code == 200
    assert 'lang="sv"' in response.content.decode()


@pytest.mark.django_db(transaction=True)
def test_the_roles_survive_a_database_flush():
    # Transactional tests flush every table; later tests still need the roles.
    from django.core.management import call_command

    call_command("flush", interactive=False, verbosity=0)
    user = factories.make_user("Bookkeeper")
    assert user.has_perm("reviewapp.answer_question")
    assert not user.has_perm("reviewapp.use_preview")
