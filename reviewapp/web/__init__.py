"""The web layer: forms, view models, views, templates' helpers and the request plumbing.
Nothing below this package imports django.http, django.forms or django_htmx."""
