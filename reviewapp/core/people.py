"""How the app names a person: one rule, used wherever a review user is shown.

The full name (Django's ``get_full_name``: first and last name) when the user
has one, else the username. A logged event whose user is gone keeps the label
logged with it. Only the app's own pages use this: ``processing_history`` in
accounted never holds a name (see reviewapp.answers.writing).
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth.base_user import AbstractBaseUser
from django.db.models import CharField, F, Func, Value
from django.db.models.expressions import Combinable
from django.db.models.functions import Coalesce, Concat, NullIf, Trim


def person_name(user: AbstractBaseUser | Any) -> str:
    """``"Bea Bokförare"`` for a user with a name, ``"bokforare"`` for one without."""
    full = user.get_full_name().strip() if hasattr(user, "get_full_name") else ""
    return full or user.get_username()


def actor_name(actor: AbstractBaseUser | None, logged_label: str) -> str:
    """The name of the user who wrote a logged event; ``logged_label`` once that user is deleted."""
    return person_name(actor) if actor is not None else logged_label


def person_name_sql(prefix: str = "") -> Func | Combinable:
    """``person_name`` in SQL, for a user reached through ``prefix`` (e.g. ``"user__"``): one query for a whole list."""
    full = Trim(Concat(F(f"{prefix}first_name"), Value(" "), F(f"{prefix}last_name"), output_field=CharField()))
    return Coalesce(NullIf(full, Value("")), F(f"{prefix}username"), output_field=CharField())
