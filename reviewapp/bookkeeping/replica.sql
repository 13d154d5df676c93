-- Replica of accounted's tables, for development, tests and CI only.
--
-- Written from the contract /work/shared/bookkeeping/README.md ("contract" below), with
-- names checked against accounted's supabase/migrations/*.sql ("accounted" below).
-- Applied once, as one script inside one transaction, to an EMPTY database, running as the
-- superuser `postgres`; accepted by PostgreSQL 15 and 18. It is never applied to a real
-- accounted database: there accounted's own migrations own the schema (contract, "Rules").
-- Deliberately free of percent signs, so a driver that interpolates parameters cannot
-- mangle it.

-- ---------------------------------------------------------------------------
-- Supabase scaffolding: roles, auth.users, auth.uid()
-- ---------------------------------------------------------------------------
-- gen_random_uuid() is built in since PostgreSQL 13: no pgcrypto.

-- Supabase's API roles; RLS policies below are written for `authenticated`, and
-- service_role bypasses RLS (contract: "the service role bypasses RLS").
-- Roles are cluster-wide: another database on the same server may already have created them,
-- possibly concurrently (parallel test databases), hence the check and the exception handlers.
DO $$
DECLARE
  api_role text;
BEGIN
  FOREACH api_role IN ARRAY ARRAY['anon', 'authenticated', 'service_role'] LOOP
    IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = api_role) THEN
      BEGIN
        EXECUTE 'CREATE ROLE ' || quote_ident(api_role) || ' NOLOGIN NOINHERIT'
          || CASE WHEN api_role = 'service_role' THEN ' BYPASSRLS' ELSE '' END;
      EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL;
      END;
    END IF;
  END LOOP;
END
$$;

CREATE SCHEMA auth;

-- Minimal stand-in for Supabase's auth.users (only what FKs need).
CREATE TABLE auth.users (
  id         uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  email      text,
  created_at timestamptz NOT NULL DEFAULT now()
);

-- Same body as Supabase's auth.uid(): the JWT subject of the current request.
CREATE FUNCTION auth.uid() RETURNS uuid
LANGUAGE sql STABLE
AS $$
  SELECT coalesce(
    nullif(current_setting('request.jwt.claim.sub', true), ''),
    (nullif(current_setting('request.jwt.claims', true), '')::jsonb ->> 'sub')
  )::uuid
$$;

GRANT USAGE ON SCHEMA auth TO anon, authenticated, service_role;
GRANT EXECUTE ON FUNCTION auth.uid() TO anon, authenticated, service_role;

-- ---------------------------------------------------------------------------
-- Shared trigger functions (names as in accounted)
-- ---------------------------------------------------------------------------

-- accounted: public.update_updated_at_column(), used by every *_updated_at trigger.
CREATE FUNCTION public.update_updated_at_column() RETURNS trigger
LANGUAGE plpgsql
AS $$
BEGIN
  NEW.updated_at = now();
  RETURN NEW;
END;
$$;

-- accounted: public.audit_log_immutable(), reused by processing_history's
-- processing_history_no_update / processing_history_no_delete triggers.
CREATE FUNCTION public.audit_log_immutable() RETURNS trigger
LANGUAGE plpgsql
AS $$
BEGIN
  RAISE EXCEPTION USING
    MESSAGE = TG_TABLE_NAME || ' is append-only: ' || TG_OP || ' is not allowed';
END;
$$;

