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


def _load_settings(monkeypatch, code: str = "", **env: str) -> subprocess.CompletedProcess[str]:
    """Import settings.py in a fresh interpreter with ``env`` (run ``code`` after it)."""
    full_env = {k: v for k, v in os.environ.items() if k not in {"SECRET_KEY", "DEBUG", "DATABASE_URL"}}
    full_env.update(env)
    return subprocess.run(
        [sys.executable, "-c", "import reviewapp.settings as s\n" + code],
        env=full_env,
        capture_output=True,
        text=True,
        check=False,
    )


def test_production_refuses_to_start_without_a_secret_key(monkeypatch):
    assert _load_settings(monkeypatch, DEBUG="0").returncode != 0


def test_debug_starts_with_the_development_key(monkeypatch):
    assert _load_settings(monkeypatch, DEBUG="1").returncode == 0


def test_database_url_selects_postgresql(monkeypatch):
    show = "db = s.DATABASES['default']; print(db['ENGINE'], db['NAME'], db['HOST'])"
    result = _load_settings(monkeypatch, show, DEBUG="1", DATABASE_URL="postgres://postgres@127.0.0.1:5432/review")
    assert result.stdout.split() == ["django.db.backends.postgresql", "review", "127.0.0.1"]


def test_without_database_url_the_app_uses_an_sqlite_file_in_the_project(monkeypatch):
    result = _load_settings(monkeypatch, "print(s.DATABASES['default']['NAME'])", DEBUG="1")
    assert result.stdout.strip() == str(Path(app_settings.BASE_DIR) / "db.sqlite3")


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
    assert not user.has_perm("reviewapp.change_inboxitem")


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
