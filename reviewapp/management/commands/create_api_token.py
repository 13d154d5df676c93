"""python manage.py create_api_token USERNAME [--days N] [--name TEXT]

Creates a personal API token (``Authorization: Bearer …``) and prints it once.
Only its SHA-256 is stored, so a lost token cannot be shown again: make a new one.
It expires after N days (API_TOKEN_DEFAULT_DAYS, 90); its owner can list and
revoke it on /account/tokens/.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser

from reviewapp.models import ApiToken
from reviewapp.web.api_auth import create_token, hash_token


class Command(BaseCommand):
    help = "Create an API token for USERNAME and print it once (only its hash is stored)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("username")
        parser.add_argument(
            "--days",
            type=int,
            default=settings.API_TOKEN_DEFAULT_DAYS,
            help=f"days until it expires (default {settings.API_TOKEN_DEFAULT_DAYS}, "
            f"at most {settings.API_TOKEN_MAX_DAYS})",
        )
        parser.add_argument("--name", default="", help="what the token is for, shown in its owner's token list")

    def handle(self, *args: Any, **options: Any) -> None:
        days = options["days"]
        if not 1 <= days <= settings.API_TOKEN_MAX_DAYS:
            raise CommandError(f"--days must be between 1 and {settings.API_TOKEN_MAX_DAYS}, got {days}.")
        name = options["name"].strip()
        max_name = ApiToken._meta.get_field("name").max_length or 100
        if len(name) > max_name:
            raise CommandError(f"--name must be at most {max_name} characters.")
        user_model = get_user_model()
        try:
            user = user_model._default_manager.get_by_natural_key(options["username"])
        except user_model.DoesNotExist:
            raise CommandError(f"No user named {options['username']!r}.") from None
        if not user.is_active:
            raise CommandError(f"User {options['username']!r} is inactive; an inactive user's token is refused.")
        token = create_token(user, days=days, name=name)
        expires = ApiToken.objects.get(key_hash=hash_token(token)).expires_at
        self.stdout.write(token)
        self.stderr.write(
            "This is the only time the token is shown; only its hash is stored. "
            "Send it as: Authorization: Bearer <token>\n"
            f"It expires at {expires.isoformat(timespec='minutes')}."
        )
