"""The read model's trigram search index and its facet tally.

Counting the items in each state with COUNT(*) costs time in proportion to
the rows counted. The list shows those counts on every page, so the review
database keeps a tally instead: one row per (company, set of states, open
question type) with how many indexed items are in it, maintained by
statement-level triggers over the transition tables of every INSERT, UPDATE,
DELETE and TRUNCATE on the read model, in the same transaction as the
change. A count for any combination of state, type and company filters is
then a sum over a few dozen tally rows (``reviewapp.inbox.facet_counts``).
Deltas are summed per statement and only non-zero ones are written.

All of this is on our own table in our own database: accounted's tables get
no trigger, index or extension from us.
"""

from django.db import migrations

from reviewapp.core import states

TABLE = "reviewapp_indexeditem"
STATE_COLUMNS = tuple(states.STATE_FIELDS[key] for key in states.STATE_KEYS)


def _mask(alias):
    return " | ".join(f"({alias}.{column}::int << {bit})" for bit, column in enumerate(STATE_COLUMNS))


def _upsert(select_deltas):
    return f"""
        INSERT INTO inbox_state_tally AS t (company_id, states, question_type, n)
        SELECT company_id, states, question_type, sum(delta)
        FROM ({select_deltas}) AS deltas
        GROUP BY company_id, states, question_type
        HAVING sum(delta) <> 0
        ORDER BY company_id, states, question_type
        ON CONFLICT (company_id, states, question_type) DO UPDATE SET n = t.n + EXCLUDED.n
    """


QTYPE = "COALESCE(r.open_question_type, '') AS question_type"
NEW = f"SELECT company_id, {_mask('r')} AS states, {QTYPE}, 1 AS delta FROM new_rows r"
OLD = f"SELECT company_id, {_mask('r')} AS states, {QTYPE}, -1 AS delta FROM old_rows r"


def _function(name, body):
    return f"""
    CREATE OR REPLACE FUNCTION {name}() RETURNS trigger LANGUAGE plpgsql AS $fn$
    BEGIN
        {body};
        RETURN NULL;
    END
    $fn$
    """


FORWARD = [
    "CREATE EXTENSION IF NOT EXISTS pg_trgm",
    f"CREATE INDEX index_search_trgm_idx ON {TABLE} USING gin (search_text gin_trgm_ops)",
    """
    CREATE TABLE inbox_state_tally (
        company_id uuid NOT NULL,
        states integer NOT NULL,
        question_type varchar(20) NOT NULL,
        n bigint NOT NULL,
        PRIMARY KEY (company_id, states, question_type)
    )
    """,
    _function("inbox_state_tally_insert", _upsert(NEW)),
    _function("inbox_state_tally_delete", _upsert(OLD)),
    _function("inbox_state_tally_update", _upsert(f"{NEW} UNION ALL {OLD}")),
    _function("inbox_state_tally_truncate", "TRUNCATE inbox_state_tally"),
    f"""
    CREATE TRIGGER inbox_state_tally_insert AFTER INSERT ON {TABLE}
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION inbox_state_tally_insert()
    """,
    f"""
    CREATE TRIGGER inbox_state_tally_delete AFTER DELETE ON {TABLE}
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION inbox_state_tally_delete()
    """,
    f"""
    CREATE TRIGGER inbox_state_tally_update AFTER UPDATE ON {TABLE}
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION inbox_state_tally_update()
    """,
    f"""
    CREATE TRIGGER inbox_state_tally_truncate AFTER TRUNCATE ON {TABLE}
    FOR EACH STATEMENT EXECUTE FUNCTION inbox_state_tally_truncate()
    """,
]

BACKWARD = [
    f"DROP TRIGGER IF EXISTS inbox_state_tally_insert ON {TABLE}",
    f"DROP TRIGGER IF EXISTS inbox_state_tally_delete ON {TABLE}",
    f"DROP TRIGGER IF EXISTS inbox_state_tally_update ON {TABLE}",
    f"DROP TRIGGER IF EXISTS inbox_state_tally_truncate ON {TABLE}",
    "DROP FUNCTION IF EXISTS inbox_state_tally_insert()",
    "DROP FUNCTION IF EXISTS inbox_state_tally_delete()",
    "DROP FUNCTION IF EXISTS inbox_state_tally_update()",
    "DROP FUNCTION IF EXISTS inbox_state_tally_truncate()",
    "DROP TABLE IF EXISTS inbox_state_tally",
    "DROP INDEX IF EXISTS index_search_trgm_idx",
]


class Migration(migrations.Migration):
    dependencies = [("reviewapp", "0001_initial")]

    operations = [migrations.RunSQL(FORWARD, BACKWARD)]
