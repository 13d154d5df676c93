"""The overview screen (``/overview/``): the work per day, the queue now, and who answered how many."""
