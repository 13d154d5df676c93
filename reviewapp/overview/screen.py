"""What ``/overview/`` shows, built from ``numbers.Overview``: charts, their tables and the words around them.

Numbers are formatted here once, in the request's language (Swedish digit
grouping and decimal comma on Swedish pages), so the template only places
them, as the list does with its rows (``inbox.page.display_rows``).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Final

from django.utils import dateformat
from django.utils.formats import number_format
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from reviewapp.overview import charts
from reviewapp.overview.numbers import WAIT_BUCKET_DAYS, Overview


def count(n: float) -> str:
    """A count as the page prints it: 12 345 on Swedish pages, 12,345 on English ones."""
    value = int(n)
    if -1000 < value < 1000:
        # Nothing to group: most of the tables' cells (a 90-day page has over a thousand),
        # and number_format's locale look-ups cost more than the rest of the page's Python.
        return str(value)
    return number_format(value, force_grouping=True)


def hours(x: float | None) -> str:
    """Hours with one decimal (1,5 in Swedish), or a dash when there is nothing to measure."""
    return "—" if x is None else number_format(x, decimal_pos=1, force_grouping=True)


def _axis(x: float) -> str:
    # The charts' axes go up in whole steps (charts.axis_top).
    return number_format(round(x), force_grouping=True)


def day_label(day: dt.date) -> str:
    """A day on a chart's axis, in the page's language: "1 dec" ("M" would capitalise Swedish months)."""
    return dateformat.format(day, "j b")


# The four daily series, in the order of the chart's legend and the table's columns.
DAILY_FIELDS: Final = ("moved_to_app", "answered_in_app", "answered_in_chat", "denied")


def daily_labels() -> dict[str, str]:
    return {
        "moved_to_app": _("Moved to the app"),
        "answered_in_app": _("Answered in the app"),
        "answered_in_chat": _("Answered in the chat"),
        "denied": _("Denials"),
    }


def bucket_labels() -> list[str]:
    labels = []
    lower = 0
    for upper in WAIT_BUCKET_DAYS:
        if lower == 0:
            labels.append(ngettext("under %(n)s day", "under %(n)s days", upper) % {"n": upper})
        else:
            labels.append(_("%(low)s–%(high)s days") % {"low": lower, "high": upper})
        lower = upper
    labels.append(_("%(n)s days or more") % {"n": lower})
    return labels


@dataclass(frozen=True, slots=True)
class Legend:
    css: str
    label: str
    total: str


@dataclass(frozen=True, slots=True)
class Chart:
    svg: SafeString
    legend: list[Legend]


def _legend(labels: list[str], totals: list[int]) -> list[Legend]:
    return [
        Legend(f"chart-series-{n % charts.SERIES_CLASSES}", label, count(total))
        for n, (label, total) in enumerate(zip(labels, totals, strict=True))
    ]


def build(data: Overview) -> dict[str, object]:
    """The template's context for ``data``."""
    dates = [d.date for d in data.days]
    first, last = dates[0].isoformat(), dates[-1].isoformat()
    labels = daily_labels()
    series = [charts.Series(labels[f], [getattr(d, f) for d in data.days]) for f in DAILY_FIELDS]
    totals = [int(sum(s.values)) for s in series]
    summary = "; ".join(f"{labels[f]}: {count(t)}" for f, t in zip(DAILY_FIELDS, totals, strict=True))
    daily = Chart(
        # The SVG module escapes every text it is given.
        mark_safe(  # noqa: S308
            charts.line_chart(
                chart_id="chart-daily",
                title=_("Questions and answers per day"),
                desc=_("From %(first)s to %(last)s, in total: %(summary)s. The table below has each day.")
                % {"first": first, "last": last, "summary": summary},
                categories=[day_label(d) for d in dates],
                series=series,
                fmt=_axis,
            )
        ),
        _legend([s.label for s in series], totals),
    )
    rows = [
        {"date": d.date.isoformat(), "values": [count(getattr(d, f)) for f in DAILY_FIELDS]}
        for d in reversed(data.days)
    ]

    queue = data.queue
    buckets = bucket_labels()
    distribution = mark_safe(  # noqa: S308
        charts.bar_chart(
            chart_id="chart-waits",
            title=_("How long the waiting questions have waited"),
            desc=_("%(waiting)s questions wait in the app: %(parts)s.")
            % {
                "waiting": count(queue.waiting),
                "parts": "; ".join(f"{label}: {count(n)}" for label, n in zip(buckets, queue.buckets, strict=True)),
            },
            categories=buckets,
            values=queue.buckets,
            fmt=_axis,
        )
    )

    people_chart = None
    # The viewer's own line is followed, when others answered too, by theirs unnamed (numbers.Person.others).
    names = [_("Everyone else") if p.others else p.name for p in data.people]
    if data.people:
        people_series = [charts.Series(name, p.per_day) for name, p in zip(names, data.people, strict=True)]
        people_chart = Chart(
            mark_safe(  # noqa: S308
                charts.line_chart(
                    chart_id="chart-people",
                    title=_("Answers in the app per person and day"),
                    desc=_("From %(first)s to %(last)s: %(summary)s. The table below has each day.")
                    % {
                        "first": first,
                        "last": last,
                        "summary": "; ".join(
                            f"{name}: {count(p.total)}" for name, p in zip(names, data.people, strict=True)
                        ),
                    },
                    categories=[day_label(d) for d in dates],
                    series=people_series,
                    fmt=_axis,
                )
            ),
            _legend(names, [p.total for p in data.people]),
        )
    people_rows = [
        {"date": day.isoformat(), "values": [count(p.per_day[i]) for p in data.people]}
        for i, day in reversed(list(enumerate(dates)))
    ]
    return {
        "first": first,
        "last": last,
        "daily": daily,
        "daily_headers": [labels[f] for f in DAILY_FIELDS],
        "daily_rows": rows,
        "queue": queue,
        "waiting": count(queue.waiting),
        "on_hold": count(queue.on_hold),
        "oldest_hours": hours(queue.oldest_waiting_hours),
        "median_hours": hours(queue.median_wait_hours),
        "distribution": distribution,
        "bucket_rows": [(label, count(n)) for label, n in zip(buckets, queue.buckets, strict=True)],
        "people": data.people,
        "people_names": names,
        "whole_team": data.whole_team,
        "people_chart": people_chart,
        "people_rows": people_rows,
    }
