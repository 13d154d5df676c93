"""One page of the list: its rows (with their open question and badges), counts and freshness.

The list reads the read model only, so what it shows is as old as the last
poll of ``sync_index``. The page says so ("Updated 3 s ago"), warns when the
sync seems to have stopped, and says how to build the index when it never ran.
"""

from __future__ import annotations

import datetime as dt
import functools
import uuid
from collections.abc import Iterable
from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation
from typing import Final, cast

from django.db.models import OuterRef, QuerySet, Subquery
from django.db.models.functions import Now
from django.template.defaultfilters import floatformat
from django.urls import reverse
from django.utils import numberformat, timezone, translation
from django.utils.formats import get_format
from django.utils.timesince import TIME_STRINGS, timesince, timeuntil
from django.utils.translation import gettext as _

from reviewapp import readmodel
from reviewapp.answers.bulk import BULK_TYPES
from reviewapp.core import states
from reviewapp.core.dates import local_time
from reviewapp.core.people import person_name_sql
from reviewapp.inbox.counts import Counts, facet_counts
from reviewapp.inbox.matches import Match, note_matches, row_matches
from reviewapp.inbox.query import ListQuery, filtered_items
from reviewapp.inbox.sorting import ordered
from reviewapp.items import notes
from reviewapp.models import Hold, IndexedItem, Reservation

# Stands in for an item's id in the one reverse() a page makes for its row links.
_NO_ID: Final = uuid.UUID(int=0)


@dataclass(frozen=True, slots=True)
class Freshness:
    """How fresh the list is: when ``sync_index`` last caught up with accounted (None: never)."""

    indexed_at: dt.datetime | None
    now: dt.datetime

    @property
    def built(self) -> bool:
        return self.indexed_at is not None

    @property
    def age(self) -> dt.timedelta | None:
        return readmodel.read_model_age(self.indexed_at, self.now)

    @property
    def stale(self) -> bool:
        # ``sync_index --follow`` polls every 2 s by default: a poll older than
        # SYNC_STALE_AFTER means it is not running or cannot reach a database.
        age = self.age
        return age is not None and age > readmodel.stale_after()

    @property
    def age_text(self) -> str:
        """``"3 s"`` under a minute, else Django's ``timesince`` (``"5 minutes"``)."""
        age = self.age
        if age is None or self.indexed_at is None:
            return ""
        if age < dt.timedelta(minutes=1):
            return _("%(seconds)d s") % {"seconds": int(age.total_seconds())}
        return timesince(self.indexed_at, self.now)


@dataclass(frozen=True, slots=True)
class ListQuestion:
    """A row's open question, from its state columns (the item page reads the live row instead)."""

    type: str | None
    status: str  # "open" (WhatsApp still owns it) or "moved_to_app" (the app does)
    asked_at: dt.datetime | None
    window_ends_at: dt.datetime | None
    # What is left of the chat's 48-hour window: None when the app owns the
    # question or nobody knows when it was asked; zero once it has run out.
    time_left: dt.timedelta | None

    @property
    def owner(self) -> str:
        return "app" if self.status == "moved_to_app" else "whatsapp"


def open_question_of(item: IndexedItem, now: dt.datetime) -> ListQuestion | None:
    """The open question from the state columns (no JSON parsing needed)."""
    if item.state_needs_answer:
        status = "moved_to_app"
    elif item.state_waiting_in_chat:
        status = "open"
    else:
        return None
    asked_at = item.open_question_asked_at
    window_ends_at = asked_at + states.CHAT_WINDOW if asked_at else None
    time_left = None
    if status == "open" and window_ends_at is not None:
        time_left = max(window_ends_at - now, dt.timedelta(0))
    return ListQuestion(
        type=item.open_question_type,
        status=status,
        asked_at=asked_at,
        window_ends_at=window_ends_at,
        time_left=time_left,
    )


