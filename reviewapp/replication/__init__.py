"""The read model fed by PostgreSQL's logical replication (``SYNC_SOURCE=replication``).

accounted's operator publishes the columns the sync reads; the review
database subscribes into a local copy (schema ``accounted_copy``, migration
0024), whose triggers queue every changed id. ``sync_index`` then drains the
queue with the same derivation as the polls (``reviewapp.sync.write_rows``),
reading the local copy only. See ``source`` and docs/operations.md.
"""