-- ---------------------------------------------------------------------------
-- public.companies, public.company_members  (contract: "public.companies")
-- ---------------------------------------------------------------------------
CREATE TABLE public.companies (
  id                   uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  name                 text NOT NULL,
  org_number           text,
  -- contract gives "e.g." values; this is the union of the lists in accounted's
  -- companies_entity_type_check migrations.
  entity_type          text NOT NULL CONSTRAINT companies_entity_type_check CHECK (entity_type IN (
                         'enskild_firma', 'aktiebolag', 'handelsbolag', 'ideell_forening',
                         'ekonomisk_forening', 'bostadsrattsforening')),
  accounting_framework text NOT NULL DEFAULT 'k2' CHECK (accounting_framework IN ('k2', 'k3')),
  -- ON DELETE CASCADE: accounted's CREATE TABLE public.companies.
  created_by           uuid NOT NULL REFERENCES auth.users (id) ON DELETE CASCADE,
  team_id              uuid,
  archived_at          timestamptz,
  archived_by          uuid,
  created_at           timestamptz NOT NULL DEFAULT now(),
  updated_at           timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE public.company_members (
  id         uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  company_id uuid NOT NULL REFERENCES public.companies (id) ON DELETE CASCADE,
  user_id    uuid NOT NULL REFERENCES auth.users (id) ON DELETE CASCADE,
  role       text NOT NULL DEFAULT 'member' CHECK (role IN ('owner', 'admin', 'member', 'viewer')),
  created_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT company_members_company_id_user_id_key UNIQUE (company_id, user_id)
);

CREATE INDEX idx_company_members_user_id ON public.company_members (user_id);

-- accounted: public.user_company_ids(), used by its RLS policies (e.g. processing_history).
-- SECURITY DEFINER so the membership lookup is not itself filtered by RLS.
CREATE FUNCTION public.user_company_ids() RETURNS SETOF uuid
LANGUAGE sql STABLE SECURITY DEFINER
SET search_path = public
AS $$
  SELECT company_id FROM public.company_members WHERE user_id = auth.uid()
$$;

-- ---------------------------------------------------------------------------
-- Minimal FK targets (contract names them as FK targets only)
-- ---------------------------------------------------------------------------
CREATE TABLE public.suppliers (
  id         uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  company_id uuid NOT NULL REFERENCES public.companies (id) ON DELETE CASCADE,
  name       text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);

-- Targets the inbox item's created_* columns point at: an id, the company, a creation time.
CREATE TABLE public.supplier_invoices (id uuid PRIMARY KEY DEFAULT gen_random_uuid(), company_id uuid NOT NULL REFERENCES public.companies (id) ON DELETE CASCADE, created_at timestamptz NOT NULL DEFAULT now());
CREATE TABLE public.transactions (id uuid PRIMARY KEY DEFAULT gen_random_uuid(), company_id uuid NOT NULL REFERENCES public.companies (id) ON DELETE CASCADE, created_at timestamptz NOT NULL DEFAULT now());
CREATE TABLE public.journal_entries (id uuid PRIMARY KEY DEFAULT gen_random_uuid(), company_id uuid NOT NULL REFERENCES public.companies (id) ON DELETE CASCADE, created_at timestamptz NOT NULL DEFAULT now());

-- ---------------------------------------------------------------------------
-- public.document_attachments  (contract: "public.document_attachments")
-- ---------------------------------------------------------------------------
CREATE TABLE public.document_attachments (
  id                    uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  user_id               uuid NOT NULL REFERENCES auth.users (id),
  company_id            uuid NOT NULL REFERENCES public.companies (id),
  -- key in the private Storage bucket `documents`
  storage_path          text NOT NULL,
  file_name             text NOT NULL,
  file_size_bytes       bigint,
  mime_type             text,
  sha256_hash           text NOT NULL,
  version               integer NOT NULL DEFAULT 1,
  original_id           uuid REFERENCES public.document_attachments (id),
  superseded_by_id      uuid REFERENCES public.document_attachments (id),
  is_current_version    boolean NOT NULL DEFAULT true,
  uploaded_by           uuid,
  upload_source         text CHECK (upload_source IN (
                          'camera', 'file_upload', 'email', 'e_invoice', 'scan', 'api', 'system',
                          'whatsapp', 'mail_hunt')),
  digitization_date     timestamptz DEFAULT now(),
  journal_entry_id      uuid,
  journal_entry_line_id uuid,
  created_at            timestamptz NOT NULL DEFAULT now(),
  updated_at            timestamptz NOT NULL DEFAULT now(),
  -- accounted's document integrity migration: the version hash chain and its last check.
  prev_version_hash       text,
  last_integrity_check_at timestamptz,
  -- What invoice-inbox/lib/mirror-extraction.ts (mirrorExtractionToDocument) writes after the
  -- inbox extracted, or skipped: the parsed result (NULL unless a model answered), when, and
  -- the model or `skipped:<reason>` / `failed:no_raw_text`.
  extracted_data          jsonb,
  extracted_at            timestamptz,
  extraction_model        text
);

CREATE INDEX idx_document_attachments_company_id ON public.document_attachments (company_id);
CREATE INDEX idx_document_attachments_sha256 ON public.document_attachments (company_id, sha256_hash);

-- Write-once (contract: "triggers block deletion and metadata changes"). accounted's
-- block_document_deletion() only blocks inside the retention window; the replica blocks always.
CREATE FUNCTION public.block_document_deletion() RETURNS trigger
LANGUAGE plpgsql
AS $$
BEGIN
  RAISE EXCEPTION USING
    MESSAGE = 'document_attachments is write-once: documents cannot be deleted';
END;
$$;

CREATE TRIGGER block_document_deletion
  BEFORE DELETE ON public.document_attachments
  FOR EACH ROW EXECUTE FUNCTION public.block_document_deletion();

CREATE FUNCTION public.block_document_metadata_change() RETURNS trigger
LANGUAGE plpgsql
AS $$
BEGIN
  IF NEW.storage_path    IS DISTINCT FROM OLD.storage_path
  OR NEW.file_name       IS DISTINCT FROM OLD.file_name
  OR NEW.sha256_hash     IS DISTINCT FROM OLD.sha256_hash
  OR NEW.file_size_bytes IS DISTINCT FROM OLD.file_size_bytes
  OR NEW.mime_type       IS DISTINCT FROM OLD.mime_type THEN
    RAISE EXCEPTION USING
      MESSAGE = 'document_attachments is write-once: file metadata cannot be changed';
  END IF;
  RETURN NEW;
END;
$$;

CREATE TRIGGER block_document_metadata_change
  BEFORE UPDATE ON public.document_attachments
  FOR EACH ROW EXECUTE FUNCTION public.block_document_metadata_change();

-- ---------------------------------------------------------------------------
-- WhatsApp intake  (contract: "public.whatsapp_conversations", "public.whatsapp_messages")
-- ---------------------------------------------------------------------------
CREATE TABLE public.whatsapp_phone_links (
  id                 uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  user_id            uuid NOT NULL REFERENCES auth.users (id),
  -- the raw phone number is never stored in clear
  phone_hash         text NOT NULL,
  phone_masked       text,
  wa_profile_name    text,
  default_company_id uuid REFERENCES public.companies (id) ON DELETE SET NULL,
  created_at         timestamptz NOT NULL DEFAULT now(),
  updated_at         timestamptz NOT NULL DEFAULT now(),
  -- accounted's newer WhatsApp migrations: the number encrypted (AES-256-GCM, read by
  -- conversation.ts resolveRecipient), linking, unlinking and muting, the last company used.
  phone_enc          text,
  verified_at        timestamptz,
  revoked_at         timestamptz,
  muted_at           timestamptz,
  last_company_id    uuid,
  last_message_at    timestamptz
);

