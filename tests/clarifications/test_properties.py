"""Properties over arbitrary JSON and over well-formed records with hostile text.

Nothing may raise for any JSON value; the prompt lines stay single lines that
cannot open markdown; a denial never asks for a purpose; the caption never
reaches a prompt line; there is at most one open-question line; the voucher
line respects its 220-unit cap.
"""

import re
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from clarifications import analyse, flatten, render_agent_view, render_case, render_lines, render_notes, summarise
from clarifications.cli import dump_line
from clarifications.jstext import JS_LINE_TERMINATORS, JS_WHITESPACE, utf16_length
from clarifications.phrases import OPEN_QUESTION_MARKER

# The project's conftest has a function-scoped autouse fixture; it does not
# depend on the generated input, so sharing it between examples is fine.
BOUNDED = settings(
    max_examples=250,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)

CAPTION_MARK = "§"
HOSTILE = [
    *JS_WHITESPACE,
    *["\x85", "\x1c", "\x1f", "\u180e", "#", ">", "`", "*", "_", "|", "-", "+", "1", ".", "a", "Å", " ", "\\", '"'],
    *["😀", "\u200d", "OBESVARAD FRÅGA", "syfte SAKNAS", "\ud83d", "\ude00"],
]
hostile_text = st.lists(st.sampled_from(HOSTILE) | st.characters(exclude_characters=CAPTION_MARK), max_size=24).map(
    "".join
)
long_text = st.one_of(hostile_text, hostile_text.map(lambda text: text * 30))

json_scalars = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | hostile_text
json_values = st.recursive(
    json_scalars,
    lambda children: st.lists(children, max_size=4) | st.dictionaries(hostile_text, children, max_size=4),
    max_leaves=12,
)


