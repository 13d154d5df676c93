"""Django's ModelBackend, loading with the user what every page asks of them.

Each page checks a permission and shows the user's roles in its header. With
Django's backend that is three queries a request after the user's own
(groups, the user's permissions, the groups' permissions); here the user row
comes with its group names and both permission sets in one query.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth.backends import ModelBackend
from django.contrib.auth.models import User
from django.contrib.postgres.aggregates import ArrayAgg
from django.db.models import Q, Value
from django.db.models.functions import Concat


def _permission_names(prefix: str) -> ArrayAgg:
    """``app_label.codename`` of the permissions behind ``prefix`` (``user_permissions`` or ``groups__permissions``)."""
    return ArrayAgg(
        Concat(f"{prefix}__content_type__app_label", Value("."), f"{prefix}__codename"),
        distinct=True,
        filter=Q(**{f"{prefix}__isnull": False}),
        default=Value([]),
    )


class UserWithRolesBackend(ModelBackend):
    def get_user(self, user_id: Any) -> User | None:  # type: ignore[override]
        user = (
            User._default_manager.filter(pk=user_id)
            .annotate(
                group_names=ArrayAgg("groups__name", distinct=True, filter=Q(groups__isnull=False), default=Value([])),
                own_permissions=_permission_names("user_permissions"),
                group_permissions=_permission_names("groups__permissions"),
            )
            .first()
        )
        if user is None or not self.user_can_authenticate(user):
            return None
        # ModelBackend's own caches, filled as it would fill them. A superuser
        # has every permission without them (ModelBackend asks for all).
        if user.is_active and not user.is_superuser:
            user._user_perm_cache = set(user.own_permissions)  # type: ignore[attr-defined]
            user._group_perm_cache = set(user.group_permissions)  # type: ignore[attr-defined]
        return user
