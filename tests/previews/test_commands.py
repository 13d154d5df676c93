"""golden_check, golden_export, golden_import and create_api_token."""

from __future__ import annotations

import hashlib
import io
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

import psycopg
import psycopg.sql
import pytest
from django.core.management import CommandError, call_command
from django.db import connections
from django.test import Client
from django.urls import reverse

from reviewapp.models import ApiToken, GoldenCase
from tests.previews.conftest import GOLDEN, golden_records

REPO = Path(__file__).resolve().parents[2]


def _run(*args: str) -> str:
    out = io.StringIO()
    call_command(*args, stdout=out, stderr=io.StringIO())
    return out.getvalue()


def _changed_file(tmp_path: Path) -> Path:
    """The shared file with one expectation changed, as a renderer change would show."""
    records = golden_records()
    for record in records:
        if record["name"] == "pending resend open":
            record["expected"]["lines"] = ["OBESVARAD FRÅGA: något annat."]
    path = tmp_path / "changed.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
    return path


def test_the_shared_file_imports_and_then_passes_the_check(db):
    assert "59 created" in _run("golden_import", str(GOLDEN))
    assert GoldenCase.objects.count() == len(golden_records()) == 59
    assert "59 passed, 0 failed" in _run("golden_check")


def test_the_check_fails_on_a_difference_and_prints_the_diff(db):
    _run("golden_import", str(GOLDEN))
    case = GoldenCase.objects.get(name="pending resend open")
    real_line = case.expected["lines"][0]
    case.expected = {**case.expected, "lines": ["OBESVARAD FRÅGA: något annat."]}
    case.save()
    out = io.StringIO()
    with pytest.raises(CommandError, match="58 passed, 1 failed"):
        call_command("golden_check", stdout=out)
    printed = out.getvalue()
    assert "FAIL  pending resend open" in printed
    assert '-  "OBESVARAD FRÅGA: något annat."' in printed
    assert f"+  {json.dumps(real_line, ensure_ascii=False)}" in printed


def test_the_check_can_read_files_instead_of_the_database(db, tmp_path):
    assert "59 passed" in _run("golden_check", "--file", str(GOLDEN))
    with pytest.raises(CommandError, match="1 failed"):
        _run("golden_check", "--file", str(_changed_file(tmp_path)))


def test_the_check_exits_non_zero_from_the_shell(tmp_path):
    def check(path: Path) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "manage.py", "golden_check", "--file", str(path)],
            cwd=REPO,
            capture_output=True,
            text=True,
            check=False,
            timeout=120,
        )

    passing = check(GOLDEN)
    assert passing.returncode == 0, passing.stderr
    failing = check(_changed_file(tmp_path))
    assert failing.returncode == 1
    assert "FAIL  pending resend open" in failing.stdout
    assert "1 failed" in failing.stderr


@pytest.fixture
def scratch_database_url() -> Iterator[str]:
    """A fresh, empty review database on the test run's PostgreSQL server, dropped afterwards."""
    params = connections["default"].settings_dict
    name = f"{params['NAME']}_golden_cmd"
    server = {
        "host": params["HOST"] or "127.0.0.1",
        "port": int(params["PORT"] or 5432),
        "user": params["USER"] or "postgres",
        "password": params["PASSWORD"] or None,
    }
    quoted = psycopg.sql.Identifier(name)
    with psycopg.connect(dbname="postgres", autocommit=True, **server) as admin:
        admin.execute(psycopg.sql.SQL("DROP DATABASE IF EXISTS {}").format(quoted))
        admin.execute(psycopg.sql.SQL("CREATE DATABASE {}").format(quoted))
    password = f":{quote(server['password'], safe='')}" if server["password"] else ""
    try:
        # A Unix-socket directory (the embedded server) goes in percent-encoded.
        host = quote(str(server["host"]), safe="")
        yield f"postgres://{quote(server['user'], safe='')}{password}@{host}:{server['port']}/{name}"
    finally:
        with psycopg.connect(dbname="postgres", autocommit=True, **server) as admin:
            admin.execute(psycopg.sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(quoted))


