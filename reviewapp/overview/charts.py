"""Charts drawn on the server as SVG: a line chart of daily counts and a bar chart of a distribution.

Pure Python, standard library only: the caller passes every text already
translated and a function that formats numbers in the page's language
(Swedish digits on Swedish pages), and gets markup back. The charts carry no
``style`` attribute and no script (the CSP forbids both): colours come from
CSS classes in ``static/css/app.css`` (``chart-series-<n>``), sizes from
SVG's own presentation attributes. Each chart is an ``<svg role="img">``
named by its ``<title>`` and described by its ``<desc>``; the page puts a
table with the same numbers beside it for anyone who cannot see it.

Chart libraries were weighed first: pygal's SVG carries an inline
``<style>`` element and a tooltip script, which this CSP refuses, and a
line and a bar chart are about a hundred lines here.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from html import escape
from typing import Final

WIDTH: Final = 720
HEIGHT: Final = 260
# Room for the y axis labels (left) and the x axis labels (bottom).
LEFT: Final = 64
RIGHT: Final = 12
TOP: Final = 12
BOTTOM: Final = 48
# Distinct series colours in app.css; more series than this repeat them.
SERIES_CLASSES: Final = 8


@dataclass(frozen=True, slots=True)
class Series:
    label: str
    values: Sequence[int | float]


def axis_top(value: float) -> int:
    """The y axis's top: four equal whole steps of 1, 2 or 5 times a power of ten that reach ``value``. 37 → 40, 6 → 8.

    Whole steps, so a count's axis never says 2,5 questions.
    """
    if value <= 4:
        return 4
    power = 10 ** math.floor(math.log10(value / 4))
    for step in (1, 2, 5, 10):
        if value <= 4 * step * power:
            return int(4 * step * power)
    return int(40 * power)  # pragma: no cover - the loop ends at 10 × power


def _open(chart_id: str, title: str, desc: str) -> list[str]:
    return [
        f'<svg class="chart-svg" viewBox="0 0 {WIDTH} {HEIGHT}" role="img" '
        f'aria-labelledby="{chart_id}-title {chart_id}-desc" xmlns="http://www.w3.org/2000/svg" '
        'preserveAspectRatio="xMidYMid meet">',
        f'<title id="{chart_id}-title">{escape(title)}</title>',
        f'<desc id="{chart_id}-desc">{escape(desc)}</desc>',
    ]


def _y_axis(top: int, fmt: Callable[[float], str]) -> list[str]:
    parts = []
    plot_height = HEIGHT - TOP - BOTTOM
    for n in range(5):
        value = top * n / 4
        y = TOP + plot_height - plot_height * n / 4
        parts.append(
            f'<line class="chart-grid" x1="{LEFT}" x2="{WIDTH - RIGHT}" y1="{y:.1f}" y2="{y:.1f}" stroke-width="1"/>'
        )
        parts.append(
            f'<text class="chart-label" x="{LEFT - 6}" y="{y + 4:.1f}" text-anchor="end" font-size="12">'
            f"{escape(fmt(value))}</text>"
        )
    return parts


def _two_lines(label: str, x: float) -> str:
    """``label`` on two lines split at the space nearest its middle, so a long name fits its bar on a phone."""
    spaces = [n for n, char in enumerate(label) if char == " "]
    if not spaces:
        return escape(label)
    cut = min(spaces, key=lambda n: abs(n - len(label) / 2))
    return (
        f'<tspan x="{x:.1f}">{escape(label[:cut])}</tspan>'
        f'<tspan x="{x:.1f}" dy="1.15em">{escape(label[cut + 1 :])}</tspan>'
    )


def _x_labels(
    categories: Sequence[str], centre: Callable[[int], float], every: int, *, last_at_edge: bool = True
) -> list[str]:
    """The x axis's names: every ``every``-th, and always the last (today), which is never cut off.

    On a line chart the last name ends at its point (``text-anchor="end"``):
    centred on the plot's right edge, half of it fell outside the SVG. A regular name too
    close before it gives way. Every other regular name is "minor": a phone
    shows the chart's text larger (app.css) and only the major ones.
    """
    baseline = HEIGHT - BOTTOM
    last = len(categories) - 1
    shown = [i for i in range(len(categories)) if i % every == 0 and (last - i >= every or i == last)]
    if last >= 0 and last not in shown:
        shown.append(last)
    parts = []
    for i in shown:
        anchor = "end" if last_at_edge and i == last and last > 0 else "middle"
        minor = " chart-label-minor" if i != last and i % (2 * every) != 0 else ""
        # A bar's name (last_at_edge False: the bar chart) takes two lines when it has two words.
        text = escape(categories[i]) if last_at_edge else _two_lines(categories[i], centre(i))
        parts.append(
            f'<text class="chart-label{minor}" x="{centre(i):.1f}" y="{baseline + 18}" text-anchor="{anchor}" '
            f'font-size="12">{text}</text>'
        )
    return parts


def label_step(count: int, most: int = 8) -> int:
    """Every how many categories the x axis names one, so at most about ``most`` names fit. 30 → 4, 7 → 1."""
    return max(1, math.ceil(count / most))


def line_chart(
    *,
    chart_id: str,
    title: str,
    desc: str,
    categories: Sequence[str],
    series: Sequence[Series],
    fmt: Callable[[float], str],
) -> str:
    """One line per series over ``categories`` (days); a single category draws points only."""
    top = axis_top(max((max(s.values, default=0) for s in series), default=0))
    plot_width = WIDTH - LEFT - RIGHT
    plot_height = HEIGHT - TOP - BOTTOM
    count = len(categories)

    def x(i: int) -> float:
        return LEFT + (plot_width * i / (count - 1) if count > 1 else plot_width / 2)

    def y(value: float) -> float:
        return TOP + plot_height - plot_height * value / top

    parts = _open(chart_id, title, desc)
    parts += _y_axis(top, fmt)
    for n, one in enumerate(series):
        css = f"chart-series-{n % SERIES_CLASSES}"
        points = " ".join(f"{x(i):.1f},{y(v):.1f}" for i, v in enumerate(one.values))
        parts.append(f'<polyline class="chart-line {css}" fill="none" stroke-width="2" points="{points}"/>')
        if count <= 31:
            parts += [
                f'<circle class="chart-point {css}" cx="{x(i):.1f}" cy="{y(v):.1f}" r="3"/>'
                for i, v in enumerate(one.values)
            ]
    parts += _x_labels(categories, x, label_step(count))
    parts.append("</svg>")
    return "\n".join(parts)


def bar_chart(
    *,
    chart_id: str,
    title: str,
    desc: str,
    categories: Sequence[str],
    values: Sequence[int | float],
    fmt: Callable[[float], str],
) -> str:
    """One bar per category, its value written above it."""
    top = axis_top(max(values, default=0))
    plot_width = WIDTH - LEFT - RIGHT
    plot_height = HEIGHT - TOP - BOTTOM
    slot = plot_width / max(len(categories), 1)
    bar = slot * 0.6

    def centre(i: int) -> float:
        return LEFT + slot * i + slot / 2

    parts = _open(chart_id, title, desc)
    parts += _y_axis(top, fmt)
    for i, value in enumerate(values):
        height = plot_height * value / top
        y = TOP + plot_height - height
        parts.append(
            f'<rect class="chart-bar chart-series-0" x="{centre(i) - bar / 2:.1f}" y="{y:.1f}" '
            f'width="{bar:.1f}" height="{height:.1f}"/>'
        )
        parts.append(
            f'<text class="chart-value" x="{centre(i):.1f}" y="{max(y - 4, TOP + 10):.1f}" text-anchor="middle" '
            f'font-size="12">{escape(fmt(value))}</text>'
        )
    parts += _x_labels(categories, centre, 1, last_at_edge=False)
    parts.append("</svg>")
    return "\n".join(parts)
