"""The three roles and what each may do.

Roles are Django groups created by a data migration
(``migrations/0002_roles.py`` holds what each role may do), so every database,
including each test database, has them. Views check permissions, never
group names, so an admin can compose roles without touching code.
"""

from __future__ import annotations

from typing import Final

BOOKKEEPER: Final = "Bookkeeper"
SUPPORT: Final = "Support"
QA: Final = "QA"

ROLES: Final = (BOOKKEEPER, SUPPORT, QA)

# Permission codenames the views check.
VIEW_ITEMS: Final = "reviewapp.view_inboxitem"
ANSWER: Final = "reviewapp.answer_question"
VIEW_RAW: Final = "reviewapp.view_raw_context"
PREVIEW: Final = "reviewapp.use_preview"
SAVE_GOLDEN: Final = "reviewapp.add_goldencase"


def role_names(user: object) -> list[str]:
    """The role names a user holds, for the header ("Support", "QA")."""
    groups = getattr(user, "groups", None)
    if groups is None:
        return []
    return sorted(g.name for g in groups.all() if g.name in ROLES)
