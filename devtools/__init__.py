"""Development tools, outside the product: demo data and a simulator of accounted's intake.

A Django app only so that its commands (``seed_demo``, ``simulate_intake``,
``create_bookkeeping_replica``) are ``manage.py`` commands; it has no models,
views or URLs, and nothing in ``reviewapp`` imports it. Every command here
writes only to a bookkeeping replica this project created
(``reviewapp.bookkeeping.replica``), never to accounted's real database.
"""
