"""The database engine of a DEBUG process that was given no database: one that refuses to be used.

See ``base.py``.
"""