def test_import_check_and_exit_code_against_a_real_database(tmp_path, scratch_database_url):
    # The commands as an operator runs them, in their own processes, on a
    # database nobody else uses (golden cases live in the review database).
    # The commands never touch accounted's database; it points at the scratch one too.
    env = {**os.environ, "DATABASE_URL": scratch_database_url, "BOOKKEEPING_DATABASE_URL": scratch_database_url}

    def manage(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "manage.py", *args],
            cwd=REPO,
            env=env,
            capture_output=True,
            text=True,
            check=False,
            timeout=300,
        )

    assert manage("migrate", "--noinput", "-v0").returncode == 0
    assert manage("golden_import", str(GOLDEN)).returncode == 0
    assert manage("golden_check").returncode == 0
    assert manage("golden_import", str(_changed_file(tmp_path)), "--replace").returncode == 0
    failing = manage("golden_check")
    assert failing.returncode == 1
    assert "pending resend open" in failing.stdout


def test_export_gives_back_the_shared_file(db):
    _run("golden_import", str(GOLDEN))
    exported = _run("golden_export")
    original = GOLDEN.read_text(encoding="utf-8")
    assert [json.loads(line) for line in exported.splitlines()] == golden_records()
    # Byte for byte but for the order of object keys, which jsonb does not keep: each line
    # the same characters (å as å, not \u00e5; the same spacing), one case a line.
    assert exported.endswith("\n")
    assert [sorted(line) for line in exported.splitlines()] == [sorted(line) for line in original.splitlines()]


def test_export_to_a_file_then_import_elsewhere(db, tmp_path):
    _run("golden_import", str(GOLDEN))
    target = tmp_path / "out.jsonl"
    _run("golden_export", "--output", str(target))
    GoldenCase.objects.all().delete()
    assert "59 created" in _run("golden_import", str(target))


def test_importing_the_same_file_twice_changes_nothing(db):
    _run("golden_import", str(GOLDEN))
    assert "0 created, 0 replaced, 59 already present" in _run("golden_import", str(GOLDEN))


def test_a_name_with_other_content_stops_the_import_unless_replace(db, tmp_path):
    _run("golden_import", str(GOLDEN))
    changed = _changed_file(tmp_path)
    with pytest.raises(CommandError, match="pending resend open"):
        _run("golden_import", str(changed))
    assert GoldenCase.objects.get(name="pending resend open").expected["lines"] != ["OBESVARAD FRÅGA: något annat."]
    assert "1 replaced" in _run("golden_import", str(changed), "--replace")
    assert GoldenCase.objects.get(name="pending resend open").expected["lines"] == ["OBESVARAD FRÅGA: något annat."]


def test_a_bad_line_names_its_number_and_imports_nothing(db, tmp_path):
    lines = GOLDEN.read_text(encoding="utf-8").splitlines()
    lines.insert(2, '{"name": "half"')
    path = tmp_path / "bad.jsonl"
    path.write_text("\n".join(lines), encoding="utf-8")
    with pytest.raises(CommandError, match="line 3"):
        _run("golden_import", str(path))
    assert not GoldenCase.objects.exists()


def test_a_line_without_expected_is_refused(db, tmp_path):
    path = tmp_path / "bad.jsonl"
    path.write_text('{"name": "x", "input": {"flatten": "a"}}\n', encoding="utf-8")
    with pytest.raises(CommandError, match='line 1: expected an object with "name", "input" and "expected"'):
        _run("golden_import", str(path))


def test_a_missing_file_is_a_clear_error(db, tmp_path):
    with pytest.raises(CommandError, match="No such file"):
        _run("golden_import", str(tmp_path / "nope.jsonl"))


def test_create_api_token_prints_a_working_token_once_and_stores_its_hash(qa):
    token = _run("create_api_token", qa.username).strip()
    stored = ApiToken.objects.get(user=qa)
    assert stored.key_hash == hashlib.sha256(token.encode()).hexdigest()
    assert token not in {stored.key_hash, stored.prefix}
    client = Client(headers={"authorization": f"Bearer {token}"})
    response = client.post(reverse("api_preview"), {"channel_context": None}, content_type="application/json")
    assert response.status_code == 200


def test_create_api_token_refuses_an_unknown_user(db):
    with pytest.raises(CommandError, match="No user named 'nobody'"):
        _run("create_api_token", "nobody")


@pytest.mark.parametrize("command", ["golden_import", "golden_check"])
def test_a_file_that_is_not_utf8_is_a_clear_error_naming_it(db, tmp_path, command):
    path = tmp_path / "latin1.jsonl"
    path.write_bytes('{"name": "Café", "input": {}, "expected": {}}\n'.encode("latin-1"))
    arguments = [str(path)] if command == "golden_import" else ["--file", str(path)]
    with pytest.raises(CommandError, match=rf"{path.name}: not UTF-8"):
        _run(command, *arguments)
