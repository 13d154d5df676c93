"""The replication mode's queue of what changed, and the trigger functions that fill it.

Created on every install (empty and unused in the default poll mode). The
copied tables themselves and their triggers are created by ``manage.py
replication setup`` (reviewapp/readmodel/replication.py), only where the mode is used.
"""

from django.db import migrations

FORWARD = """
CREATE SCHEMA accounted_copy;

-- kind: 'i' an item (item_id), 'c' the companies, 'a' everything (a TRUNCATE).
CREATE TABLE accounted_copy.changes (
    seq bigserial PRIMARY KEY,
    kind "char" NOT NULL,
    item_id uuid,
    queued_at timestamptz NOT NULL DEFAULT clock_timestamp()
);

CREATE FUNCTION accounted_copy.queue_item() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO accounted_copy.changes (kind, item_id)
    VALUES ('i', CASE WHEN TG_OP = 'DELETE' THEN OLD.id ELSE NEW.id END);
    RETURN NULL;
END $$;

CREATE FUNCTION accounted_copy.queue_kind() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO accounted_copy.changes (kind) VALUES (TG_ARGV[0]::"char");
    RETURN NULL;
END $$;
"""

BACKWARD = "DROP SCHEMA accounted_copy CASCADE;"


class Migration(migrations.Migration):
    dependencies = [
        ("reviewapp", "0024_holds_and_notes"),
    ]

    operations = [migrations.RunSQL(FORWARD, BACKWARD)]
