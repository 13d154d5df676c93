"""Facet counts that do not grow with the table (PostgreSQL).

Counting the items in each state with COUNT(*) costs time in proportion to
the rows counted: ten times the items, ten times slower, however good the
indexes. The list shows those counts on every page, so on PostgreSQL the
database keeps a tally instead: one row per (company, set of states, open
question type) with how many items are in it, maintained by statement-level
triggers over the transition tables of every INSERT, UPDATE, DELETE and
TRUNCATE on invoice_inbox_items, in the same transaction as the change. A
count for any combination of state, type and company filters is then a sum
over a few dozen tally rows (``reviewapp.inbox.facet_counts``).

The tally follows the state columns, the same columns the list filters on,
so the numbers always match the rows shown. Deltas are summed per statement
and only non-zero ones are written: an UPDATE that changes no state (the
usual case) touches no tally row, so writers do not queue on it.

SQLite (development) counts rows directly and has no tally.
"""

from django.db import migrations

STATE_COLUMNS = (
    "state_needs_answer",
    "state_waiting_in_chat",
    "state_denied",
    "state_purpose_missing",
    "state_answered",
    "state_no_answers",
    "state_malformed",
)


def _mask(alias):
    # Bit i is STATE_COLUMNS[i]; the order is reviewapp.states.STATE_KEYS.
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


# '' stands for "no open question" so the key can be a plain unique constraint.
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
    """
    CREATE TRIGGER inbox_state_tally_insert AFTER INSERT ON invoice_inbox_items
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION inbox_state_tally_insert()
    """,
    """
    CREATE TRIGGER inbox_state_tally_delete AFTER DELETE ON invoice_inbox_items
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION inbox_state_tally_delete()
    """,
    """
    CREATE TRIGGER inbox_state_tally_update AFTER UPDATE ON invoice_inbox_items
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION inbox_state_tally_update()
    """,
    """
    CREATE TRIGGER inbox_state_tally_truncate AFTER TRUNCATE ON invoice_inbox_items
    FOR EACH STATEMENT EXECUTE FUNCTION inbox_state_tally_truncate()
    """,
    # Start from the rows already there; the lock keeps writers out until the
    # triggers and the initial tally commit together.
    "LOCK TABLE invoice_inbox_items IN SHARE MODE",
    f"""
    INSERT INTO inbox_state_tally (company_id, states, question_type, n)
    SELECT company_id, {_mask("r")}, COALESCE(open_question_type, ''), count(*)
    FROM invoice_inbox_items r GROUP BY 1, 2, 3
    """,
]

BACKWARD = [
    "DROP TRIGGER IF EXISTS inbox_state_tally_insert ON invoice_inbox_items",
    "DROP TRIGGER IF EXISTS inbox_state_tally_delete ON invoice_inbox_items",
    "DROP TRIGGER IF EXISTS inbox_state_tally_update ON invoice_inbox_items",
    "DROP TRIGGER IF EXISTS inbox_state_tally_truncate ON invoice_inbox_items",
    "DROP FUNCTION IF EXISTS inbox_state_tally_insert()",
    "DROP FUNCTION IF EXISTS inbox_state_tally_delete()",
    "DROP FUNCTION IF EXISTS inbox_state_tally_update()",
    "DROP FUNCTION IF EXISTS inbox_state_tally_truncate()",
    "DROP TABLE IF EXISTS inbox_state_tally",
]


def install(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        for sql in FORWARD:
            schema_editor.execute(sql, None)


def uninstall(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        for sql in BACKWARD:
            schema_editor.execute(sql, None)


class Migration(migrations.Migration):
    dependencies = [
        ("reviewapp", "0003_inbox_freshness_and_indexes"),
    ]

    operations = [
        migrations.RunPython(install, uninstall, elidable=False),
    ]