@dataclass(frozen=True, slots=True)
class Row:
    item: IndexedItem
    states: tuple[str, ...]
    open_question: ListQuestion | None
    # Who is answering it now (an unexpired ``Reservation``, see reviewapp.inbox.reservations).
    holder_id: int | None = None
    holder_name: str = ""
    # Its last hold (reviewapp.inbox.holds): the reason, and whether it is still on (else it ran out: "back").
    hold_reason: str = ""
    on_hold: bool = False

    @classmethod
    def of(cls, item: IndexedItem, now: dt.datetime) -> Row:
        reason = getattr(item, "last_hold_reason", None) or ""
        until_at = getattr(item, "last_hold_until_at", None)
        released_by = getattr(item, "last_hold_released_by", None)
        on_hold = (
            bool(reason) and item.state_needs_answer and until_at is not None and until_at > now and released_by is None
        )
        if not on_hold and (until_at is None or until_at > now or released_by is not None):
            reason = ""  # never held, released early, or ended another way: nothing to say in the list
        found = item.state_keys
        if on_hold:
            found = tuple(states.ON_HOLD if key == states.NEEDS_ANSWER else key for key in found)
        return cls(
            item=item,
            states=found,
            open_question=open_question_of(item, now),
            holder_id=getattr(item, "held_by_id", None),
            holder_name=getattr(item, "held_by_name", None) or "",
            hold_reason=reason,
            on_hold=on_hold,
        )

    @property
    def waiting_since(self) -> dt.datetime | None:
        """When the question moved from the chat to the app: the queue's order, and its waiting time."""
        return self.item.moved_to_app_at if self.item.state_needs_answer else None


@dataclass(frozen=True, slots=True)
class RowDisplay:
    """A row as the page prints it: every value formatted once, in Python.

    The template only places these (per-row filters, tags and translations
    once cost more than the page's queries) and escapes them as it prints
    them, like any other value.
    """

    url: str  # the item page, with the list's query string
    received_iso: str
    received: str  # YYYY-MM-DD HH:MM in the site's time zone
    short_id: str
    company: str
    supplier: str
    total: str  # "1 234,50 SEK" in the active language, or "—"
    badges: list[tuple[str, str]]  # (state key, label)
    question_type: str  # the open question's type, else the answered one's; "" for neither
    question_owner: str  # "app" or "whatsapp" (open), "answered", or ""
    question_owner_text: str
    question_window: str  # what is left of the chat's window, "window closed", or ""
    waiting_iso: str
    waiting: str  # how long the question has waited in the app, or ""
    held_by: str  # "You are answering", "anna is answering", or ""
    row_class: str  # "inbox-row", with " is-held" while someone is answering it
    item_id: str = ""
    hold_text: str = ""  # "Back from hold: Called the customer", or ""
    # Its question waits in the app and is one a bulk answer settles (context, resend): the row can be ticked.
    tickable: bool = False
    # Why the row matched the search (inbox.matches): empty without one.
    matched: list[Match] = field(default_factory=list)
    # accounted has not read the photo (reviewapp.answers.unread): "Tolka om" in accounted reads it.
    unread: bool = False
    # Changes when what the row shows changes (re-indexed, someone else answering it): an open
    # list's poll replaces only the rows whose version moved (static/js/inbox.js, inbox.live).
    version: str = ""


@dataclass(frozen=True, slots=True)
class Columns:
    """The list table's column names in the active language, as plain text.

    Each is printed once a row (``data-label``: a narrow screen's card shows
    it above the value) and once in the header. Jinja2 marks a template's
    own translations safe, and printing safe text costs twice what plain
    text does; 350 prints a page.
    """

    received: str
    company: str
    supplier: str
    total: str
    state: str
    question: str
    waiting: str

    @classmethod
    def translated(cls) -> Columns:
        return cls(
            received=_("Received"),
            company=_("Company"),
            supplier=_("Supplier"),
            total=_("Total"),
            state=_("State"),
            question=_("Open question"),
            waiting=_("Waiting in the app"),
        )


class AmountFormat:
    """Totals exactly as ``floatformat:"2g"`` prints them ("1 234,50" in Swedish).

    The filter looks the language's separators up again for every number;
    here they are looked up once a page.
    """

    _CENT: Final = Decimal("0.01")

    def __init__(self) -> None:
        self.decimal_separator = get_format("DECIMAL_SEPARATOR")
        self.thousand_separator = get_format("THOUSAND_SEPARATOR")
        self.grouping = get_format("NUMBER_GROUPING")

    def __call__(self, value: float | int) -> str:
        try:
            # The filter's own rounding: the shortest repr, half up.
            rounded = Decimal(repr(value)).quantize(self._CENT, ROUND_HALF_UP)
        except InvalidOperation:  # more digits than a Decimal holds: the filter knows what to do
            return str(floatformat(value, "2g"))
        if not rounded:
            rounded = abs(rounded)  # -0.001 is "0,00", as the filter writes it, not "-0,00"
        if self.grouping == 3:
            # Groups of three, as Python's own format writes them; then the language's
            # separators (three replaces: a fifth of what str.translate costs here).
            grouped = f"{rounded:,.2f}".replace(",", "\0")
            return grouped.replace(".", self.decimal_separator).replace("\0", self.thousand_separator)
        return numberformat.format(
            rounded,
            self.decimal_separator,
            decimal_pos=2,
            grouping=self.grouping,
            thousand_sep=self.thousand_separator,
            force_grouping=True,
        )