CREATE INDEX idx_whatsapp_phone_links_user_id ON public.whatsapp_phone_links (user_id);

CREATE TABLE public.whatsapp_conversations (
  id                        uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  phone_link_id             uuid NOT NULL UNIQUE REFERENCES public.whatsapp_phone_links (id),
  state                     text NOT NULL DEFAULT 'idle' CHECK (state IN (
                              'idle', 'awaiting_company', 'awaiting_representation',
                              'awaiting_context', 'awaiting_resend')),
  context                   jsonb NOT NULL DEFAULT '{}',
  company_id                uuid,
  service_window_expires_at timestamptz,
  debounce_until            timestamptz,
  last_inbound_at           timestamptz,
  last_outbound_at          timestamptz,
  pending_ack               boolean NOT NULL DEFAULT false,
  created_at                timestamptz NOT NULL DEFAULT now(),
  -- compare-and-set column for conversation writes (contract)
  updated_at                timestamptz NOT NULL DEFAULT now()
);

-- inbox_item_id's FK is added after invoice_inbox_items exists (the two tables point at each other).
CREATE TABLE public.whatsapp_messages (
  id                uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  direction         text NOT NULL CHECK (direction IN ('inbound', 'outbound')),
  wamid             text,
  sender_phone_hash text,
  phone_link_id     uuid,
  conversation_id   uuid,
  message_type      text NOT NULL,
  body_text         text,
  media_id          text,
  media_mime        text,
  media_sha256      text,
  media_filename    text,
  raw_payload       jsonb,
  processing_status text NOT NULL DEFAULT 'received' CHECK (processing_status IN (
                      'received', 'processing', 'done', 'skipped', 'error')),
  attempts          integer DEFAULT 0,
  error_message     text,
  inbox_item_id     uuid,
  delivery_status   text,
  correlation_id    uuid,
  acked_at          timestamptz,
  created_at        timestamptz NOT NULL DEFAULT now(),
  updated_at        timestamptz NOT NULL DEFAULT now()
);

-- contract: wamid "UNIQUE for inbound"
CREATE UNIQUE INDEX whatsapp_messages_inbound_wamid_key
  ON public.whatsapp_messages (wamid) WHERE direction = 'inbound';
