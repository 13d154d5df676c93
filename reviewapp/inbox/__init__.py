"""The inbox list: filtering, facet counts, sorting, pagination.

Filtering and counting happen in the review database on the read model
(``IndexedItem``, kept by ``reviewapp.readmodel.sync``): its ``state_*`` columns are
what ``clarifications.analyse`` says about each item's ``channel_context``
(see ``reviewapp/core/states.py`` for what each state means). The rules of the
read model (in states, needing an answer, visible companies, search, queue
order) are ``IndexedItemQuerySet``'s, in ``reviewapp/models.py``.

The page, the API, the item page's previous/next and the admin all go through
these modules, so they cannot disagree about which items a link means. Import
from the module that defines a name:

- ``query``: ``ListQuery`` from the query string, and the items its filters
  match (ticked states combine with OR, the other filters with AND);
- ``sorting``: the sort orders, and ``neighbours`` (previous/next by keyset);
- ``counts``: ``facet_counts`` from the tally, one aggregate, or capped;
- ``landing``: what ``/`` shows each role (a bookkeeper's queue);
- ``page``: ``list_page``, one page of rows with their counts and how fresh
  the read model is (``Freshness``).
"""
