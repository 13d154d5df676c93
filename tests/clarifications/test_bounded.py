"""Rendering in bounded time (issue 35): exact where it fits, honestly cut where it does not.

A 26 MB note took 1 s per rendering to flatten. ``render_item`` renders each
value of the prompt lines to at most a bound; whatever fits must still be
byte-identical to the TypeScript reference (the golden file), and whatever
does not must be the exact start of the reference's output and say it is
cut. Expected values come from the golden file or are written from the
seed's rules (``flattenMemoryContent``: white-space runs become one space,
``#>`*_|-`` runs their first character, leading block markers go, trim).
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from clarifications import phrases, render_item
from clarifications.flattening import WINDOW_FACTOR, flatten_prefix
from tests.clarifications.golden import load_cases

CASES: list[dict[str, Any]] = load_cases()
CONTEXT_CASES = [pytest.param(case, id=case["name"]) for case in CASES if "channel_context" in case["input"]]
FLATTEN_CASES = [pytest.param(case, id=case["name"]) for case in CASES if "flatten" in case["input"]]
NOTE = "anteckning från användaren: "
ANSWER = "användarens egna ord: "
BOUND = 1_000


@pytest.mark.parametrize("case", CONTEXT_CASES)
def test_every_reference_case_renders_whole_and_byte_identical_within_the_bound(case: dict[str, Any]) -> None:
    given, expected = case["input"], case["expected"]
    item = given.get("item") or {}

    rendered = render_item(
        given["channel_context"], item.get("document_id"), item.get("extracted_data"), max_value_chars=BOUND
    )

    assert rendered.whole
    assert rendered.summary_json == expected["summary"]
    assert rendered.lines == expected["lines"]
    assert rendered.notes == expected["notes"]
    if "agent_view" in expected:
        assert rendered.agent_view == expected["agent_view"]
        assert rendered.agent_view_most_chars == len("\n".join(expected["agent_view"]))
    assert rendered.lines_most_chars == len("\n".join(expected["lines"]))


@pytest.mark.parametrize("case", FLATTEN_CASES)
def test_a_reference_flatten_cut_anywhere_is_its_exact_start_and_says_so(case: dict[str, Any]) -> None:
    text, expected = case["input"]["flatten"], case["expected"]["flatten"]

    assert flatten_prefix(text, len(expected)) == (expected, True)
    for shorter in range(len(expected)):
        assert flatten_prefix(text, shorter) == (expected[:shorter], False)


def test_a_26_mb_note_renders_its_exact_start_and_says_it_is_cut() -> None:
    note = "Middag  med\n\tkunden ## " * 1_200_000  # 26.4 M characters
    # The rule: white-space runs become one space, "##" becomes "#".
    flattened_start = ("Middag med kunden # " * (BOUND // 20 + 1))[:BOUND]

    rendered = render_item({"channel": "whatsapp", "user_note": note}, "doc-1", None, max_value_chars=BOUND)

    assert not rendered.whole
    assert rendered.lines == [NOTE + flattened_start]
    assert rendered.agent_view[1] == "    - " + NOTE + flattened_start
    # The length it would have: at most the stored note (flattening never lengthens).
    assert len(NOTE) + len("Middag med kunden #" + " Middag med kunden #" * 1_199_999) <= rendered.lines_most_chars
    assert rendered.lines_most_chars <= len(NOTE) + len(note)
    assert rendered.summary_json is not None
    assert rendered.summary_json["userNote"] == note.strip()


def test_a_note_just_within_the_bound_is_rendered_whole_and_exact() -> None:
    note = "  Lunch\n\nmed  kunden " + "x" * (BOUND - len("Lunch med kunden "))

    rendered = render_item({"channel": "whatsapp", "user_note": note}, None, None, max_value_chars=BOUND)

    assert rendered.whole
    assert rendered.lines == [NOTE + "Lunch med kunden " + "x" * (BOUND - len("Lunch med kunden "))]


def test_a_giant_answer_of_nothing_but_markers_claims_nothing_it_has_not_read() -> None:
    # flatten("# " * n) is "": every "# " is a leading block marker. Past the
    # window that cannot be known without reading it all, so the value is
    # shown empty and cut, never as if it were whole.
    answer = "# " * (WINDOW_FACTOR * BOUND)

    rendered = render_item(
        {"channel": "whatsapp", "context_answer": {"raw_answer": answer + "ja"}}, None, None, max_value_chars=BOUND
    )

    assert rendered.lines == [ANSWER]
    assert not rendered.whole


def test_a_hundred_thousand_participants_give_the_first_names_exactly_and_say_they_are_cut() -> None:
    people = [{"name": f" Gäst {n} ", "company": f"Bolag {n}"} for n in range(100_000)]

    rendered = render_item(
        {"channel": "whatsapp", "representation": {"participants": people, "purpose": "Kundmiddag"}},
        None,
        None,
        max_value_chars=BOUND,
    )

    names = ", ".join(f"Gäst {n} (Bolag {n})" for n in range(100_000))
    assert not rendered.whole
    assert rendered.lines == [
        "deltagare (uppgivna av användaren): " + names[:BOUND],
        "syfte (uppgivet av användaren): Kundmiddag",
    ]
    assert rendered.lines_most_chars >= len("deltagare (uppgivna av användaren): " + names)


HOSTILE_TEXT = st.text(alphabet=st.sampled_from([*" \t\n\u00a0\ufeff#>`*_|-+", "a", "b"]), max_size=60)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    people=st.lists(st.fixed_dictionaries({"name": HOSTILE_TEXT, "company": HOSTILE_TEXT}), max_size=8),
    note=HOSTILE_TEXT,
    bound=st.integers(min_value=0, max_value=12),
)
# Hypothesis found it: the window sees only the company's block markers and the name flattens to
# nothing, so whether the reference has a participants line at all is beyond the window.
@example(people=[{"name": ">", "company": ">" * 16 + "+"}], note="", bound=0)
def test_a_bounded_rendering_is_always_the_start_of_the_whole_one(
    people: list[dict[str, str]], note: str, bound: int
) -> None:
    """Cut or not, each bounded line starts the line the reference renders; whole means equal.

    One line may be missing, and only from a cut rendering: the participants
    line, when the window saw nothing of the first participant but block
    markers (``render._names``: printing its prefix could claim a line the
    reference does not have). No line is ever added, reordered or changed.
    """
    ctx = {"channel": "whatsapp", "user_note": note, "representation": {"participants": people}}

    rendered = render_item(ctx, None, None, max_value_chars=bound)
    whole = render_item(ctx, None, None, max_value_chars=10_000)

    assert whole.whole
    expected = whole.lines
    if len(rendered.lines) != len(whole.lines):
        assert not rendered.whole
        assert whole.lines[0].startswith(phrases.PARTICIPANTS_PREFIX)
        expected = whole.lines[1:]
    assert len(rendered.lines) == len(expected)
    for cut, full in zip(rendered.lines, expected, strict=True):
        assert full.startswith(cut)
    if rendered.whole:
        assert rendered.lines == whole.lines
    assert rendered.lines_most_chars >= whole.lines_most_chars


def test_a_negative_length_is_refused_saying_so():
    with pytest.raises(ValueError, match=r"^max_chars must not be negative$"):
        flatten_prefix("a b", -1)
    with pytest.raises(ValueError, match=r"^max_value_chars must not be negative$"):
        render_item({"channel": "whatsapp", "user_note": "a"}, None, None, max_value_chars=-1)


@pytest.mark.parametrize("bound", range(0, 19))
def test_names_cut_by_the_bound_keep_exactly_the_bound_of_them(bound: int) -> None:
    """Not merely a start: as many characters of the names joined as the bound allows, one less is a loss."""
    people = [{"name": name, "company": None} for name in ("Anna", "Bob", "Cecilia")]
    ctx = {"channel": "whatsapp", "representation": {"participants": people, "purpose": "Möte"}}
    joined = "Anna, Bob, Cecilia"
    whole = render_item(ctx, None, None, max_value_chars=10_000).lines[0]
    prefix = whole[: -len(joined)]
    assert whole == prefix + joined

    assert render_item(ctx, None, None, max_value_chars=bound).lines[0] == prefix + joined[:bound]