CREATE INDEX idx_whatsapp_messages_conversation_created
  ON public.whatsapp_messages (conversation_id, created_at);
CREATE INDEX idx_whatsapp_messages_inbox_item_id
  ON public.whatsapp_messages (inbox_item_id) WHERE inbox_item_id IS NOT NULL;

-- ---------------------------------------------------------------------------
-- public.invoice_inbox_items  (contract: "public.invoice_inbox_items")
-- ---------------------------------------------------------------------------
CREATE TABLE public.invoice_inbox_items (
  id                          uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  user_id                     uuid NOT NULL REFERENCES auth.users (id) ON DELETE CASCADE,
  company_id                  uuid NOT NULL REFERENCES public.companies (id) ON DELETE CASCADE,
  status                      text NOT NULL DEFAULT 'received'
                                CHECK (status IN ('received', 'processing', 'error')),
  source                      text NOT NULL DEFAULT 'upload'
                                CHECK (source IN ('email', 'upload', 'whatsapp', 'mail_hunt', 'peppol')),
  email_from                  text,
  email_subject               text,
  email_body_text             text,
  email_received_at           timestamptz,
  resend_email_id             text,
  resend_attachment_id        text,
  document_id                 uuid REFERENCES public.document_attachments (id) ON DELETE SET NULL,
  extracted_data              jsonb,
  matched_supplier_id         uuid REFERENCES public.suppliers (id) ON DELETE SET NULL,
  created_supplier_invoice_id uuid REFERENCES public.supplier_invoices (id) ON DELETE SET NULL,
  matched_transaction_id      uuid REFERENCES public.transactions (id) ON DELETE SET NULL,
  created_journal_entry_id    uuid REFERENCES public.journal_entries (id) ON DELETE SET NULL,
  error_message               text,
  raw_email_payload           jsonb,
  correlation_id              uuid,
  extraction_skipped          boolean NOT NULL DEFAULT false,
  whatsapp_message_id         uuid REFERENCES public.whatsapp_messages (id) ON DELETE SET NULL,
  channel_context             jsonb,
  kind_hint                   text CHECK (kind_hint IN ('supplier_invoice', 'receipt')),
  created_at                  timestamptz NOT NULL DEFAULT now(),
  updated_at                  timestamptz NOT NULL DEFAULT now(),
  -- contract: present in some copies of accounted, dropped in others; this replica keeps it.
  CONSTRAINT invoice_inbox_items_journal_entry_unique UNIQUE (created_journal_entry_id)
);

-- Indexes (contract: "Indexes include"). Deliberately none on updated_at.
CREATE INDEX idx_invoice_inbox_items_company_created
  ON public.invoice_inbox_items (company_id, created_at DESC);
CREATE INDEX idx_invoice_inbox_items_company_status_created
  ON public.invoice_inbox_items (company_id, status, created_at);
CREATE INDEX idx_invoice_inbox_items_user_created
  ON public.invoice_inbox_items (user_id, created_at DESC);
CREATE UNIQUE INDEX invoice_inbox_items_whatsapp_message_id_key
  ON public.invoice_inbox_items (whatsapp_message_id) WHERE whatsapp_message_id IS NOT NULL;
CREATE UNIQUE INDEX invoice_inbox_items_company_resend_unique
  ON public.invoice_inbox_items (company_id, resend_email_id, resend_attachment_id)
  WHERE resend_email_id IS NOT NULL;
CREATE UNIQUE INDEX invoice_inbox_items_company_mail_message_unique
  ON public.invoice_inbox_items (company_id, (channel_context ->> 'mail_message_id'))
  WHERE source = 'mail_hunt';
CREATE UNIQUE INDEX invoice_inbox_items_company_peppol_document_unique
  ON public.invoice_inbox_items (company_id, (channel_context ->> 'peppol_document_id'))
  WHERE source = 'peppol';

-- contract: sets updated_at on every UPDATE.
CREATE TRIGGER invoice_inbox_items_updated_at
  BEFORE UPDATE ON public.invoice_inbox_items
  FOR EACH ROW EXECUTE FUNCTION public.update_updated_at_column();

-- The other half of the cycle (contract: whatsapp_messages.inbox_item_id).
ALTER TABLE public.whatsapp_messages
  ADD CONSTRAINT whatsapp_messages_inbox_item_id_fkey
  FOREIGN KEY (inbox_item_id) REFERENCES public.invoice_inbox_items (id) ON DELETE SET NULL;

