"""The three roles and what each may do.

Roles are Django groups created by a data migration, so every database has
them, and re-created after every ``migrate`` and test-database flush (a
transactional test's flush empties the groups table; the permissions come
back by themselves, the groups would not). Views check permissions, never
group names, so an admin can compose roles without touching code.
"""

from __future__ import annotations

from typing import Any, Final

from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _

BOOKKEEPER: Final = "Bookkeeper"
SUPPORT: Final = "Support"
QA: Final = "QA"

ROLES: Final = (BOOKKEEPER, SUPPORT, QA)

# The group names are stored in English; people see them in their language.
ROLE_LABELS: Final[dict[str, Promise]] = {
    BOOKKEEPER: _("Bookkeeper"),
    SUPPORT: _("Support"),
    QA: _("QA"),
}

_VIEW = ["view_indexeditem", "view_clarificationevent"]

# What each role may do: reviewapp permission codenames.
# Bookkeepers see the client companies assigned to them (CompanyAssignment,
# in the admin); Support and QA work across every customer.
ROLE_PERMISSIONS: Final[dict[str, list[str]]] = {
    BOOKKEEPER: [*_VIEW, "answer_question", "add_itemnote"],
    # Support look after the work across customers, so they see who answered
    # how many; a lead bookkeeper is given "view_team_overview" in the admin.
    SUPPORT: [
        *_VIEW,
        "add_itemnote",
        "view_raw_context",
        "use_preview",
        "view_goldencase",
        "view_all_companies",
        "view_team_overview",
    ],
    QA: [*_VIEW, "view_raw_context", "use_preview", "view_goldencase", "add_goldencase", "view_all_companies"],
}

# Permission codenames the views check.
VIEW_ITEMS: Final = "reviewapp.view_indexeditem"
ANSWER: Final = "reviewapp.answer_question"
VIEW_RAW: Final = "reviewapp.view_raw_context"
PREVIEW: Final = "reviewapp.use_preview"
SAVE_GOLDEN: Final = "reviewapp.add_goldencase"
VIEW_TEAM_OVERVIEW: Final = "reviewapp.view_team_overview"
ADD_NOTE: Final = "reviewapp.add_itemnote"


def role_labels(user: object) -> list[str]:
    """The user's roles as the header shows them ("Bokförare", "Support")."""
    # Loaded with the user by reviewapp.web.auth_backend on every request.
    names = getattr(user, "group_names", None)
    if names is None:
        groups = getattr(user, "groups", None)
        names = [] if groups is None else [g.name for g in groups.all()]
    return sorted(str(ROLE_LABELS[name]) for name in names if name in ROLE_LABELS)


def ensure_roles(apps: Any) -> None:
    """Create the role groups and give each exactly its permissions (idempotent).

    ``apps`` is a migration's historical registry or ``django.apps.apps``.
    """
    group_model = apps.get_model("auth", "Group")
    permission_model = apps.get_model("auth", "Permission")
    for role, codenames in ROLE_PERMISSIONS.items():
        group, _ = group_model.objects.get_or_create(name=role)
        group.permissions.set(
            permission_model.objects.filter(content_type__app_label="reviewapp", codename__in=codenames)
        )
