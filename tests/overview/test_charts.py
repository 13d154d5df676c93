"""The SVG drawing: its scale, its labels, and that what it is given is escaped. No database."""

from __future__ import annotations

import itertools
import re

import pytest

from reviewapp.overview.charts import Series, axis_top, bar_chart, label_step, line_chart


@pytest.mark.parametrize(
    ("value", "top"), [(0, 4), (3, 4), (5, 8), (6, 8), (9, 20), (37, 40), (41, 80), (81, 200), (1234, 2000)]
)
def test_the_axis_goes_up_in_four_whole_steps_of_one_two_or_five(value: int, top: int) -> None:
    assert axis_top(value) == top


@pytest.mark.parametrize(("count", "step"), [(1, 1), (7, 1), (8, 1), (9, 2), (30, 4), (90, 12)])
def test_the_x_axis_names_at_most_eight_days(count: int, step: int) -> None:
    assert label_step(count) == step


def _texts(svg: str) -> list[str]:
    return re.findall(r"<text[^>]*>([^<]*)</text>", svg)


def test_a_line_chart_escapes_its_words_and_formats_its_numbers() -> None:
    svg = line_chart(
        chart_id="c",
        title="<b>Title</b>",
        desc="A & B",
        categories=["1 dec", "2 dec"],
        series=[Series("x", [0, 3])],
        fmt=lambda x: f"[{x:g}]",
    )

    assert '<title id="c-title">&lt;b&gt;Title&lt;/b&gt;</title>' in svg
    assert '<desc id="c-desc">A &amp; B</desc>' in svg
    # The y axis goes 0 to 4 in whole steps, each through the formatter.
    assert _texts(svg) == ["[0]", "[1]", "[2]", "[3]", "[4]", "1 dec", "2 dec"]
    assert "style" not in svg


def test_a_line_draws_each_value_at_its_height() -> None:
    svg = line_chart(chart_id="c", title="t", desc="d", categories=["a", "b"], series=[Series("x", [0, 4])], fmt=str)

    points = re.search(r'<polyline[^>]*points="([^"]+)"', svg)
    assert points is not None
    (x0, y0), (x1, y1) = (tuple(map(float, p.split(","))) for p in points.group(1).split())
    assert x0 < x1
    assert y0 > y1
    assert y0 == 260 - 48  # the margin under the plot holds two lines of a bar's name
    assert y1 == 12


def test_a_bar_chart_writes_each_value_above_its_bar() -> None:
    svg = bar_chart(chart_id="w", title="t", desc="d", categories=["a", "b", "c"], values=[4, 0, 2], fmt=str)

    assert svg.count("<rect") == 3
    # Five y-axis labels (0 to 4), then each bar's value, then the category names.
    assert _texts(svg)[5:] == ["4", "0", "2", "a", "b", "c"]


@pytest.mark.parametrize("days", [7, 30, 90])
def test_the_last_day_is_always_named_and_ends_inside_the_chart(days: int) -> None:
    # Centred on the plot's right edge, the last date's second half fell outside the SVG (issue 37).
    names = [f"{n + 1} nov" for n in range(days)]
    svg = line_chart(chart_id="c", title="t", desc="d", categories=names, series=[Series("x", [1] * days)], fmt=str)

    labels = re.findall(
        r'<text class="chart-label[^"]*" x="([\d.]+)" y="[\d.]+" text-anchor="(\w+)"[^>]*>([^<]*)<', svg
    )
    x_axis = [(float(x), anchor, text) for x, anchor, text in labels if text in names]
    x, anchor, text = x_axis[-1]
    assert text == names[-1]
    # Ending at its point, the name's right edge is the point itself, inside the viewBox.
    assert anchor == "end"
    assert x <= 720
    # No two names crowd each other: at least a label step apart.
    positions = [x for x, _, _ in x_axis]
    assert all(
        b - a >= (720 - 64 - 12) / max(days - 1, 1) * label_step(days) * 0.99 for a, b in itertools.pairwise(positions)
    )