@functools.lru_cache(maxsize=4096)
def _unit_text(language: str | None, unit: str, count: int) -> str:
    """The words for ``count`` of ``unit`` in ``language`` ("3 days"): translated once a process, not once a row."""
    with translation.override(language):
        return str(TIME_STRINGS[unit] % {"num": count})


class _UnitText:
    """One of timesince's units ("%(num)d day"/"%(num)d days") in the active language, from the cache above."""

    def __init__(self, unit: str, language: str | None) -> None:
        self.unit, self.language = unit, language

    def __mod__(self, params: dict[str, int]) -> str:
        return _unit_text(self.language, self.unit, params["num"])


def page_time_strings() -> dict[str, str]:
    """Django's ``timesince`` strings for one page, translated once a process (``_unit_text``)."""
    # timesince only applies ``%`` to them, which _UnitText answers from the cache.
    language = translation.get_language()
    return {unit: cast(str, _UnitText(unit, language)) for unit in TIME_STRINGS}


def _local_minute(moment: dt.datetime) -> str:
    # The template's date:"Y-m-d H:i", without the format machinery per row.
    return f"{moment.year:04d}-{moment.month:02d}-{moment.day:02d} {moment.hour:02d}:{moment.minute:02d}"


def display_rows(
    rows: Iterable[Row], *, now: dt.datetime, viewer_id: int | None, link_query: str, search: str = ""
) -> list[RowDisplay]:
    """The page's rows, formatted for the active language and time zone.

    What is the same for every row (labels, the item URL's shape) is
    translated or built once per page, not once per row. ``viewer_id`` tells
    "You are answering" from "anna is answering"; ``link_query`` is the
    list's query string each row's link carries; ``search``, the list's search
    text, for saying where each row matched it.
    """
    state_labels = {key: str(label) for key, label in states.STATE_LABELS.items()}
    type_labels = {key: str(label) for key, label in states.QUESTION_TYPE_LABELS.items()}
    unknown_type = _("Unknown question type")
    owner_texts = {"app": _("The app owns it"), "whatsapp": _("WhatsApp owns it"), "answered": _("Answered")}
    window_closed = _("window closed")
    you = _("You are answering")
    left_text = _("%(left)s left")
    answering_text = _("%(name)s is answering")
    back_text = _("Back from hold: %(reason)s")
    reasons = {value: str(label) for value, label in Hold.Reason.choices}
    amount = AmountFormat()
    units = page_time_strings()
    zone = timezone.get_current_timezone()
    # reverse() once: each row's URL differs only by the id in it.
    prefix, _placeholder, suffix = reverse("item_detail", args=[_NO_ID]).partition(str(_NO_ID))
    suffix += "?" + link_query if link_query else ""
    rows = list(rows)
    # Items found by a colleague's note say so too (the notes are not in the read model's search fields).
    noted = notes.matching_notes([row.item.id for row in rows], search) if search else {}
    shown = []
    for row in rows:
        item = row.item
        received = local_time(item.created_at, zone)
        question = row.open_question
        window = ""
        if question is not None and question.time_left is not None:
            if question.time_left and question.window_ends_at is not None:
                window = left_text % {"left": timeuntil(question.window_ends_at, now, time_strings=units)}
            else:
                window = window_closed
        # The open question, else the one the item answered (what the type filter matches).
        question_type, question_owner = "", ""
        if question is not None:
            question_type, question_owner = type_labels.get(question.type or "", unknown_type), question.owner
        elif item.answered_question_type:
            question_type, question_owner = type_labels.get(item.answered_question_type, unknown_type), "answered"
        waiting_since = row.waiting_since
        held_by = ""
        if row.holder_id:
            held_by = you if row.holder_id == viewer_id else answering_text % {"name": row.holder_name}
        item_id = str(item.id)
        shown.append(
            RowDisplay(
                url=f"{prefix}{item_id}{suffix}",
                received_iso=received.isoformat(),
                received=_local_minute(received),
                short_id=item_id[:8],
                company=item.company_name,
                supplier="—" if item.supplier_name is None else item.supplier_name,
                total="—" if item.total is None else f"{amount(item.total)} {item.currency}",
                badges=[(key, state_labels[key]) for key in row.states],
                question_type=question_type,
                question_owner=question_owner,
                question_owner_text=owner_texts.get(question_owner, ""),
                question_window=window,
                waiting_iso="" if waiting_since is None else waiting_since.isoformat(),
                waiting="" if waiting_since is None else timesince(waiting_since, now, time_strings=units),
                held_by=held_by,
                hold_text=""
                if not row.hold_reason or row.on_hold
                else back_text % {"reason": reasons.get(row.hold_reason, row.hold_reason)},
                row_class="inbox-row is-held" if held_by else "inbox-row",
                item_id=item_id,
                tickable=question is not None and question.owner == "app" and question.type in BULK_TYPES,
                matched=[
                    *row_matches(item.id, item.search_fields, search),
                    *note_matches(noted.get(item.id, []), search),
                ]
                if search
                else [],
                unread=item.extraction_skipped,
                version=f"{item.indexed_at.timestamp() if item.indexed_at else ''}-{row.holder_id or ''}",
            )
        )
    return shown


