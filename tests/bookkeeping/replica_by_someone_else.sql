-- accounted's tables "made from the contract by someone else".
--
-- Same column names, types, NOT NULLs, defaults and CHECK value lists as the contract
-- (/work/shared/bookkeeping/README.md) for every column it lists; everything else differs the
-- way a real deployment could: column order, extra columns the review app does not know,
-- constraint/index/trigger/function names, the other public variant of the journal-entry
-- uniqueness (absent here), no causation self-FK, no realtime publication, no RLS policies
-- (RLS is still on: only the service role / owner gets through), tables created in another order.
-- Tests apply it to prove the app relies on the contract only, not on replica.sql's details.
-- One transaction, empty database, PostgreSQL 15 and 18, no percent signs.

DO $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'anon') THEN
    BEGIN CREATE ROLE anon NOLOGIN; EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL; END;
  END IF;
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'authenticated') THEN
    BEGIN CREATE ROLE authenticated NOLOGIN; EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL; END;
  END IF;
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'service_role') THEN
    BEGIN CREATE ROLE service_role NOLOGIN BYPASSRLS; EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL; END;
  END IF;
END
$$;

CREATE SCHEMA auth;

CREATE TABLE auth.users (
  created_at timestamptz NOT NULL DEFAULT now(),
  email      text,
  id         uuid NOT NULL DEFAULT gen_random_uuid(),
  phone      text,
  CONSTRAINT auth_users_pk PRIMARY KEY (id)
);

CREATE FUNCTION auth.uid() RETURNS uuid LANGUAGE sql STABLE AS $$
  SELECT nullif(current_setting('request.jwt.claim.sub', true), '')::uuid
$$;

-- Another name for the shared updated_at function.
CREATE FUNCTION public.handle_updated_at() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.updated_at := clock_timestamp();
  RETURN NEW;
END
$$;

-- companies (contract: "public.companies"), extra columns logo_url and country.
CREATE TABLE public.companies (
  created_at           timestamptz NOT NULL DEFAULT now(),
  name                 text NOT NULL,
  logo_url             text,
  id                   uuid NOT NULL DEFAULT gen_random_uuid(),
  entity_type          text NOT NULL,
  country              text NOT NULL DEFAULT 'SE',
  org_number           text,
  accounting_framework text NOT NULL DEFAULT 'k2',
  archived_by          uuid,
  archived_at          timestamptz,
  team_id              uuid,
  created_by           uuid NOT NULL,
  updated_at           timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT co_pk PRIMARY KEY (id),
  CONSTRAINT co_entity_type_ck CHECK (entity_type = ANY (ARRAY[
    'aktiebolag', 'enskild_firma', 'ideell_forening', 'handelsbolag', 'ekonomisk_forening'])),
  CONSTRAINT co_framework_ck CHECK (accounting_framework = ANY (ARRAY['k3', 'k2'])),
  CONSTRAINT co_created_by_fk FOREIGN KEY (created_by) REFERENCES auth.users (id)
);
CREATE TRIGGER trg_companies_touch BEFORE UPDATE ON public.companies
  FOR EACH ROW EXECUTE FUNCTION public.handle_updated_at();

CREATE TABLE public.company_members (
  role       text NOT NULL CONSTRAINT cm_role_ck CHECK (role = ANY (ARRAY['viewer', 'member', 'admin', 'owner'])),
  user_id    uuid NOT NULL CONSTRAINT cm_user_fk REFERENCES auth.users (id) ON DELETE CASCADE,
  company_id uuid NOT NULL CONSTRAINT cm_company_fk REFERENCES public.companies (id) ON DELETE CASCADE,
  invited_by uuid,
  id         uuid NOT NULL DEFAULT gen_random_uuid() CONSTRAINT cm_pk PRIMARY KEY,
  joined_at  timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT cm_one_membership UNIQUE (user_id, company_id)
);