-- ---------------------------------------------------------------------------
-- processing_event_types, processing_history  (contract: "public.processing_history";
-- accounted's processing-history migration)
-- ---------------------------------------------------------------------------
-- accounted: the table has this one column ("adding a new event type = INSERT").
CREATE TABLE public.processing_event_types (
  event_type text PRIMARY KEY
);

-- accounted's v0.2 catalogue, plus the three question events the contract names.
INSERT INTO public.processing_event_types (event_type) VALUES
  ('DocumentIngested'), ('DocumentExtractionAttempted'), ('DocumentClassified'),
  ('DocumentRejected'), ('DocumentArchived'), ('DocumentSupersededByDuplicate'),
  ('BankTransactionIngested'), ('BankTransactionEnriched'),
  ('MatchAttemptedDeterministic'), ('MatchAttemptedLlm'), ('MatchConfirmed'), ('MatchRejected'),
  ('ForslagCreated'), ('ForslagMutated'), ('VerifikationCommitted'),
  ('RättelseverifikationIssued'), ('ForslagAbandoned'),
  ('CounterpartyObserved'), ('TemplateStrengthened'), ('TemplateBroken'),
  ('PeriodCloseInitiated'), ('PeriodClosed'), ('PeriodReopened'),
  ('MigrationInitiated'), ('MigrationValidated'), ('MigrationCommitted'),
  ('TimingCeilingTriggered'), ('RubricVersionPublished'),
  ('ChannelQuestionAsked'), ('ChannelQuestionAnswered'), ('ChannelQuestionExpired'),
  -- Registered by accounted's later migrations (erp-mafia/accounted supabase/migrations/:
  -- 20260901110000_processing_event_types_backfill.sql and the one-type registrations),
  -- and lib/processing-history/append.ts's PROCESSING_EVENT_TYPES.
  ('AttachmentsTruncated'), ('BankTransactionDuplicateDismissed'), ('BankTransactionStrandedRelinked'),
  ('BankTransactionStrandedRepaired'), ('CashAccountTwinsMerged'), ('DocumentDuplicateSkipped'),
  ('DocumentExtractionOverridden'), ('DocumentExtractionRetried'), ('InboxUnderlagReconciled'),
  ('InvoiceDuplicatePaymentDismissed'), ('InvoiceJournalEntrySkipped'), ('InvoicePaymentRowBackfilled'),
  ('InvoiceRowsCompleted'), ('OAuthClientRevoked'), ('PendingOperationApproved'),
  ('PendingOperationRejected'), ('RateLimitedDropped'), ('SupplierInvoiceCompleted'),
  ('TransactionDocumentReplaced');

CREATE TABLE public.processing_history (
  event_id               uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  seq                    bigserial NOT NULL UNIQUE,
  company_id             uuid NOT NULL REFERENCES public.companies (id) ON DELETE RESTRICT,
  correlation_id         uuid NOT NULL,
  -- self FK: accounted's CREATE TABLE (the contract only says "uuid NULL").
  causation_id           uuid REFERENCES public.processing_history (event_id),
  aggregate_type         text NOT NULL CHECK (aggregate_type IN (
                           'Document', 'BankTransaction', 'MatchProposal', 'Verifikation',
                           'CounterpartyTemplate', 'Period', 'Migration', 'System',
                           'AIProposal', 'AIRequest', 'Invoice', 'SupplierInvoice')),
  aggregate_id           uuid NOT NULL,
  event_type             text NOT NULL REFERENCES public.processing_event_types (event_type),
  payload                jsonb NOT NULL DEFAULT '{}',
  payload_schema_version smallint NOT NULL DEFAULT 1,
  actor                  jsonb NOT NULL,
  rubric_version         text,
  occurred_at            timestamptz NOT NULL,
  appended_at            timestamptz NOT NULL DEFAULT now()
);

-- accounted's indexes
CREATE INDEX idx_ph_aggregate
  ON public.processing_history (company_id, aggregate_type, aggregate_id, seq);
CREATE INDEX idx_ph_company_event_type
  ON public.processing_history (company_id, event_type, seq);
CREATE INDEX idx_ph_company_occurred
  ON public.processing_history (company_id, occurred_at);

-- Append-only (contract: "Triggers reject UPDATE and DELETE"; names from accounted).
CREATE TRIGGER processing_history_no_update
  BEFORE UPDATE ON public.processing_history
  FOR EACH ROW EXECUTE FUNCTION public.audit_log_immutable();
CREATE TRIGGER processing_history_no_delete
  BEFORE DELETE ON public.processing_history
  FOR EACH ROW EXECUTE FUNCTION public.audit_log_immutable();

