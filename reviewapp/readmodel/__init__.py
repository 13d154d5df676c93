"""The read model: accounted's inbox items, indexed in the review database for the list.

This package's surface is what the rest of the app uses; its modules are its
own business (``tests/test_layers.py`` holds every other package to that):

- ``poll``, ``reconcile``: the passes ``sync_index`` runs (``PassReport`` says
  what each did); ``index_items``: one item now, after the app wrote to it;
- ``synced``, ``Synced``, ``read_model_age``, ``stale_after``: when the read
  model last caught up, and accounted's companies as it last read them;
- ``RULES_VERSION``: raised when a release changes how a row is derived.

Inside: ``sync`` (the passes, their lock and state), ``rows`` (one row of
accounted's table derived into one of the read model, shared by every pass),
``bulk`` (whole-table walks into a new table that is swapped in),
``copying`` (batches read and COPYed into staging) and ``workers`` (the
helper processes a big walk is shared out to).
"""

from reviewapp.readmodel.sync import (
    RULES_VERSION,
    PassReport,
    Synced,
    index_items,
    poll,
    read_model_age,
    reconcile,
    stale_after,
    synced,
)

__all__ = [
    "RULES_VERSION",
    "PassReport",
    "Synced",
    "index_items",
    "poll",
    "read_model_age",
    "reconcile",
    "stale_after",
    "synced",
]