CREATE TABLE public.journal_entries (
  company_id uuid NOT NULL REFERENCES public.companies (id),
  id         uuid NOT NULL DEFAULT gen_random_uuid() PRIMARY KEY,
  voucher_no integer,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE public.transactions (
  amount     numeric,
  id         uuid NOT NULL DEFAULT gen_random_uuid() PRIMARY KEY,
  company_id uuid NOT NULL REFERENCES public.companies (id),
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE public.supplier_invoices (
  id         uuid NOT NULL DEFAULT gen_random_uuid() PRIMARY KEY,
  created_at timestamptz NOT NULL DEFAULT now(),
  company_id uuid NOT NULL REFERENCES public.companies (id)
);
CREATE TABLE public.suppliers (
  name       text NOT NULL,
  id         uuid NOT NULL DEFAULT gen_random_uuid() PRIMARY KEY,
  company_id uuid NOT NULL REFERENCES public.companies (id),
  org_number text,
  updated_at timestamptz NOT NULL DEFAULT now(),
  created_at timestamptz NOT NULL DEFAULT now()
);

-- document_attachments (contract), one combined write-once guard, extra thumbnail_path.
CREATE TABLE public.document_attachments (
  company_id            uuid NOT NULL,
  id                    uuid NOT NULL DEFAULT gen_random_uuid(),
  file_name             text NOT NULL,
  storage_path          text NOT NULL,
  sha256_hash           text NOT NULL,
  mime_type             text,
  file_size_bytes       bigint,
  thumbnail_path        text,
  user_id               uuid NOT NULL,
  is_current_version    boolean NOT NULL DEFAULT true,
  version               integer NOT NULL DEFAULT 1,
  superseded_by_id      uuid,
  original_id           uuid,
  upload_source         text,
  uploaded_by           uuid,
  journal_entry_line_id uuid,
  journal_entry_id      uuid,
  digitization_date     timestamptz DEFAULT now(),
  last_integrity_check_at timestamptz,
  updated_at            timestamptz NOT NULL DEFAULT now(),
  created_at            timestamptz NOT NULL DEFAULT now(),
  prev_version_hash     text,
  extraction_model      text,
  extracted_at          timestamptz,
  extracted_data        jsonb,
  CONSTRAINT docs_pk PRIMARY KEY (id),
  CONSTRAINT docs_company_fk FOREIGN KEY (company_id) REFERENCES public.companies (id),
  CONSTRAINT docs_user_fk FOREIGN KEY (user_id) REFERENCES auth.users (id),
  CONSTRAINT docs_original_fk FOREIGN KEY (original_id) REFERENCES public.document_attachments (id),
  CONSTRAINT docs_superseded_fk FOREIGN KEY (superseded_by_id) REFERENCES public.document_attachments (id),
  CONSTRAINT docs_upload_source_ck CHECK (upload_source = ANY (ARRAY[
    'whatsapp', 'mail_hunt', 'camera', 'file_upload', 'email', 'e_invoice', 'scan', 'api', 'system']))
);
CREATE INDEX docs_by_company_hash ON public.document_attachments (sha256_hash, company_id);

CREATE FUNCTION public.docs_write_once_guard() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    RAISE EXCEPTION 'documents are kept: delete refused';
  END IF;
  IF (NEW.storage_path, NEW.file_name, NEW.sha256_hash, NEW.file_size_bytes, NEW.mime_type)
     IS DISTINCT FROM
     (OLD.storage_path, OLD.file_name, OLD.sha256_hash, OLD.file_size_bytes, OLD.mime_type) THEN
    RAISE EXCEPTION 'documents are kept: file metadata is frozen';
  END IF;
  RETURN NEW;
END
$$;
CREATE TRIGGER docs_guard BEFORE UPDATE OR DELETE ON public.document_attachments
  FOR EACH ROW EXECUTE FUNCTION public.docs_write_once_guard();
CREATE TRIGGER docs_touch BEFORE UPDATE ON public.document_attachments
  FOR EACH ROW EXECUTE FUNCTION public.handle_updated_at();

-- WhatsApp (contract). Phone links and conversations first; the inbox items come before the
-- messages here, so the cycle is broken on the other side than in replica.sql.
CREATE TABLE public.whatsapp_phone_links (
  phone_hash         text NOT NULL,
  last_message_at    timestamptz,
  id                 uuid NOT NULL DEFAULT gen_random_uuid() PRIMARY KEY,
  verified_at        timestamptz,
  muted_at           timestamptz,
  wa_profile_name    text,
  phone_enc          text,
  revoked_at         timestamptz,
  last_company_id    uuid REFERENCES public.companies (id) ON DELETE SET NULL,
  phone_masked       text,
  user_id            uuid NOT NULL REFERENCES auth.users (id) ON DELETE CASCADE,
  default_company_id uuid REFERENCES public.companies (id) ON DELETE SET NULL,
  updated_at         timestamptz NOT NULL DEFAULT now(),
  created_at         timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX wa_links_phone_hash_uq ON public.whatsapp_phone_links (phone_hash);
CREATE TRIGGER wa_links_touch BEFORE UPDATE ON public.whatsapp_phone_links
  FOR EACH ROW EXECUTE FUNCTION public.handle_updated_at();

CREATE TABLE public.whatsapp_conversations (
  updated_at                timestamptz NOT NULL DEFAULT now(),
  context                   jsonb NOT NULL DEFAULT '{}'::jsonb,
  state                     text NOT NULL DEFAULT 'idle',
  phone_link_id             uuid NOT NULL,
  id                        uuid NOT NULL DEFAULT gen_random_uuid(),
  pending_ack               boolean NOT NULL DEFAULT false,
  company_id                uuid,
  last_outbound_at          timestamptz,
  last_inbound_at           timestamptz,
  debounce_until            timestamptz,
  service_window_expires_at timestamptz,
  locale                    text,
  created_at                timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT wa_conv_pk PRIMARY KEY (id),
  CONSTRAINT wa_conv_one_per_link UNIQUE (phone_link_id),
  CONSTRAINT wa_conv_link_fk FOREIGN KEY (phone_link_id) REFERENCES public.whatsapp_phone_links (id) ON DELETE CASCADE,
  CONSTRAINT wa_conv_company_fk FOREIGN KEY (company_id) REFERENCES public.companies (id) ON DELETE SET NULL,
  CONSTRAINT wa_conv_state_ck CHECK (state = ANY (ARRAY[
    'awaiting_resend', 'awaiting_context', 'awaiting_representation', 'awaiting_company', 'idle']))
);
CREATE TRIGGER wa_conv_touch BEFORE UPDATE ON public.whatsapp_conversations
  FOR EACH ROW EXECUTE FUNCTION public.handle_updated_at();

-- invoice_inbox_items (contract), extra ai_confidence, notes, priority; no journal-entry UNIQUE.
CREATE TABLE public.invoice_inbox_items (
  company_id                  uuid NOT NULL,
  created_at                  timestamptz NOT NULL DEFAULT now(),
  id                          uuid NOT NULL DEFAULT gen_random_uuid(),
  source                      text NOT NULL DEFAULT 'upload',
  status                      text NOT NULL DEFAULT 'received',
  ai_confidence               numeric,
  channel_context             jsonb,
  kind_hint                   text,
  whatsapp_message_id         uuid,
  document_id                 uuid,
  extracted_data              jsonb,
  extraction_skipped          boolean NOT NULL DEFAULT false,
  notes                       text,
  priority                    smallint NOT NULL DEFAULT 0,
  correlation_id              uuid,
  error_message               text,
  created_journal_entry_id    uuid,
  created_supplier_invoice_id uuid,
  matched_transaction_id      uuid,
  matched_supplier_id         uuid,
  resend_attachment_id        text,
  resend_email_id             text,
  raw_email_payload           jsonb,
  email_received_at           timestamptz,
  email_body_text             text,
  email_subject               text,
  email_from                  text,
  user_id                     uuid NOT NULL,
  updated_at                  timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT inbox_pk PRIMARY KEY (id),
  CONSTRAINT inbox_status_ck CHECK (status = ANY (ARRAY['error', 'processing', 'received'])),
  CONSTRAINT inbox_source_ck CHECK (source = ANY (ARRAY['peppol', 'mail_hunt', 'whatsapp', 'upload', 'email'])),
  CONSTRAINT inbox_kind_hint_ck CHECK (kind_hint = ANY (ARRAY['receipt', 'supplier_invoice'])),
  CONSTRAINT inbox_user_fk FOREIGN KEY (user_id) REFERENCES auth.users (id) ON DELETE CASCADE,
  CONSTRAINT inbox_company_fk FOREIGN KEY (company_id) REFERENCES public.companies (id) ON DELETE CASCADE,
  CONSTRAINT inbox_document_fk FOREIGN KEY (document_id) REFERENCES public.document_attachments (id) ON DELETE SET NULL,
  CONSTRAINT inbox_supplier_fk FOREIGN KEY (matched_supplier_id) REFERENCES public.suppliers (id) ON DELETE SET NULL,
  CONSTRAINT inbox_supplier_invoice_fk FOREIGN KEY (created_supplier_invoice_id) REFERENCES public.supplier_invoices (id) ON DELETE SET NULL,
  CONSTRAINT inbox_transaction_fk FOREIGN KEY (matched_transaction_id) REFERENCES public.transactions (id) ON DELETE SET NULL,
  CONSTRAINT inbox_journal_entry_fk FOREIGN KEY (created_journal_entry_id) REFERENCES public.journal_entries (id) ON DELETE SET NULL
);
CREATE INDEX inbox_company_recent ON public.invoice_inbox_items (company_id, created_at DESC);
CREATE INDEX inbox_company_by_status ON public.invoice_inbox_items (company_id, status, created_at);
CREATE INDEX inbox_user_recent ON public.invoice_inbox_items (user_id, created_at);
CREATE INDEX inbox_correlation ON public.invoice_inbox_items (correlation_id);
CREATE UNIQUE INDEX inbox_wa_msg_uq ON public.invoice_inbox_items (whatsapp_message_id)
  WHERE whatsapp_message_id IS NOT NULL;
CREATE UNIQUE INDEX inbox_resend_uq ON public.invoice_inbox_items (company_id, resend_email_id, resend_attachment_id)
  WHERE resend_email_id IS NOT NULL;
CREATE UNIQUE INDEX inbox_mail_hunt_uq ON public.invoice_inbox_items (company_id, (channel_context ->> 'mail_message_id'))
  WHERE source = 'mail_hunt';
CREATE UNIQUE INDEX inbox_peppol_uq ON public.invoice_inbox_items (company_id, (channel_context ->> 'peppol_document_id'))
  WHERE source = 'peppol';
-- Trigger name is the contract's; the function is not replica.sql's.
CREATE TRIGGER invoice_inbox_items_updated_at BEFORE UPDATE ON public.invoice_inbox_items
  FOR EACH ROW EXECUTE FUNCTION public.handle_updated_at();

CREATE TABLE public.whatsapp_messages (
  created_at        timestamptz NOT NULL DEFAULT now(),
  id                uuid NOT NULL DEFAULT gen_random_uuid() PRIMARY KEY,
  conversation_id   uuid REFERENCES public.whatsapp_conversations (id) ON DELETE SET NULL,
  phone_link_id     uuid REFERENCES public.whatsapp_phone_links (id) ON DELETE SET NULL,
  inbox_item_id     uuid CONSTRAINT wa_msg_item_fk REFERENCES public.invoice_inbox_items (id) ON DELETE SET NULL,
  direction         text NOT NULL CONSTRAINT wa_msg_direction_ck CHECK (direction = ANY (ARRAY['outbound', 'inbound'])),
  message_type      text NOT NULL,
  wamid             text,
  template_name     text,
  body_text         text,
  media_filename    text,
  media_sha256      text,
  media_mime        text,
  media_id          text,
  raw_payload       jsonb,
  sender_phone_hash text,
  attempts          integer,
  processing_status text NOT NULL DEFAULT 'received' CONSTRAINT wa_msg_processing_ck
                      CHECK (processing_status = ANY (ARRAY['error', 'skipped', 'done', 'processing', 'received'])),
  delivery_status   text,
  error_message     text,
  acked_at          timestamptz,
  correlation_id    uuid,
  updated_at        timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX wa_msg_wamid_in_uq ON public.whatsapp_messages (wamid)
  WHERE direction = 'inbound' AND wamid IS NOT NULL;
CREATE TRIGGER wa_msg_touch BEFORE UPDATE ON public.whatsapp_messages
  FOR EACH ROW EXECUTE FUNCTION public.handle_updated_at();

ALTER TABLE public.invoice_inbox_items
  ADD CONSTRAINT inbox_wa_msg_fk FOREIGN KEY (whatsapp_message_id)
  REFERENCES public.whatsapp_messages (id) ON DELETE SET NULL;

-- processing history (contract), extra description column on the types; no causation FK.
CREATE TABLE public.processing_event_types (
  description text,
  event_type  text NOT NULL CONSTRAINT pet_pk PRIMARY KEY
);
INSERT INTO public.processing_event_types (event_type, description) VALUES
  ('ChannelQuestionExpired', 'question moved to the app after 48 h'),
  ('ChannelQuestionAnswered', 'answer received in the chat'),
  ('ChannelQuestionAsked', 'question sent in the chat'),
  ('DocumentIngested', NULL),
  ('VerifikationCommitted', NULL),
  ('TransactionDocumentReplaced', 'underlag swapped on a transaction'),
  ('SupplierInvoiceCompleted', NULL),
  ('RateLimitedDropped', NULL),
  ('PendingOperationRejected', NULL),
  ('PendingOperationApproved', 'MCP agent approval'),
  ('OAuthClientRevoked', NULL),
  ('InvoiceRowsCompleted', NULL),
  ('InvoicePaymentRowBackfilled', NULL),
  ('InvoiceJournalEntrySkipped', NULL),
  ('InvoiceDuplicatePaymentDismissed', NULL),
  ('InboxUnderlagReconciled', 'inbox repair trail'),
  ('DocumentExtractionRetried', NULL),
  ('DocumentExtractionOverridden', NULL),
  ('DocumentExtractionAttempted', NULL),
  ('DocumentDuplicateSkipped', NULL),
  ('CashAccountTwinsMerged', NULL),
  ('BankTransactionStrandedRepaired', NULL),
  ('BankTransactionStrandedRelinked', NULL),
  ('BankTransactionDuplicateDismissed', NULL),
  ('AttachmentsTruncated', NULL),
  ('DocumentClassified', NULL),
  ('DocumentRejected', NULL),
  ('DocumentArchived', NULL),
  ('DocumentSupersededByDuplicate', NULL),
  ('BankTransactionIngested', NULL),
  ('BankTransactionEnriched', NULL),
  ('MatchAttemptedDeterministic', NULL),
  ('MatchAttemptedLlm', NULL),
  ('MatchConfirmed', NULL),
  ('MatchRejected', NULL),
  ('ForslagCreated', NULL),
  ('ForslagMutated', NULL),
  ('RättelseverifikationIssued', NULL),
  ('ForslagAbandoned', NULL),
  ('CounterpartyObserved', NULL),
  ('TemplateStrengthened', NULL),
  ('TemplateBroken', NULL),
  ('PeriodCloseInitiated', NULL),
  ('PeriodClosed', NULL),
  ('PeriodReopened', NULL),
  ('MigrationInitiated', NULL),
  ('MigrationValidated', NULL),
  ('MigrationCommitted', NULL),
  ('TimingCeilingTriggered', NULL),
  ('RubricVersionPublished', NULL);

CREATE TABLE public.processing_history (
  seq                    bigserial NOT NULL,
  appended_at            timestamptz NOT NULL DEFAULT now(),
  occurred_at            timestamptz NOT NULL,
  event_type             text NOT NULL,
  aggregate_id           uuid NOT NULL,
  aggregate_type         text NOT NULL,
  company_id             uuid NOT NULL,
  event_id               uuid NOT NULL DEFAULT gen_random_uuid(),
  actor                  jsonb NOT NULL,
  payload                jsonb NOT NULL DEFAULT '{}'::jsonb,
  payload_schema_version smallint NOT NULL DEFAULT 1,
  correlation_id         uuid NOT NULL,
  causation_id           uuid,
  rubric_version         text,
  CONSTRAINT ph_pk PRIMARY KEY (event_id),
  CONSTRAINT ph_seq_uq UNIQUE (seq),
  CONSTRAINT ph_company_fk FOREIGN KEY (company_id) REFERENCES public.companies (id) ON DELETE RESTRICT,
  CONSTRAINT ph_event_type_fk FOREIGN KEY (event_type) REFERENCES public.processing_event_types (event_type),
  CONSTRAINT ph_aggregate_type_ck CHECK (aggregate_type = ANY (ARRAY[
    'SupplierInvoice', 'Invoice', 'AIRequest', 'AIProposal', 'System', 'Migration', 'Period', 'CounterpartyTemplate',
    'Verifikation', 'MatchProposal', 'BankTransaction', 'Document']))
);
CREATE INDEX ph_by_aggregate ON public.processing_history (aggregate_id, seq);
CREATE INDEX ph_by_correlation ON public.processing_history (correlation_id);

CREATE FUNCTION public.reject_history_rewrite() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION USING MESSAGE = 'history rows are permanent (' || TG_OP || ')';
END
$$;
CREATE TRIGGER ph_append_only BEFORE UPDATE OR DELETE ON public.processing_history
  FOR EACH ROW EXECUTE FUNCTION public.reject_history_rewrite();

-- RLS on everywhere, no policies at all.
ALTER TABLE public.companies              ENABLE ROW LEVEL SECURITY;
ALTER TABLE public.company_members        ENABLE ROW LEVEL SECURITY;
ALTER TABLE public.journal_entries        ENABLE ROW LEVEL SECURITY;
ALTER TABLE public.transactions           ENABLE ROW LEVEL SECURITY;
ALTER TABLE public.supplier_invoices      ENABLE ROW LEVEL SECURITY;
ALTER TABLE public.suppliers              ENABLE ROW LEVEL SECURITY;
ALTER TABLE public.document_attachments   ENABLE ROW LEVEL SECURITY;
ALTER TABLE public.whatsapp_phone_links   ENABLE ROW LEVEL SECURITY;
ALTER TABLE public.whatsapp_conversations ENABLE ROW LEVEL SECURITY;
ALTER TABLE public.invoice_inbox_items    ENABLE ROW LEVEL SECURITY;
ALTER TABLE public.whatsapp_messages      ENABLE ROW LEVEL SECURITY;
ALTER TABLE public.processing_event_types ENABLE ROW LEVEL SECURITY;
ALTER TABLE public.processing_history     ENABLE ROW LEVEL SECURITY;
