"""Django's ModelBackend, loading with the user what every page asks of them.

Each page checks a permission and shows the user's roles in its header. With
Django's backend that is three queries a request after the user's own
(groups, the user's permissions, the groups' permissions), and a fourth for
the companies the user is assigned (``reviewapp.core.access``); here the user
row comes with its group names, both permission sets and the assigned
companies in one statement.

Plain SQL, written once: the same query through the ORM (three ``ArrayAgg``
over joins) cost 7 ms of Python a request to compile, against 1.5 ms for
Django's own user query.

Why it stays (``bench/speed_layers.py``, 2026-12-01, 100 000 items): with
Django's ``ModelBackend`` instead, a bookkeeper's list page took 13.5 ms
longer (+20 %, 95 % interval 11.3–14.6 ms; 3.9 ms of it this process's CPU)
and a superuser's 5.1 ms (+7.6 %), on a loaded 2-core machine. Remove it when
that script shows less than 5 % and 1 ms (``bench/README.md``, "Speed layers").
"""

from __future__ import annotations

from typing import Any, Final

from django.contrib.auth.backends import ModelBackend
from django.contrib.auth.models import Group, Permission, User
from django.contrib.contenttypes.models import ContentType
from django.core.exceptions import ValidationError
from django.db import connections, router

from reviewapp.core import access
from reviewapp.models import CompanyAssignment

_USER_GROUPS: Final = User.groups.through._meta.db_table
_USER_PERMISSIONS: Final = User.user_permissions.through._meta.db_table
_GROUP_PERMISSIONS: Final = Group.permissions.through._meta.db_table
_PERMISSION_NAME: Final = "ct.app_label || '.' || p.codename"
_PERMISSIONS_OF: Final = (
    f"JOIN {Permission._meta.db_table} p ON p.id = {{link}}.permission_id "
    f"JOIN {ContentType._meta.db_table} ct ON ct.id = p.content_type_id"
)
_USER_FIELDS: Final = [field.attname for field in User._meta.concrete_fields]
# How many columns a USER_WITH_ROLES row has: the user's fields, then four arrays.
USER_WITH_ROLES_COLUMNS: Final = len(_USER_FIELDS) + 4
# The user's row, one parameter (the id); also the row source of a statement
# that asks more in the same round trip (``reviewapp.web.unchanged_poll``).
USER_WITH_ROLES: Final = f"""
    SELECT {", ".join(f'u."{name}"' for name in _USER_FIELDS)},
      ARRAY(SELECT g.name FROM {_USER_GROUPS} ug JOIN {Group._meta.db_table} g ON g.id = ug.group_id
            WHERE ug.user_id = u.id) AS group_names,
      ARRAY(SELECT {_PERMISSION_NAME} FROM {_USER_PERMISSIONS} up {_PERMISSIONS_OF.format(link="up")}
            WHERE up.user_id = u.id) AS own_permissions,
      ARRAY(SELECT {_PERMISSION_NAME} FROM {_USER_GROUPS} ug JOIN {_GROUP_PERMISSIONS} gp ON gp.group_id = ug.group_id
            {_PERMISSIONS_OF.format(link="gp")} WHERE ug.user_id = u.id) AS group_permissions,
      ARRAY(SELECT ca.company_id FROM {CompanyAssignment._meta.db_table} ca WHERE ca.user_id = u.id) AS company_ids
    FROM {User._meta.db_table} u WHERE u.id = %s
"""  # noqa: S608 - table names from the models, the id a parameter


class UserWithRolesBackend(ModelBackend):
    def get_user(self, user_id: Any) -> User | None:  # type: ignore[override]
        try:
            pk = User._meta.pk.to_python(user_id)  # type: ignore[union-attr]
        except ValidationError:  # a session holding an id of another shape is no user
            return None
        alias = router.db_for_read(User)
        with connections[alias].cursor() as cursor:
            cursor.execute(USER_WITH_ROLES, [pk])
            row = cursor.fetchone()
        if row is None:
            return None
        return self.user_from_row(alias, row)

    def user_from_row(self, alias: str, row: tuple[Any, ...]) -> User | None:
        """The user of a ``USER_WITH_ROLES`` row with what it read remembered; None when they may not sign in."""
        count = len(_USER_FIELDS)
        user = User.from_db(alias, _USER_FIELDS, row[:count])
        user.group_names, own_permissions, group_permissions, assigned = row[count:USER_WITH_ROLES_COLUMNS]  # type: ignore[attr-defined]
        # The companies this user may see (reviewapp.core.access), asked of
        # every list, item and search: here rather than in a query of their own.
        access.remember_company_ids(user, frozenset(assigned))
        if not self.user_can_authenticate(user):
            return None
        # ModelBackend's own caches, filled as it would fill them. A superuser
        # has every permission without them (ModelBackend asks for all).
        if user.is_active and not user.is_superuser:
            user._user_perm_cache = set(own_permissions)  # type: ignore[attr-defined]
            user._group_perm_cache = set(group_permissions)  # type: ignore[attr-defined]
        return user
