"""accounted's tables, as the review app sees them.

The bookkeeping application (accounted) owns these tables and their schema;
the models here are unmanaged mirrors of the columns the review app reads,
on the ``bookkeeping`` database alias. ``reviewapp.bookkeeping.routers`` sends every
query for them there and keeps ``migrate`` away from that database. The
contract is ``../shared/bookkeeping/README.md``; ``replica.sql`` builds the
same tables for development, tests and CI.
"""