def maybe(strategy: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.one_of(strategy, json_values)


# Record-shaped values whose every field may be anything at all.
participant_any = maybe(st.fixed_dictionaries({}, optional={"name": maybe(long_text), "company": maybe(hostile_text)}))
representation_any = maybe(
    st.fixed_dictionaries(
        {},
        optional={
            "participants": maybe(st.lists(participant_any, max_size=6)),
            "purpose": maybe(long_text),
            "event_date": maybe(hostile_text),
            "denied": maybe(st.booleans()),
        },
    )
)
question_any = maybe(
    st.fixed_dictionaries(
        {},
        optional={
            "type": maybe(st.sampled_from(["representation", "context", "resend", "photo"])),
            "status": maybe(st.sampled_from(["open", "moved_to_app", "answered", "expired"])),
        },
    )
)
context_any = maybe(
    st.fixed_dictionaries(
        {},
        optional={
            "channel": maybe(st.sampled_from(["whatsapp", "mail_hunt", "peppol"])),
            "representation": representation_any,
            "user_note": maybe(long_text),
            "context_answer": maybe(st.fixed_dictionaries({}, optional={"raw_answer": maybe(long_text)})),
            "pending_question": question_any,
            "caption": maybe(long_text),
        },
    )
)
item_any = maybe(st.fixed_dictionaries({}, optional={"document_id": json_values, "extracted_data": json_values}))

# Well-formed records: every field has its documented type, the text is hostile.
nullable_text = st.none() | long_text
participant_ok = st.fixed_dictionaries({"name": long_text, "company": st.none() | hostile_text})
representation_ok = st.fixed_dictionaries(
    {
        "participants": st.lists(participant_ok, max_size=30),
        "purpose": nullable_text,
        "event_date": st.none() | hostile_text,
        "raw_answer": hostile_text,
        "answered_at": st.just("2026-08-01T10:00:00Z"),
    },
    optional={"denied": st.booleans()},
)
context_ok = st.fixed_dictionaries(
    {"channel": st.sampled_from(["whatsapp", "mail_hunt", "peppol"])},
    optional={
        "representation": representation_ok,
        "user_note": nullable_text,
        "context_answer": st.fixed_dictionaries({"raw_answer": long_text, "answered_at": st.just("x")}),
        "pending_question": st.fixed_dictionaries(
            {
                "type": st.sampled_from(["representation", "context", "resend"]),
                "asked_at": st.just("x"),
                "status": st.sampled_from(["open", "answered", "moved_to_app"]),
            }
        ),
        "caption": st.none() | hostile_text.map(lambda text: CAPTION_MARK + text + CAPTION_MARK),
    },
)

BLOCK_START = re.compile(r"[#>|`*+\-]")


def assert_prompt_lines_are_safe(lines: list[str]) -> None:
    for line in lines:
        assert not BLOCK_START.match(line), line
        # Only the start: a value that flattens to nothing ("#", "\t") leaves
        # the reference's prefix with its trailing space.
        assert line == line.lstrip(JS_WHITESPACE), line
        assert not any(char in line for char in JS_LINE_TERMINATORS), line
        assert CAPTION_MARK not in line, line
    assert sum(line.startswith(OPEN_QUESTION_MARKER) for line in lines) <= 1


@BOUNDED
@given(json_values)
def test_no_json_value_at_all_makes_anything_raise(value: Any) -> None:
    analysis = analyse(value)
    assert all(isinstance(problem, str) for problem in analysis.problems)
    assert analysis.summary == summarise(value)
    render_lines(analysis.summary)
    render_notes(value)
    render_agent_view(value, value, value)
    for case in ({"channel_context": value, "item": value}, {"flatten": value}, value):
        dump_line(render_case(case))


@BOUNDED
@given(context_any, item_any)
def test_records_with_anything_in_any_field_render_safely(ctx: Any, item: Any) -> None:
    analysis = analyse(ctx)
    lines = render_lines(analysis.summary)
    assert_prompt_lines_are_safe(lines)
    notes = render_notes(ctx)
    assert notes is None or 0 < utf16_length(notes) <= 220
    out = render_case({"channel_context": ctx, "item": item})
    assert out["lines"] == lines
    problems = out["problems"]
    assert isinstance(problems, list)
    # The record's own problems first, then any the item adds.
    assert problems[: len(analysis.problems)] == list(analysis.problems)
    dump_line(out)


@BOUNDED
@given(context_ok)
def test_well_formed_records_have_no_problems_and_safe_lines(ctx: dict[str, Any]) -> None:
    analysis = analyse(ctx)
    assert analysis.problems == ()
    lines = render_lines(analysis.summary)
    assert_prompt_lines_are_safe(lines)
    view = render_agent_view("doc", None, ctx)
    assert_prompt_lines_are_safe([line.removeprefix("    - ") for line in view[1 : 1 + len(lines)]])
    notes = render_notes(ctx)
    assert notes is None or 0 < utf16_length(notes) <= 220


@BOUNDED
@given(context_ok)
def test_a_denial_never_produces_syfte_saknas(ctx: dict[str, Any]) -> None:
    rep = ctx.get("representation")
    if rep is not None:
        rep["denied"] = True
    summary = summarise(ctx)
    assert all(not line.startswith("syfte SAKNAS") for line in render_lines(summary))
    if rep is not None:
        assert summary is not None
        assert summary.representation_denied
        assert not summary.representation_purpose_missing


@BOUNDED
@given(st.text() | hostile_text)
def test_flatten_leaves_one_trimmed_line_without_markdown_runs(text: str) -> None:
    flat = flatten(text)
    assert not any(char in flat for char in JS_WHITESPACE.replace(" ", ""))
    assert "  " not in flat
    assert flat == flat.strip(" ")
    assert not re.search(r"[#>`*_|-]{2}", flat)


JS_SPACE_RUN = re.compile(f"[{JS_WHITESPACE}]+")
MARKDOWN_RUN = re.compile(r"[#>`*_|-]{2,}")
LEADING = re.compile(f"^(?:[#>|`]+[{JS_WHITESPACE}]*|[-*+][{JS_WHITESPACE}]+)+")


def flatten_memory_content(content: str) -> str:
    """The reference's four steps, transcribed one to one, with no shortcut."""
    content = JS_SPACE_RUN.sub(" ", content)
    content = MARKDOWN_RUN.sub(lambda run: run.group()[0], content)
    content = LEADING.sub("", content, count=1)
    return content.strip(JS_WHITESPACE)


@BOUNDED
@given(st.text() | hostile_text | st.sampled_from(["2026-07-30", "a--b", "- x", "+ x", "a ", " a", "a  b", "x-_y"]))
def test_flatten_equals_the_reference_steps_shortcuts_included(text: str) -> None:
    assert flatten(text) == flatten_memory_content(text)
