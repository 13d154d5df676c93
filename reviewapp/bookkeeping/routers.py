"""Two databases: the review app's own (``default``) and accounted's (``bookkeeping``).

Models of the ``bookkeeping`` app live in accounted's database and are read
and written there; everything else is ours. ``migrate`` never touches the
bookkeeping database: accounted's own migrations own its schema.
"""

from __future__ import annotations

from typing import Any

BOOKKEEPING_APP = "bookkeeping"
BOOKKEEPING_DB = "bookkeeping"


class BookkeepingRouter:
    def _db_for(self, model_or_instance: Any) -> str:
        # _meta, not type(): request.user is a lazy object whose type is not the model.
        return BOOKKEEPING_DB if model_or_instance._meta.app_label == BOOKKEEPING_APP else "default"

    def db_for_read(self, model: Any, **hints: Any) -> str:
        return self._db_for(model)

    def db_for_write(self, model: Any, **hints: Any) -> str:
        return self._db_for(model)

    def allow_relation(self, obj1: Any, obj2: Any, **hints: Any) -> bool | None:
        # A relation across the two databases cannot be a join; only within one.
        return self._db_for(obj1) == self._db_for(obj2)

    def allow_migrate(self, db: str, app_label: str, model_name: str | None = None, **hints: Any) -> bool:
        return db != BOOKKEEPING_DB and app_label != BOOKKEEPING_APP
