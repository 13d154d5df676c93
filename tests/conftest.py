from __future__ import annotations

import os
import uuid
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings as django_settings
from django.contrib.auth.models import Permission
from django.contrib.contenttypes.models import ContentType
from django.db import connections
from django.test import Client

from reviewapp.bookkeeping import replica
from reviewapp.bookkeeping.routers import BOOKKEEPING_DB
from reviewapp.core import roles
from reviewapp.core.stored_json import decode_json
from tests import factories


@pytest.fixture(autouse=True)
def _fast_and_local(settings, tmp_path):  # type: ignore[no-untyped-def]
    # MD5 hashing keeps user creation fast; plain static storage needs no
    # collectstatic manifest; uploads go to a throwaway folder.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    settings.MEDIA_ROOT = tmp_path / "media"
    settings.STORAGES = {
        **django_settings.STORAGES,
        "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
    }


@pytest.fixture(autouse=True)
def documents_bucket(_fast_and_local, settings, tmp_path) -> Path:  # type: ignore[no-untyped-def]
    """accounted's ``documents`` bucket, in a throwaway folder; the folder is returned.

    Setting STORAGES fires setting_changed, which drops the cached backends, so
    ``storages["documents"]`` is a fresh FileSystemStorage at this location in every test.
    """
    bucket = tmp_path / "bucket"
    settings.STORAGES = {
        **settings.STORAGES,
        "documents": {"BACKEND": "django.core.files.storage.FileSystemStorage", "OPTIONS": {"location": bucket}},
    }
    return bucket


@pytest.fixture(autouse=True)
def _english_interface(settings, request):  # type: ignore[no-untyped-def]
    # The interface is Swedish by default, but these tests assert the English
    # source strings, which stay put when a translation is reworded. Swedish
    # is covered by tests/test_i18n.py (which sets "sv" back) and by the
    # browser journeys, which keep the default and send Accept-Language sv-SE
    # like the bookkeepers' browsers.
    if request.node.get_closest_marker("e2e") is None:
        settings.LANGUAGE_CODE = "en"


@pytest.fixture
def bookkeeper(db):  # type: ignore[no-untyped-def]
    # A firm-wide bookkeeper: may see every company, so the tests of other
    # behaviour need no assignments. tests/access/ covers restricted ones.
    user = factories.make_user(roles.BOOKKEEPER, username="bea")
    user.user_permissions.add(
        Permission.objects.get(codename="view_all_companies", content_type__app_label="reviewapp")
    )
    return user


@pytest.fixture
def support(db):  # type: ignore[no-untyped-def]
    return factories.make_user(roles.SUPPORT, username="sven")


@pytest.fixture
def qa(db):  # type: ignore[no-untyped-def]
    return factories.make_user(roles.QA, username="qarin")


def _client_for(user) -> Client:  # type: ignore[no-untyped-def]
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def bookkeeper_client(bookkeeper) -> Client:  # type: ignore[no-untyped-def]
    return _client_for(bookkeeper)


@pytest.fixture
def support_client(support) -> Client:  # type: ignore[no-untyped-def]
    return _client_for(support)


@pytest.fixture
def qa_client(qa) -> Client:  # type: ignore[no-untyped-def]
    return _client_for(qa)


@pytest.fixture
def company(db):  # type: ignore[no-untyped-def]
    return factories.make_company()


def pytest_collection_modifyitems(config, items):  # type: ignore[no-untyped-def]
    # Every page reads both databases (the review app's and accounted's), so
    # every database test may use both: the closest django_db marker gains
    # databases="__all__", keeping its other options (transaction=True...).
    for item in items:
        marker = item.get_closest_marker("django_db")
        uses_db = {"db", "transactional_db", "live_server"} & set(getattr(item, "fixturenames", ()))
        if marker is None and not uses_db:
            continue
        kwargs = dict(marker.kwargs) if marker is not None else {}
        kwargs.setdefault("databases", "__all__")
        fixtures = set(getattr(item, "fixturenames", ()))
        if kwargs.get("transaction") or {"transactional_db", "live_server"} & fixtures:
            # A transactional test's flush empties the role groups, content
            # types and permissions. Either every transactional test restores
            # them by serialized rollback or none may: a flush that re-creates
            # them (post_migrate) collides with the next test's restore, and a
            # restoring test's flush (post_migrate inhibited) leaves the next
            # one without them. So all of them do.
            kwargs["transaction"] = True
            kwargs["serialized_rollback"] = True
        item.add_marker(pytest.mark.django_db(*(marker.args if marker else ()), **kwargs), append=False)


