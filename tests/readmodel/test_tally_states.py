"""The whole-table pass counts the facet tally with the very expression migration 0002's triggers use."""

from __future__ import annotations

import importlib

from reviewapp.readmodel import bulk

TALLY_MIGRATION = importlib.import_module("reviewapp.migrations.0002_search_and_tally")


def test_the_swaps_tally_keys_states_as_the_migrations_triggers_do() -> None:
    # The triggers keep the live table's tally; a swap counts the new table's afresh. If the two keyed the
    # states differently, the state facets' counts would jump at every re-index.
    assert bulk.tally_states_sql("r") == TALLY_MIGRATION._mask("r")
    assert bulk.tally_states_sql("new_rows") == TALLY_MIGRATION._mask("new_rows")
    assert "state_needs_answer" in bulk.tally_states_sql("r")
