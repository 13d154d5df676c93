"""The replication mode's local copy of accounted's columns, and the queue of what changed.

Created on every install (empty and unused in the default poll mode): the
subscription (``manage.py replication setup``) fills the copy; the triggers,
enabled ALWAYS so that they fire for the apply worker too (it runs with
session_replication_role = replica, where ordinary triggers are skipped),
queue each changed id for ``sync_index`` (reviewapp/replication/source.py).
"""

from django.db import migrations

FORWARD = """
CREATE SCHEMA accounted_copy;

CREATE TABLE accounted_copy.invoice_inbox_items (
    id uuid PRIMARY KEY,
    company_id uuid NOT NULL,
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL,
    channel_context jsonb,
    extracted_data jsonb,
    created_supplier_invoice_id uuid,
    created_journal_entry_id uuid,
    document_id uuid,
    correlation_id uuid,
    whatsapp_message_id uuid,
    extraction_skipped boolean NOT NULL DEFAULT false
);

CREATE TABLE accounted_copy.companies (
    id uuid PRIMARY KEY,
    name text NOT NULL,
    archived_at timestamptz
);

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

CREATE TRIGGER queue_item AFTER INSERT OR UPDATE OR DELETE ON accounted_copy.invoice_inbox_items
    FOR EACH ROW EXECUTE FUNCTION accounted_copy.queue_item();
CREATE TRIGGER queue_all AFTER TRUNCATE ON accounted_copy.invoice_inbox_items
    FOR EACH STATEMENT EXECUTE FUNCTION accounted_copy.queue_kind('a');
-- Row triggers: the apply worker fires row triggers, and statement triggers only for a TRUNCATE.
CREATE TRIGGER queue_companies AFTER INSERT OR UPDATE OR DELETE ON accounted_copy.companies
    FOR EACH ROW EXECUTE FUNCTION accounted_copy.queue_kind('c');
CREATE TRIGGER queue_companies_all AFTER TRUNCATE ON accounted_copy.companies
    FOR EACH STATEMENT EXECUTE FUNCTION accounted_copy.queue_kind('c');

ALTER TABLE accounted_copy.invoice_inbox_items ENABLE ALWAYS TRIGGER queue_item;
ALTER TABLE accounted_copy.invoice_inbox_items ENABLE ALWAYS TRIGGER queue_all;
ALTER TABLE accounted_copy.companies ENABLE ALWAYS TRIGGER queue_companies;
ALTER TABLE accounted_copy.companies ENABLE ALWAYS TRIGGER queue_companies_all;
"""

BACKWARD = "DROP SCHEMA accounted_copy CASCADE;"


class Migration(migrations.Migration):
    dependencies = [
        ("reviewapp", "0023_syncstate_poll_snapshot"),
    ]

    operations = [migrations.RunSQL(FORWARD, BACKWARD)]
