#!/usr/bin/env python
import os
import sys


def main() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "reviewapp.settings")
    # Before Django loads the settings, which only read the environment: with
    # DEBUG (or EMBEDDED_POSTGRES) on and no database URL, start the private
    # embedded PostgreSQL and put its two URLs into the environment.
    from reviewapp.dev import embedded_pg

    embedded_pg.export_urls_if_asked(os.environ)
    from django.core.management import execute_from_command_line

    execute_from_command_line(sys.argv)


if __name__ == "__main__":
    main()