@pytest.fixture(scope="session")
def django_db_setup(request, django_db_setup, django_db_blocker):  # type: ignore[no-untyped-def]
    # The test copy of accounted's database is created empty (it is never
    # migrated); the replica built from the contract goes in once per run.
    # Under pytest-xdist each worker has its own copy (test_bookkeeping_gw0...)
    # and builds the replica there.
    # TEST_BOOKKEEPING_SCHEMA names other SQL to build it with instead: the
    # same tables made by someone else (CI runs the read paths on
    # tests/bookkeeping/replica_by_someone_else.sql too).
    # With --reuse-db (make mutate starts a test session per mutant, forked from one
    # process) a kept test database that already holds the replica is used as it is.
    reuse_db = request.config.getoption("reuse_db")
    other_schema = os.environ.get("TEST_BOOKKEEPING_SCHEMA")
    with django_db_blocker.unblock():
        # Ids a previous session in this process cached may name rows since re-created.
        ContentType.objects.clear_cache()
        connection = connections[BOOKKEEPING_DB]
        if reuse_db and replica.has_inbox_table(connection) and replica.is_replica(connection):
            pass
        elif other_schema:
            with connection.cursor() as cursor:
                cursor.execute(Path(other_schema).read_text(encoding="utf-8"))
                # The test database is this run's own whichever SQL built it: the
                # intake simulator may write to it, so its tests run on both replicas.
                cursor.execute("COMMENT ON SCHEMA public IS %s", [replica.MARK])
        else:
            replica.create(connection)
    yield
    if reuse_db:
        # A transactional test's flush leaves the tables empty until the next one restores
        # them. A kept database must end as it began: the next session does not migrate again,
        # so nothing would put back the role groups and the permissions the migrations made.
        with django_db_blocker.unblock():
            for each in connections.all(initialized_only=True):
                contents = getattr(each, "_test_serialized_contents", None)
                if contents:
                    each.creation.deserialize_db_from_string(contents)


@pytest.fixture(autouse=True)
def _empty_bookkeeping_after_transactional_tests(request):  # type: ignore[no-untyped-def]
    # Django flushes only the tables it manages after a transactional test;
    # accounted's are not among them, so they are emptied here (every table
    # hangs off auth.users or the event types, which stay).
    yield
    marker = request.node.get_closest_marker("django_db")
    transactional = "transactional_db" in request.fixturenames or (
        marker is not None and marker.kwargs.get("transaction")
    )
    if transactional:
        with connections[BOOKKEEPING_DB].cursor() as cursor:
            cursor.execute(
                "TRUNCATE auth.users, public.whatsapp_messages, public.whatsapp_conversations, "
                "public.whatsapp_phone_links, public.processing_history, public.document_attachments CASCADE"
            )


# The events the app writes to accounted's append-only log (never a name in them).
AUDITED_EVENTS = ("ChannelQuestionAnswered", "DocumentIngested", "DocumentExtractionAttempted")


def actor_problems(rows: list[tuple[str, Any, str]]) -> list[str]:
    """What is wrong with each ``(event_type, event_id, actor as JSON text)``: a label, or a user id that is no UUID."""
    problems = []
    for event_type, event_id, text in rows:
        actor = decode_json(text)
        if not isinstance(actor, dict):
            continue
        if "label" in actor:
            problems.append(f"{event_type} {event_id}: the actor has a label: {text}")
        if actor.get("type") == "user":
            try:
                uuid.UUID(str(actor.get("id")))
            except ValueError:
                problems.append(f"{event_type} {event_id}: a user actor whose id is not a UUID: {text}")
    return problems


@pytest.fixture(autouse=True)
def _no_names_in_accounted_log(request, _empty_bookkeeping_after_transactional_tests):  # type: ignore[no-untyped-def]
    # After every test that used the databases, and before the tables are
    # emptied (this fixture is torn down first: it depends on the emptying
    # one) or rolled back: every ChannelQuestionAnswered and DocumentIngested
    # the test wrote, whoever wrote it, must name nobody.
    yield
    connection = connections[BOOKKEEPING_DB]
    if request.node.get_closest_marker("django_db") is None or connection.needs_rollback:
        return  # no database, or the test broke its transaction: its own error is the one to read
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT event_type, event_id, actor::text FROM public.processing_history WHERE event_type = ANY(%s)",
            [list(AUDITED_EVENTS)],
        )
        problems = actor_problems(cursor.fetchall())
    if problems:
        pytest.fail("accounted's log got a name or a non-UUID user:\n" + "\n".join(problems[:10]), pytrace=False)
