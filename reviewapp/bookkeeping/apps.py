from django.apps import AppConfig


class BookkeepingConfig(AppConfig):
    name = "reviewapp.bookkeeping"
    label = "bookkeeping"
    verbose_name = "Bookkeeping (accounted)"
