"""The replication mode's queue triggers also wake the sync (``pg_notify``), so a change is drained at once.

Without it ``sync_index --follow`` found a change only at its next pass
(``--interval``, or up to ``--idle-interval`` after a quiet minute). A
notification is sent when the apply worker's transaction commits, once per
transaction whatever the number of rows (PostgreSQL folds identical ones).
"""

from django.db import migrations

FORWARD = """
CREATE OR REPLACE FUNCTION accounted_copy.queue_item() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO accounted_copy.changes (kind, item_id)
    VALUES ('i', CASE WHEN TG_OP = 'DELETE' THEN OLD.id ELSE NEW.id END);
    PERFORM pg_notify('accounted_copy_changes', '');
    RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION accounted_copy.queue_kind() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO accounted_copy.changes (kind) VALUES (TG_ARGV[0]::"char");
    PERFORM pg_notify('accounted_copy_changes', '');
    RETURN NULL;
END $$;
"""

BACKWARD = """
CREATE OR REPLACE FUNCTION accounted_copy.queue_item() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO accounted_copy.changes (kind, item_id)
    VALUES ('i', CASE WHEN TG_OP = 'DELETE' THEN OLD.id ELSE NEW.id END);
    RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION accounted_copy.queue_kind() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO accounted_copy.changes (kind) VALUES (TG_ARGV[0]::"char");
    RETURN NULL;
END $$;
"""


class Migration(migrations.Migration):
    dependencies = [
        ("reviewapp", "0025_accounted_copy"),
    ]

    operations = [migrations.RunSQL(FORWARD, BACKWARD)]
