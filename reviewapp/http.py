"""Small request and response helpers shared by every view."""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.http import HttpRequest
from django_htmx.middleware import HtmxDetails


class HtmxHttpRequest(HttpRequest):
    """The request as our views see it: with django-htmx's details attached."""

    htmx: HtmxDetails
    user: AbstractBaseUser | AnonymousUser  # type: ignore[assignment]