@dataclass(frozen=True, slots=True)
class ListPage:
    query: ListQuery
    rows: list[Row]
    counts: Counts
    number: int
    num_pages: int
    # When ``sync_index`` last caught up with accounted. Read before the
    # rows, so the rows are at least this fresh.
    freshness: Freshness = field(default_factory=lambda: Freshness(indexed_at=None, now=timezone.now()))

    @property
    def page_size(self) -> int:
        return self.query.page_size

    @property
    def count(self) -> int:
        return self.counts.total

    @property
    def facets(self) -> dict[str, int]:
        return self.counts.facets

    @property
    def has_next(self) -> bool:
        return self.number < self.num_pages

    @property
    def has_previous(self) -> bool:
        return self.number > 1

    @property
    def start_index(self) -> int:
        return (self.number - 1) * self.page_size + 1 if self.rows else 0

    @property
    def end_index(self) -> int:
        return (self.number - 1) * self.page_size + len(self.rows)


def page_rows(query: ListQuery, number: int) -> QuerySet[IndexedItem]:
    """The rows of page ``number``.

    The page's ids are found first, in a subquery the sort's index answers
    alone (an index-only scan, no table rows read for the skipped pages);
    only the page's own rows are then fetched. This keeps page 200 cheap.
    Each row comes with who is answering it, if anyone (``held_by_id``,
    ``held_by_name``), in the same query.
    """
    offset = (number - 1) * query.page_size
    page_ids = ordered(filtered_items(query), query.sort).values("pk")[offset : offset + query.page_size]
    live = Reservation.objects.filter(item_id=OuterRef("pk"), expires_at__gt=Now())
    rows = IndexedItem.objects.filter(pk__in=page_ids)
    if not query.text:
        # Only a searched page says where its rows matched (inbox.matches).
        rows = rows.defer("search_fields")
    last_hold = Hold.objects.filter(item_id=OuterRef("pk")).order_by("-created_at", "-pk")
    rows = rows.annotate(
        held_by_id=Subquery(live.values("user_id")[:1]),
        held_by_name=Subquery(live.annotate(name=person_name_sql("user__")).values("name")[:1]),
        last_hold_reason=Subquery(last_hold.values("reason")[:1]),
        last_hold_until_at=Subquery(last_hold.values("until_at")[:1]),
        last_hold_released_by=Subquery(last_hold.values("released_by_id")[:1]),
    )
    return ordered(rows, query.sort)


def list_page(query: ListQuery, synced: readmodel.Synced | None = None) -> ListPage:
    """One page of the list with its counts, in a fixed number of queries.

    Queries: when the index last caught up (unless ``synced`` is given, read
    before this call), the counts, the rows; all in the review database. A
    page past the end shows the last page, as Django's ``Paginator.get_page``.
    """
    indexed_at = (synced or readmodel.synced(with_companies=False)).indexed_at
    counts = facet_counts(query)
    num_pages = max(1, -(-counts.total // query.page_size))
    number = min(query.page, num_pages)
    now = timezone.now()
    rows = [Row.of(item, now) for item in page_rows(query, number)]
    return ListPage(query, rows, counts, number, num_pages, Freshness(indexed_at=indexed_at, now=now))