-- ---------------------------------------------------------------------------
-- updated_at: set by accounted's update_<table>_updated_at triggers on every UPDATE
-- (invoice_inbox_items has its own, differently named one above)
-- ---------------------------------------------------------------------------
DO $$
DECLARE
  stamped text;
BEGIN
  FOREACH stamped IN ARRAY ARRAY[
    'companies', 'suppliers', 'document_attachments',
    'whatsapp_phone_links', 'whatsapp_conversations', 'whatsapp_messages'
  ] LOOP
    EXECUTE 'CREATE TRIGGER ' || quote_ident('update_' || stamped || '_updated_at')
      || ' BEFORE UPDATE ON public.' || quote_ident(stamped)
      || ' FOR EACH ROW EXECUTE FUNCTION public.update_updated_at_column()';
  END LOOP;
END
$$;

-- ---------------------------------------------------------------------------
-- Row-level security: on for every public table (service_role bypasses it). Tables without a
-- policy below are service-role only: for whatsapp_conversations and whatsapp_messages the
-- contract says so ("RLS on with no policies (service role only)").
-- ---------------------------------------------------------------------------
DO $$
DECLARE
  secured regclass;
BEGIN
  FOR secured IN
    SELECT oid::regclass FROM pg_class WHERE relnamespace = 'public'::regnamespace AND relkind = 'r'
  LOOP
    EXECUTE 'ALTER TABLE ' || secured::text || ' ENABLE ROW LEVEL SECURITY';
  END LOOP;
END
$$;

-- Simplified versions of accounted's policies: read by membership, write by a
-- non-viewer member. (accounted also requires the user's active company; not replicated.)
CREATE POLICY company_members_select_own ON public.company_members
  FOR SELECT TO authenticated USING (user_id = auth.uid());

CREATE POLICY companies_select ON public.companies
  FOR SELECT TO authenticated USING (id IN (SELECT public.user_company_ids()));

CREATE POLICY document_attachments_select ON public.document_attachments
  FOR SELECT TO authenticated USING (company_id IN (SELECT public.user_company_ids()));

CREATE POLICY whatsapp_phone_links_select_own ON public.whatsapp_phone_links
  FOR SELECT TO authenticated USING (user_id = auth.uid());

-- accounted: "processing_event_types_select" / "processing_history_select"; no write policies.
CREATE POLICY processing_event_types_select ON public.processing_event_types
  FOR SELECT USING (true);
CREATE POLICY processing_history_select ON public.processing_history
  FOR SELECT USING (company_id IN (SELECT public.user_company_ids()));

-- contract: "select: company membership; insert/update/delete: ... a non-viewer role".
-- accounted's later policy migrations write the role check as user_can_write_company(company_id);
-- an UPDATE policy without WITH CHECK checks the new row with USING as well.
CREATE FUNCTION public.user_can_write_company(company uuid) RETURNS boolean
LANGUAGE sql STABLE SECURITY DEFINER
SET search_path = public
AS $$
  SELECT EXISTS (
    SELECT 1 FROM public.company_members m
    WHERE m.company_id = company AND m.user_id = auth.uid() AND m.role <> 'viewer')
$$;

CREATE POLICY invoice_inbox_items_select ON public.invoice_inbox_items
  FOR SELECT TO authenticated USING (company_id IN (SELECT public.user_company_ids()));
CREATE POLICY invoice_inbox_items_insert ON public.invoice_inbox_items
  FOR INSERT TO authenticated WITH CHECK (public.user_can_write_company(company_id));
CREATE POLICY invoice_inbox_items_update ON public.invoice_inbox_items
  FOR UPDATE TO authenticated USING (public.user_can_write_company(company_id));
CREATE POLICY invoice_inbox_items_delete ON public.invoice_inbox_items
  FOR DELETE TO authenticated USING (public.user_can_write_company(company_id));

-- Supabase grants table access to its API roles; RLS then filters rows.
GRANT USAGE ON SCHEMA public TO anon, authenticated, service_role;
GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO authenticated, service_role;
GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO authenticated, service_role;

-- ---------------------------------------------------------------------------
-- Realtime (contract: "The table is in the supabase_realtime publication")
-- ---------------------------------------------------------------------------
DO $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_publication WHERE pubname = 'supabase_realtime') THEN
    CREATE PUBLICATION supabase_realtime;
  END IF;
END
$$;

ALTER PUBLICATION supabase_realtime ADD TABLE public.invoice_inbox_items;
