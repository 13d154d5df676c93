"""The placeholder ``ENGINE`` the settings use under DEBUG when no database URL is set.

The settings only read the environment and never start a server, yet with
DEBUG on they must still import without a database: mypy (django-stubs) loads
them, and so does any tool that only needs the models. This engine lets them;
the first query, connection or migration raises ImproperlyConfigured saying
what to set. ``manage.py`` (and so every ``make`` target) and the test run
never get here: they start the embedded PostgreSQL first
(reviewapp/dev/embedded_pg.py). With DEBUG off the settings refuse to load instead.
"""

from typing import Any, NoReturn

from django.core.exceptions import ImproperlyConfigured
from django.db.backends.dummy import base as dummy

MESSAGE = (
    "No database: DATABASE_URL and BOOKKEEPING_DATABASE_URL are not set. Set both, or run through "
    "manage.py or make, which start the embedded PostgreSQL with DEBUG=1 (reviewapp/dev/embedded_pg.py)."
)


def complain(*args: Any, **kwargs: Any) -> NoReturn:
    raise ImproperlyConfigured(MESSAGE)


class DatabaseOperations(dummy.DatabaseOperations):
    quote_name = complain


class DatabaseClient(dummy.DatabaseClient):
    runshell = complain


class DatabaseIntrospection(dummy.DatabaseIntrospection):
    get_table_list = complain
    get_table_description = complain
    get_relations = complain
    get_indexes = complain


class DatabaseWrapper(dummy.DatabaseWrapper):
    vendor = "none"
    display_name = "no database"
    _cursor = complain
    ensure_connection = complain
    _commit = complain
    _savepoint_commit = complain
    _set_autocommit = complain
    client_class = DatabaseClient
    introspection_class = DatabaseIntrospection
    ops_class = DatabaseOperations
