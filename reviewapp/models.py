"""The review app's own data, in its own database (``default``).

accounted's tables (the inbox items, companies, documents, the chat) are in
``reviewapp.bookkeeping.models``, on the ``bookkeeping`` database. Here:

- ``IndexedItem``: the list's read model, one row per inbox item with what
  ``clarifications.analyse`` says about it, kept by ``manage.py sync_index``
  (``reviewapp/readmodel/sync.py``) so the list filters, counts, sorts and searches
  without touching accounted's table;
- ``SyncState``: how far that sync has read;
- ``ClarificationEvent``: the app's own answer log, before and after;
- ``AccountLink``: a review user's own account in accounted, the pseudonymous
  actor of what the app writes there for them;
- ``ApiToken`` and ``GoldenCase``.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Collection
from datetime import datetime
from typing import Any, Final

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import DatabaseError, connections, models
from django.db.models import Exists, OuterRef, Q
from django.db.models.functions import Now
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from reviewapp.bookkeeping.routers import BOOKKEEPING_DB
from reviewapp.core import access, states

# Eight or more hex digits (dashes allowed) may be the start of an item id:
# the list shows the first eight. Matched as a range on the primary key, so
# it is an index lookup, not a LIKE over a cast.
_ID_PREFIX: Final = re.compile(r"^[0-9a-f-]{8,36}$")


def _id_prefix_range(text: str) -> tuple[uuid.UUID, uuid.UUID] | None:
    if not _ID_PREFIX.match(text):
        return None
    digits = text.replace("-", "")
    if not 8 <= len(digits) <= 32:
        return None
    return uuid.UUID(digits.ljust(32, "0")), uuid.UUID(digits.ljust(32, "f"))


class IndexedItemQuerySet(models.QuerySet["IndexedItem"]):
    """The read model's rules, in one place: the list, the queue, the export and the admin filter through these.

    The orders (the bookkeeper's queue among them) are ``reviewapp.inbox.sorting.SORTS``:
    the list's previous/next walks them by keyset, so each is written once, there.
    """

    def in_states(self, *keys: str) -> IndexedItemQuerySet:
        """Items in any of these states (the list's ticked states combine with OR); no keys: every item.

        ``needs_answer`` leaves out items on hold, which ``on_hold`` lists
        (``reviewapp.inbox.holds``): the read model's column says the question
        waits in the app, the hold table whether someone parked it.
        """
        condition = Q()
        for key in keys:
            if key == states.ON_HOLD:
                condition |= Q(Q(state_needs_answer=True), active_holds())
            elif key == states.NEEDS_ANSWER:
                condition |= Q(Q(state_needs_answer=True), ~active_holds())
            else:
                condition |= Q(**{states.STATE_FIELDS[key]: True})
        return self.filter(condition)

    def needs_answer(self) -> IndexedItemQuerySet:
        """Items whose question waits for an answer in the app and is not on hold: the bookkeeper's queue."""
        return self.in_states(states.NEEDS_ANSWER)

    def on_hold(self) -> IndexedItemQuerySet:
        """Items whose question waits in the app but someone put it on hold until a later date."""
        return self.in_states(states.ON_HOLD)

    def for_companies(self, ids: Collection[uuid.UUID] | None) -> IndexedItemQuerySet:
        """Items of these companies; None: of every company."""
        return self if ids is None else self.filter(company_id__in=list(ids))

    def visible_to(self, user: Any) -> IndexedItemQuerySet:
        """The items ``user`` may see (``reviewapp.core.access``)."""
        return self.for_companies(access.company_ids(user))

    def search(self, text: str, also_ids: Collection[uuid.UUID] = ()) -> IndexedItemQuerySet:
        """Items with every word of ``text`` in ``search_text``, or whose id starts with ``text``.

        ``search_text`` is stored lower-cased (``states.search_text_of``), so a
        plain case-sensitive ``LIKE '%word%'`` on the lower-cased word is exact
        and can use the trigram index. Blank text filters nothing.
        """
        condition = Q()
        for word in text.lower().split():
            condition &= Q(search_text__contains=word)
        id_range = _id_prefix_range(text.lower())
        if id_range is not None:
            condition |= Q(id__gte=id_range[0], id__lte=id_range[1])
        if also_ids:
            # Items found elsewhere (their colleagues' notes, reviewapp.items.notes): a short id list beside the index.
            condition |= Q(id__in=list(also_ids))
        return self.filter(condition)


def active_holds() -> Exists:
    """An unreleased hold on the row's item that has not run out (Now(): the database's clock)."""
    return Exists(Hold.objects.filter(item_id=OuterRef("pk"), released_at__isnull=True, until_at__gt=Now()))


class IndexedItem(models.Model):
    """One inbox item as the list needs it: derived from the live row by ``reviewapp.readmodel.sync``.

    Never edited by hand: every column is recomputed from accounted's row
    (``channel_context``, ``extracted_data``, the booked columns) whenever its
    ``updated_at`` moves. The item page and every write read the live row.
    """

    id = models.UUIDField(primary_key=True)
    company_id = models.UUIDField()
    company_name = models.TextField(default="", blank=True)
    created_at = models.DateTimeField()
    # The source row's updated_at when it was indexed: a row whose
    # updated_at has not moved since is not recomputed.
    source_updated_at = models.DateTimeField()
    supplier_name = models.TextField(null=True, blank=True)
    total = models.JSONField(null=True, blank=True)
    currency = models.TextField(default="SEK")
    document_id = models.UUIDField(null=True, blank=True)
    correlation_id = models.UUIDField(null=True, blank=True)
    whatsapp_message_id = models.UUIDField(null=True, blank=True)
    # accounted has not read the photo (its extraction was skipped): the list's "not read by
    # accounted" filter, and the row's notice to press "Tolka om" in accounted (reviewapp.answers.unread).
    extraction_skipped = models.BooleanField(default=False)

    state_needs_answer = models.BooleanField(default=False)
    state_waiting_in_chat = models.BooleanField(default=False)
    state_denied = models.BooleanField(default=False)
    state_purpose_missing = models.BooleanField(default=False)
    state_answered = models.BooleanField(default=False)
    state_no_answers = models.BooleanField(default=True)
    state_malformed = models.BooleanField(default=False)
    state_booked = models.BooleanField(default=False)
    state_answer_replaced = models.BooleanField(default=False)
    open_question_type = models.CharField(max_length=20, null=True, blank=True)
    open_question_asked_at = models.DateTimeField(null=True, blank=True)
    # The type of the question the item's pending_question records as
    # answered: the list's question-type filter matches it or the open one
    # ("answered representation items"; states.answered_question_type_of).
    answered_question_type = models.CharField(max_length=20, null=True, blank=True)
    # When a question needing an answer moved from the chat to the app: the
    # bookkeeper's queue is oldest first by this (reviewapp.readmodel.sync._moved_to_app_at).
    moved_to_app_at = models.DateTimeField(null=True, blank=True)
    # Lower-cased supplier, participant names, purpose, notes and raw answers for search.
    search_text = models.TextField(default="", blank=True)
    # The same texts field by field, in their own case: [[key, text], ...]
    # (states.search_fields_of). Read only for a searched page's rows, to say
    # why each matched (reviewapp.inbox.matches).
    search_fields = models.JSONField(default=list, blank=True)
    # clarifications' summary as JSON (the list API's "summary"), and why the
    # row is malformed, if it is: the problems analyse found, or why its JSON
    # could not be read at all.
    summary = models.JSONField(null=True, blank=True)
    malformed_reason = models.TextField(default="", blank=True)
    indexed_at = models.DateTimeField(auto_now=True)

    objects = IndexedItemQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name = _("inbox item")
        verbose_name_plural = _("inbox items")
        # The list's read paths at a million rows (EXPLAIN plans: bench/README-list.md).
        # Every list order ends in id, so each index does too. One partial
        # index per state serves both "newest first within a state" (scanned
        # backwards) and that state's count. The trigram index for search and
        # the facet tally's triggers are in migration 0002.
        indexes = [
            models.Index(fields=["created_at", "id"], name="index_received_idx"),
            models.Index(fields=["company_id", "created_at", "id"], name="index_company_received_idx"),
            models.Index(fields=["open_question_asked_at", "created_at", "id"], name="index_question_age_idx"),
            # The queue in its order; with the company beside each entry, the overview's median for a
            # bookkeeper reads it in order too (an index-only scan, no sort of every waiting row).
            models.Index(
                fields=["moved_to_app_at", "id"],
                include=["company_id"],
                name="index_queue_idx",
                condition=models.Q(state_needs_answer=True),
            ),
            # The overview's queue for a bookkeeper: their companies' waits, in ranges (reviewapp.overview.numbers).
            models.Index(
                fields=["company_id", "moved_to_app_at"],
                name="index_company_queue_idx",
                condition=models.Q(state_needs_answer=True),
            ),
            models.Index(fields=["source_updated_at"], name="index_source_updated_idx"),
            models.Index(fields=["document_id"], name="index_document_idx"),
            models.Index(fields=["correlation_id"], name="index_correlation_idx"),
            models.Index(fields=["whatsapp_message_id"], name="index_message_idx"),
            # The "not read by accounted" filter: a few rows among many, newest first.
            models.Index(
                fields=["created_at", "id"],
                name="index_unread_idx",
                condition=models.Q(extraction_skipped=True),
            ),
            *(
                models.Index(
                    fields=["created_at", "id"],
                    name=f"index_{key}_idx",
                    condition=models.Q(**{f"state_{key}": True}),
                )
                for key in states.STATE_KEYS
            ),
        ]
        permissions = [
            ("answer_question", "Can answer questions moved to the app"),
            ("view_raw_context", "Can see the raw channel_context"),
            ("use_preview", "Can use the prompt preview"),
            ("view_team_overview", "Can see every person's answers on the overview"),
        ]

    def __str__(self) -> str:
        return f"{self.supplier_name or _('Unknown supplier')} ({self.id})"

    @property
    def state_keys(self) -> tuple[str, ...]:
        return tuple(key for key in states.STATE_KEYS if getattr(self, states.STATE_FIELDS[key]))


class SyncState(models.Model):
    """How far ``sync_index`` has read accounted's table (one row, id 1)."""

    id = models.PositiveSmallIntegerField(primary_key=True, default=1)
    # The newest source updated_at seen; the next poll reads from a little before it.
    watermark = models.DateTimeField(null=True, blank=True)
    # accounted's database's snapshot (pg_current_snapshot(), as text) that the
    # last poll read in: the next one skips the rows it already saw there, so a
    # bulk change inside the overlap is read once (reviewapp.readmodel.sync.poll).
    poll_snapshot = models.TextField(null=True, blank=True)
    last_poll_at = models.DateTimeField(null=True, blank=True)
    last_reconcile_at = models.DateTimeField(null=True, blank=True)
    # reviewapp.readmodel.sync.RULES_VERSION when the read model was last built in full:
    # a release that changes how a row is derived re-indexes every row once.
    rules_version = models.PositiveIntegerField(default=0)
    # accounted's companies as the last pass read them, by name: [[id, name,
    # archived], ...]. The list's company menu reads them here, so a list page
    # needs nothing from accounted's database (reviewapp.readmodel.sync.synced).
    companies = models.JSONField(default=list, blank=True)
    # The highest processing_history seq the overview's copy has read
    # (reviewapp.overview.events): each poll reads on from a little before it.
    history_seq = models.BigIntegerField(default=0)

    class Meta:
        verbose_name = _("sync state")

    def __str__(self) -> str:
        return f"watermark {self.watermark}"


class ClarificationEvent(models.Model):
    """The app's own log of the answers it wrote, with before and after. Append-only.

    accounted's ``processing_history`` gets a ``ChannelQuestionAnswered`` for
    each answer too; this log keeps what that one must not (the whole JSON
    before and after, the review user) and lets the app notice when another
    program later replaces an answer it wrote.
    """

    ASKED = "ChannelQuestionAsked"
    ANSWERED = "ChannelQuestionAnswered"
    EXPIRED = "ChannelQuestionExpired"
    # The app's own text taken out of context_answer by ``manage.py fix_context_answers``
    # (reviewapp.answers.context_fix): the row before and after, like an answer.
    FIXED = "ContextAnswerFixed"

    class Channel(models.TextChoices):
        WHATSAPP = "whatsapp", "WhatsApp"
        APP = "app", _("App")

    # accounted's item (another database: no foreign key).
    item_id = models.UUIDField(db_index=True)
    event_type = models.CharField(max_length=60)
    question_type = models.CharField(max_length=20, blank=True)
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    actor_label = models.CharField(max_length=200, blank=True)
    channel = models.CharField(max_length=20, choices=Channel.choices)
    payload = models.JSONField(default=dict, blank=True)
    occurred_at = models.DateTimeField(db_index=True)

    class Meta:
        ordering = ["occurred_at", "id"]
        indexes = [
            models.Index(fields=["item_id", "occurred_at"]),
            # The item pages look a resend link up from the newer item's side too
            # (reviewapp.items.links): without this, a scan of every answer ever logged.
            models.Index(
                models.F("payload__resend__new_item_id"),
                name="clarification_resend_new_item",
                condition=models.Q(question_type="resend"),
            ),
        ]
        verbose_name = _("clarification event")
        verbose_name_plural = _("clarification events")

    def __str__(self) -> str:
        return f"{self.event_type} {self.question_type} @ {self.occurred_at:%Y-%m-%d %H:%M}"

    def save(self, *args: Any, **kwargs: Any) -> None:
        # The audit trail is append-only: an existing event is never rewritten.
        if not self._state.adding:
            raise ValueError("ClarificationEvent is append-only")
        super().save(*args, **kwargs)


class OverviewEvent(models.Model):
    """One question event the overview counts: a move to the app, the chat's answer, or an answer written in the app.

    Copied by every sync poll (``reviewapp.overview.events``): the moves and
    the chat's answers from accounted's ``processing_history``, the app's
    answers from its own log (``ClarificationEvent``). So the overview counts
    days, people and denials in this one table through an index scoped by
    company, instead of scanning accounted's log (632 ms at 1 M items) or
    looking each logged answer's company up in the read model (290 ms for a
    bookkeeper of 10 companies; bench/README.md).
    """

    MOVED = "moved"
    CHAT = "chat"
    APP = "app"

    # A copied app answer's id is derived from its log row's (events.answer_event_id).
    event_id = models.UUIDField(primary_key=True)
    # processing_history's seq, or the app log's id for an app answer.
    seq = models.BigIntegerField()
    # Null only for an app answer whose item had left the read model when it was
    # copied: counted for whoever sees every company, as before, and for no bookkeeper.
    company_id = models.UUIDField(null=True, blank=True)
    item_id = models.UUIDField()
    kind = models.CharField(max_length=10)
    question_type = models.CharField(max_length=20, blank=True)
    # A chat answer to a representation question that left the item with
    # "denied": true, as the row was when the event was copied (seconds
    # later); an app answer that was a denial (the log's answer.denied).
    denied = models.BooleanField(default=False)
    occurred_at = models.DateTimeField()
    # The Europe/Stockholm day of occurred_at: the overview's group.
    day = models.DateField()
    # Who answered in the app; their name as logged stays for a deleted user.
    person = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    person_label = models.CharField(max_length=200, blank=True)

    class Meta:
        # Every column the overview's statement reads, so both serve it from the index alone.
        indexes = [
            models.Index(fields=["day", "kind", "person", "denied"], name="overview_event_day_idx"),
            models.Index(
                fields=["company_id", "day", "kind", "person", "denied"], name="overview_event_company_day_idx"
            ),
            # The answers of people since deleted: counted by the name they were logged with.
            models.Index(
                fields=["day"],
                include=["company_id", "person_label", "denied"],
                name="overview_event_unnamed_idx",
                condition=models.Q(kind="app", person__isnull=True),
            ),
            # How far the copy of the app's answers has read: the highest log id copied.
            models.Index(fields=["seq"], name="overview_event_app_seq_idx", condition=models.Q(kind="app")),
        ]
        verbose_name = _("overview event")
        verbose_name_plural = _("overview events")

    def __str__(self) -> str:
        return f"{self.kind} {self.day}"


class ApiToken(models.Model):
    """A personal API token for scripts. Only its SHA-256 is stored.

    Every token expires (``reviewapp.web.api_auth.create_token`` sets the date);
    its owner revokes it on /account/tokens/, which deletes the row.
    """

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_tokens")
    key_hash = models.CharField(max_length=64, unique=True)
    prefix = models.CharField(max_length=12)
    name = models.CharField(_("name"), max_length=100, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(null=True, blank=True)
    expires_at = models.DateTimeField(_("expires"))

    class Meta:
        ordering = ["-created_at", "-pk"]
        verbose_name = _("API token")
        verbose_name_plural = _("API tokens")

    def __str__(self) -> str:
        return f"{self.prefix}… ({self.user})"

    def is_expired(self, now: datetime | None = None) -> bool:
        return self.expires_at <= (now or timezone.now())


class GoldenCase(models.Model):
    """A QA-saved input with the outputs it rendered to when saved, or when QA last accepted a change.

    Every change QA make to a case (accepting the current output, a rename,
    new tags, the deletion) is logged in ``GoldenCaseChange``.
    """

    name = models.CharField(max_length=200, unique=True)
    input = models.JSONField()
    expected = models.JSONField()
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    # Free labels the cases list filters by, a JSON list of strings
    # (["denial", "representation"]): reviewapp.previews.maintenance keeps it sorted.
    tags = models.JSONField(default=list, blank=True)
    # The inbox item the case was saved from (accounted's database: no foreign key).
    source_item_id = models.UUIDField(null=True, blank=True)

    class Meta:
        ordering = ["name"]
        verbose_name = _("golden case")
        verbose_name_plural = _("golden cases")

    def __str__(self) -> str:
        return self.name


class LoginThrottle(models.Model):
    """One login-throttle counter or mark (``reviewapp.web.throttle``).

    Its own table rather than the cache, because a cache may drop entries
    under pressure (the database cache culls at MAX_ENTRIES) and then a flood
    of junk usernames would wipe everyone's counts. Rows are only deleted
    once they have expired. ``key`` is a SHA-256 of what is counted (a
    username and address, an address, a username) and, for counters, the
    window, so usernames typed by strangers are never stored in clear.
    """

    key = models.CharField(max_length=64, primary_key=True)
    count = models.PositiveIntegerField(default=0)
    created_at = models.DateTimeField()
    expires_at = models.DateTimeField(db_index=True)

    class Meta:
        verbose_name = _("login throttle entry")
        verbose_name_plural = _("login throttle entries")

    def __str__(self) -> str:
        return f"{self.key[:12]}… = {self.count}"


class Reservation(models.Model):
    """Someone is answering this item: a soft, expiring mark (``reviewapp.inbox.reservations``).

    It steers people apart (the queue's "next" skips items others hold, the
    list says who holds one); it never blocks an answer, which the
    compare-and-set on the live row still guards. One row per item: taking
    it over is an upsert that succeeds only for the holder or once it expired.
    """

    # accounted's item (another database: no foreign key).
    item_id = models.UUIDField(primary_key=True)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    expires_at = models.DateTimeField()

    class Meta:
        verbose_name = _("reservation")
        verbose_name_plural = _("reservations")

    def __str__(self) -> str:
        return f"{self.item_id} held by {self.user_id} until {self.expires_at:%H:%M}"


class GoldenCaseChange(models.Model):
    """One change QA made to a golden case, with the value before and after. Append-only.

    ``case`` becomes NULL when the case is deleted; ``case_name`` keeps what
    it was called, so the deletion itself stays on record.
    """

    class Kind(models.TextChoices):
        ACCEPTED = "accepted", _("Accepted the current output")
        RENAMED = "renamed", _("Renamed")
        TAGGED = "tagged", _("Changed the tags")
        DELETED = "deleted", _("Deleted")

    case = models.ForeignKey(GoldenCase, null=True, blank=True, on_delete=models.SET_NULL, related_name="changes")
    case_name = models.CharField(max_length=200)
    kind = models.CharField(max_length=20, choices=Kind.choices)
    old = models.JSONField(null=True, blank=True)
    new = models.JSONField(null=True, blank=True)
    changed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    changed_by_label = models.CharField(max_length=150, blank=True)
    changed_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["-changed_at", "-id"]
        verbose_name = _("golden case change")
        verbose_name_plural = _("golden case changes")

    def __str__(self) -> str:
        return f"{self.kind} {self.case_name} @ {self.changed_at:%Y-%m-%d %H:%M}"

    def save(self, *args: Any, **kwargs: Any) -> None:
        # The log is append-only: an existing entry is never rewritten.
        if not self._state.adding:
            raise ValueError("GoldenCaseChange is append-only")
        super().save(*args, **kwargs)


class CompanyAssignment(models.Model):
    """A client company assigned to a user: without the all-companies permission, a user sees only these.

    A bookkeeping firm assigns clients to people, and the data is personal
    (names of meal guests, their employers). Managed in the admin.
    """

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="company_assignments")
    # accounted's company (another database: no foreign key).
    company_id = models.UUIDField(_("company"))

    class Meta:
        verbose_name = _("company assignment")
        verbose_name_plural = _("company assignments")
        constraints = [models.UniqueConstraint(fields=["user", "company_id"], name="one_assignment_per_company")]
        permissions = [("view_all_companies", "Can see every company")]

    def __str__(self) -> str:
        return f"{self.user} → {self.company_id}"


def accounted_user_exists(user_id: uuid.UUID) -> bool:
    """Whether accounted's ``auth.users`` has this id (a read on the ``bookkeeping`` database)."""
    with connections[BOOKKEEPING_DB].cursor() as cursor:
        cursor.execute("SELECT 1 FROM auth.users WHERE id = %s", [user_id])
        return cursor.fetchone() is not None


class AccountLink(models.Model):
    """A review user's own user in accounted (``auth.users``): who they are in accounted's audit log.

    ``processing_history`` is append-only and outside accounted's erasure
    path, so the app never writes a name there: an event the app writes for a
    linked user names them by this id, as accounted names its own users;
    without a link the actor is the app itself. Set by an admin on the user's
    admin page; an id accounted does not know is refused.
    """

    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="account_link")
    accounted_user_id = models.UUIDField(
        _("accounted user id"),
        unique=True,
        null=True,
        blank=True,
        help_text=_(
            "The id of this person's own user in accounted (auth.users). Events the app writes to accounted's "
            "audit log for them carry this id, never their name; empty: the app is named instead."
        ),
    )

    class Meta:
        verbose_name = _("account in accounted")
        verbose_name_plural = _("accounts in accounted")

    def __str__(self) -> str:
        return f"{self.user} → {self.accounted_user_id or '—'}"

    def save(self, *args: Any, **kwargs: Any) -> None:
        # Checked on every save, not only in the admin's form: an id accounted
        # does not know would put a dangling actor into its audit log.
        self.clean()
        super().save(*args, **kwargs)

    def clean(self) -> None:
        if self.accounted_user_id is None:
            return
        try:
            known = accounted_user_exists(self.accounted_user_id)
        except DatabaseError:
            raise ValidationError(
                {"accounted_user_id": _("accounted's database did not answer, so the id could not be checked.")}
            ) from None
        if not known:
            raise ValidationError(
                {
                    "accounted_user_id": _(
                        "accounted has no user with the id %(id)s: copy the id of the person's own user in "
                        "accounted (auth.users)."
                    )
                    % {"id": self.accounted_user_id}
                }
            )


def accounted_user_id(user: Any) -> uuid.UUID | None:
    """The accounted user ``user`` is linked to, or None."""
    if user is None or user.pk is None:
        return None
    return AccountLink.objects.filter(user_id=user.pk).values_list("accounted_user_id", flat=True).first()


# --- Known login addresses (reviewapp.web.throttle) ------------------------------


class KnownLoginAddress(models.Model):
    """An address a user has logged in from: never locked out there, at most asked to wait (``reviewapp.web.throttle``).

    ``digest`` is an HMAC of the username and the address keyed with
    SECRET_KEY, so neither is stored in clear and the address space cannot
    be hashed through to find one (rotating the key forgets them all: the
    next login from each address makes it known again). At most
    LOGIN_THROTTLE_KNOWN_ADDRESSES per user, the least recently used go
    first; each is forgotten LOGIN_THROTTLE_KNOWN_ADDRESS_DAYS after the
    last login from it.
    """

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    digest = models.CharField(max_length=64, unique=True)
    last_login_at = models.DateTimeField()
    expires_at = models.DateTimeField(db_index=True)

    class Meta:
        verbose_name = _("known login address")
        verbose_name_plural = _("known login addresses")
        indexes = [models.Index(fields=["user", "-last_login_at"], name="known_address_by_user")]

    def __str__(self) -> str:
        return f"{self.user_id}: {self.digest[:12]}…"


class Hold(models.Model):
    """A bookkeeper put an item's question on hold until a date (``reviewapp.inbox.holds``).

    A hold is active while it is not released, its ``until_at`` (Stockholm
    midnight of ``until``) is in the future and the item still needs an
    answer in the app; the queue, ``n`` and ``/next/`` skip active holds. The
    rows are kept after a hold ends: the item's history tells its story.
    Nothing of it is written to accounted's tables.
    """

    class Reason(models.TextChoices):
        CALLED = "called", _("Called the customer")
        EMAILED = "emailed", _("E-mailed the customer")
        COLLEAGUE = "colleague", _("Waiting for a colleague")
        OTHER = "other", _("Other")

    # accounted's item and company (another database: no foreign key).
    item_id = models.UUIDField()
    company_id = models.UUIDField()
    until = models.DateField()
    until_at = models.DateTimeField()
    reason = models.CharField(max_length=20, choices=Reason.choices)
    note = models.TextField(default="", blank=True)
    by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    created_at = models.DateTimeField(default=timezone.now)
    # Set when someone released it early, or when a new hold replaced one that had run out.
    released_at = models.DateTimeField(null=True, blank=True)
    released_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+", null=True, blank=True
    )

    class Meta:
        verbose_name = _("hold")
        verbose_name_plural = _("holds")
        constraints = [
            # At most one unreleased hold per item: two bookkeepers putting
            # one at the same moment get exactly one (the other a conflict).
            models.UniqueConstraint(
                fields=["item_id"], condition=models.Q(released_at__isnull=True), name="hold_one_open_per_item"
            ),
        ]
        indexes = [models.Index(fields=["item_id", "created_at"], name="hold_item_idx")]

    def __str__(self) -> str:
        return f"{self.item_id} on hold until {self.until}"


class ItemNote(models.Model):
    """A note a colleague left on an item (``reviewapp.items.notes``): plain text, kept for good.

    Its author may edit it for ``reviewapp.items.notes.EDIT_WINDOW`` after
    writing it; after that it is never changed or removed, only followed by
    another. Only in the review database.
    """

    item_id = models.UUIDField()
    company_id = models.UUIDField()
    text = models.TextField()
    author = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    created_at = models.DateTimeField(default=timezone.now)
    edited_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        verbose_name = _("note")
        verbose_name_plural = _("notes")
        indexes = [models.Index(fields=["item_id", "created_at"], name="note_item_idx")]

    def __str__(self) -> str:
        return f"note {self.pk} on {self.item_id}"
