from __future__ import annotations

import pytest


@pytest.fixture
def committed_bookkeeping(transactional_db: None) -> None:
    """For tests whose writes commit.

    A test that needs real commits (so each plain-SQL UPDATE gets its own
    ``now()`` in accounted's ``updated_at`` trigger, as it does in
    production, and ``sync.poll`` sees it move) runs with
    ``transaction=True``. Django flushes only the review database;
    tests/conftest.py empties accounted's tables after every such test
    (TRUNCATE … CASCADE, which does not depend on the replica's ON DELETE
    rules: someone else's replica may have none).
    """
    return
