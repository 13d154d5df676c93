from typing import Any

from django.apps import AppConfig
from django.db.models.signals import post_migrate


def _ensure_roles(**kwargs: Any) -> None:
    # After migrate, and after a test database flush, which empties the
    # groups table but re-creates permissions just before this runs.
    from django.apps import apps

    from reviewapp.core import roles

    roles.ensure_roles(apps)


class ReviewappConfig(AppConfig):
    name = "reviewapp"
    verbose_name = "Clarification review"

    def ready(self) -> None:
        post_migrate.connect(_ensure_roles, sender=self, dispatch_uid="reviewapp-ensure-roles")
