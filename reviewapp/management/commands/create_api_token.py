"""python manage.py create_api_token USERNAME

Creates a personal API token (``Authorization: Bearer …``) and prints it once.
Only its SHA-256 is stored, so a lost token cannot be shown again: make a new one.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser

from reviewapp.api_auth import create_token


class Command(BaseCommand):
    help = "Create an API token for USERNAME and print it once (only its hash is stored)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("username")

    def handle(self, *args: Any, **options: Any) -> None:
        user_model = get_user_model()
        try:
            user = user_model._default_manager.get_by_natural_key(options["username"])
        except user_model.DoesNotExist:
            raise CommandError(f"No user named {options['username']!r}.") from None
        if not user.is_active:
            raise CommandError(f"User {options['username']!r} is inactive; an inactive user's token is refused.")
        token = create_token(user)
        self.stdout.write(token)
        self.stderr.write(
            "This is the only time the token is shown; only its hash is stored. "
            "Send it as: Authorization: Bearer <token>"
        )
