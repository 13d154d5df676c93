"""The inbox list (``/``) and its JSON twin (``/api/items``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import permission_required
from django.contrib.auth.models import User
from django.contrib.messages import get_messages
from django.http import HttpResponse, QueryDict
from django.urls import reverse
from django.utils.cache import get_conditional_response
from django.utils.formats import number_format
from django.utils.translation import get_language, ngettext
from django.utils.translation import gettext as _
from django.views.decorators.http import require_safe

from reviewapp import readmodel
from reviewapp.core import roles, states
from reviewapp.inbox import live, reservations
from reviewapp.inbox.counts import FACET_RULE, Counts
from reviewapp.inbox.page import Columns, ListPage, Row, display_rows, list_page
from reviewapp.inbox.query import MAX_PAGE, MAX_PAGE_SIZE, SORT_RECEIVED, exact_item, matches_elsewhere
from reviewapp.web import unchanged_poll
from reviewapp.web.api_auth import api_view, json_error, json_response
from reviewapp.web.forms.inbox import InboxFilterForm, parse_list_query, remembered_list_query
from reviewapp.web.htmx import HtmxHttpRequest, redirect_htmx, render_htmx
from reviewapp.web.landing import all_items_url, landing_query, queue_query


def _query_string(query: QueryDict, **changes: object) -> str:
    """``query`` with some parameters replaced (None removes one), empty ones dropped."""
    result = QueryDict(mutable=True)
    for key, values in query.lists():
        kept = [v for v in values if v != ""]
        if kept and key not in changes:
            result.setlist(key, kept)
    for key, value in changes.items():
        if value is not None:
            result[key] = str(value)
    return result.urlencode()


# The filters a phone folds behind "Filters", and those behind "More filters" on every screen.
MORE_FILTERS = ("received_from", "received_to", "photo", "page_size")
FOLDED_FILTERS = ("type", "company", "sort", *MORE_FILTERS)


def _any_set(request: HtmxHttpRequest, form: InboxFilterForm, names: tuple[str, ...]) -> bool:
    """Whether one of the filters ``names`` is in the address (the queue's own sort aside) or was refused."""
    given = any(request.GET.get(name) for name in names if name != "sort")
    return given or any(form[name].errors for name in names)


def _shown(n: int, counts: Counts) -> str:
    """A count as the page shows it: grouped digits, with "+" when it is a lower bound."""
    if counts.exact or counts.limit is None:
        return number_format(n, force_grouping=True)
    return number_format(min(n, counts.limit), force_grouping=True) + "+"


@dataclass(frozen=True, slots=True)
class Facet:
    """A state's checkbox above the list: its count, and whether the list is filtered by it."""

    key: str
    label: str
    count: str
    checked: bool


def _facets(page: ListPage) -> list[Facet]:
    return [
        Facet(
            key=key,
            label=str(states.STATE_LABELS[key]),
            count=_shown(page.facets[key], page.counts),
            checked=key in page.query.states,
        )
        for key in states.LIST_STATE_KEYS
    ]


def _not_modified(request: HtmxHttpRequest, tag: str) -> HttpResponse | None:
    """A 304 when the client's copy carries ``tag``; None when the list must be sent."""
    # A message waiting to be shown (an answer saved, "no free item") is not in the copy.
    if len(get_messages(request)):
        return None
    response = get_conditional_response(request, etag=tag)
    return None if response is None else unchanged_poll.revalidated(response, tag)


@require_safe
@permission_required(roles.ANSWER, raise_exception=True)
def next_free(request: HtmxHttpRequest) -> HttpResponse:
    """``n``: the oldest item of the bookkeeper's queue that nobody else is answering, from any page.

    The queue's own order and the reservations' rule (``reservations.next_in_queue``); the item page then
    reserves it. An empty queue goes to the list, which says so.
    """
    user = request.user
    assert isinstance(user, User)  # permission_required let only a signed-in user through
    query = landing_query(user)
    found = reservations.next_in_queue(None, parse_list_query(query, user=user), user, waiting_only=True)
    list_url = reverse("inbox") + "?" + query.urlencode()
    if found is None:
        messages.info(request, _("No free item is waiting for an answer."))
        return redirect_htmx(request, list_url)
    return redirect_htmx(request, reverse("item_detail", args=[found.pk]) + "?" + query.urlencode())


@require_safe
@permission_required(roles.VIEW_ITEMS, raise_exception=True)
def inbox_list(request: HtmxHttpRequest) -> HttpResponse:
    # No query string at all: the list this person uses most (``inbox.landing``).
    params = request.GET or landing_query(request.user)
    # An open queue polls this address every few seconds: its query string
    # is read once per process (``remembered_list_query``), and the filter
    # form and the company menu are built only for a page that is sent. A
    # ?company= is validated against the menu (accounted's companies), read first.
    query = remembered_list_query(params, user=request.user)
    synced: readmodel.Synced | None = None
    form: InboxFilterForm | None = None
    if query is None:
        synced = readmodel.synced()
        form = InboxFilterForm(params, user=request.user, companies=synced.companies)
        query = form.list_query()
    # An exact id pasted into the search (item, document, correlation or
    # WhatsApp message id, a wamid) opens that item, if this user may see it.
    found = exact_item(query)
    if found is not None:
        return redirect_htmx(request, reverse("item_detail", args=[found]))
    # Conditional requests (issue 38 part 3): the open list polls itself with
    # If-None-Match, and here an unchanged list costs this one query (beside
    # the session's and the user's) and a 304; the next polls of it reach
    # UnchangedPollMiddleware, which answers them in one statement.
    now = live.fingerprint(query)
    session_key = request.session.session_key or ""
    tags = {
        kind: live.list_tag(
            kind=kind, user_id=request.user.pk, language=get_language(), query=query, now=now, session_key=session_key
        )
        for kind in ("page", "htmx")
    }
    # This process answers this session's next polls of the list in one
    # statement while their tag holds (reviewapp.web.unchanged_poll).
    unchanged_poll.remember(request, query=query)
    as_part = bool(request.htmx) and not request.htmx.history_restore_request
    tag = tags["htmx" if as_part else "page"]
    not_modified = _not_modified(request, tag)
    if not_modified is not None:
        return not_modified
    if synced is None:
        # The freshness line and the company menu, read once for the page.
        synced = readmodel.synced()
    if form is None:
        form = InboxFilterForm(params, user=request.user, companies=synced.companies)
    polled = as_part and request.htmx.trigger == live.POLL_ELEMENT
    page = list_page(query, synced)
    page_url = reverse("inbox") + "?"
    count_shown = _shown(page.count, page.counts)
    # The list's parameters without the empty ones and the page, encoded
    # once; each link adds its page number last, as _query_string would.
    unpaged = _query_string(params, page=None)

    def on_page(number: int) -> str:
        return "&".join(part for part in (unpaged, f"page={number}" if number > 1 else "") if part)

    # Each row links to the item page with this list's query string, so
    # the item page can offer previous/next within it and a way back.
    list_query = on_page(page.number)
    next_free = None
    user = request.user
    if page.query.is_queue and isinstance(user, User) and user.has_perm(roles.ANSWER):
        # Where to start: the first item nobody else is answering.
        next_free = reservations.first_free(page, user)
    # A queue search that found nothing says what it matches in the other states, and offers it.
    elsewhere = matches_elsewhere(page.query) if not page.count else None
    context: dict[str, Any] = {
        "elsewhere": elsewhere,
        "elsewhere_url": (
            reverse("item_detail", args=[elsewhere.only_item]) if elsewhere and elsewhere.only_item else None
        ),
        "search_all_url": page_url + _query_string(params, state=None, page=None, sort=SORT_RECEIVED),
        "form": form,
        "page": page,
        "rows": display_rows(
            page.rows, now=page.freshness.now, viewer_id=user.pk, link_query=list_query, search=page.query.text
        ),
        "columns": Columns.translated(),
        "facets": _facets(page),
        "facet_rule": FACET_RULE,
        # On a phone the filters are folded away; a filter that is set (or refused) keeps them open.
        "filters_open": _any_set(request, form, FOLDED_FILTERS),
        "more_filters_open": _any_set(request, form, MORE_FILTERS),
        "freshness": page.freshness,
        "count_shown": count_shown,
        "left_text": _("%(count)s left") % {"count": count_shown} if page.query.is_queue else "",
        "next_free": next_free,
        # The signed-in bookkeeper's own count, beside the queue's.
        "done_today": reservations.done_today(user)
        if page.query.is_queue and isinstance(user, User) and user.has_perm(roles.ANSWER)
        else None,
        "list_query": list_query,
        # "Clear filters" keeps the list it clears: the queue stays the queue.
        "clear_url": reverse("inbox") + "?" + queue_query().urlencode() if page.query.is_queue else all_items_url(),
        "first_url": page_url + unpaged,
        "previous_url": page_url + on_page(page.number - 1),
        "next_url": page_url + on_page(page.number + 1),
        "last_url": page_url + on_page(page.num_pages),
        # Past MAX_PAGE the form refuses the page number; offer no link there.
        "next_reachable": page.has_next and page.number < MAX_PAGE,
        "last_reachable": page.num_pages <= MAX_PAGE and page.counts.exact,
    }
    # The open list polls its own address for what changed (static/js/inbox.js).
    live_updates = {
        "id": live.POLL_ELEMENT,
        "etag": tags["htmx"],
        "seconds": settings.INBOX_POLL_SECONDS,
        # What inbox.js says about rows the page does not show yet ({count}: how many) and one that left.
        "new_one": ngettext("%(count)s new question —", "%(count)s new questions —", 1) % {"count": 1},
        "new_many": ngettext("%(count)s new question —", "%(count)s new questions —", 2) % {"count": "{count}"},
        "gone": _("No longer in this list"),
    }
    # htmx swaps the results (with the filters' error slots out of band, so a
    # fixed value's error goes away); the address bar gets the short link a
    # person would share: the list's parameters without the empty ones.
    canonical = reverse("inbox") + ("?" + list_query if list_query else "")
    context["live"] = {**live_updates, "url": canonical}
    # A poll never touches the address bar (nor Back's history).
    response = render_htmx(request, "inbox/list.html", context, partial="refreshed", url=None if polled else canonical)
    return unchanged_poll.revalidated(response, tag)


def _row_json(row: Row) -> dict[str, Any]:
    item = row.item
    question = row.open_question
    return {
        "id": str(item.id),
        "company": {"id": str(item.company_id), "name": item.company_name},
        "received": states.to_iso(item.created_at),
        "supplier": item.supplier_name,
        "total": item.total,
        "currency": item.currency,
        "states": list(row.states),
        "open_question": None
        if question is None
        else {
            "type": question.type,
            "status": question.status,
            "asked_at": states.to_iso(question.asked_at),
            "window_ends_at": states.to_iso(question.window_ends_at),
        },
        # The type of the question the item answered (the ``type`` filter matches it or the open one's).
        "answered_question_type": item.answered_question_type,
        "summary": item.summary,
        # Why the row is malformed (what analyse found, or why its JSON could
        # not be read at all); null when it is not.
        "malformed_reason": item.malformed_reason or None,
    }


@api_view(methods=["GET"], permission=roles.VIEW_ITEMS)
def api_item_list(request: HtmxHttpRequest) -> HttpResponse:
    form = InboxFilterForm(request.GET, user=request.user, max_page_size=MAX_PAGE_SIZE)
    if not form.is_valid():
        # A script gets told exactly what was wrong instead of other rows.
        return json_error(400, "invalid query parameters", fields=form.errors.get_json_data())
    query = form.list_query()
    tag = live.etag(kind="json", user_id=request.user.pk, language="", query=query, rows=live.fingerprint(query).rows)
    not_modified = _not_modified(request, tag)
    if not_modified is not None:
        return not_modified
    page = list_page(query)
    base = request.build_absolute_uri(reverse("api_items")) + "?"
    counts = page.counts
    limit = counts.limit if not counts.exact and counts.limit is not None else None
    response = json_response(
        {
            # When the read model last caught up with accounted (null: never):
            # the rows are at least this fresh.
            "indexed_at": states.to_iso(page.freshness.indexed_at),
            # With a search or a date range rows are counted up to
            # reviewapp.inbox.counts.COUNT_CAP. Past it "exact" is false, "count" is the cap
            # (meaning "more") and each facet is a lower bound.
            "count": counts.total if limit is None else limit,
            "facets": {key: n if limit is None else min(n, limit) for key, n in counts.facets.items()},
            "exact": counts.exact,
            "page": page.number,
            "num_pages": page.num_pages,
            "results": [_row_json(row) for row in page.rows],
            "next": base + _query_string(request.GET, page=page.number + 1) if page.has_next else None,
            "previous": base + _query_string(request.GET, page=page.number - 1) if page.has_previous else None,
        }
    )
    return unchanged_poll.revalidated(response, tag)
