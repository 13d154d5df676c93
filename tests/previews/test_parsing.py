"""Pasted JSON: errors with line and column, and limits that answer quickly."""

from __future__ import annotations

import time

import pytest

from reviewapp.previews.parsing import MAX_DEPTH, MAX_INPUT_BYTES, InvalidJson, parse_json


def test_a_syntax_error_names_its_line_and_column():
    text = '{\n  "channel": "whatsapp",\n  "user_note": "x",,\n  "caption": "y"\n}'
    bad_line = text.splitlines()[2]
    with pytest.raises(InvalidJson) as caught:
        parse_json(text)
    assert caught.value.line == 3
    # The second comma of ",," is where a property name was wanted (1-based).
    assert caught.value.column == bad_line.index(",,") + 2
    assert "line 3, column" in caught.value.message


def test_the_excerpt_puts_a_caret_under_the_column():
    text = "[1, 2,\n 3 4]"
    with pytest.raises(InvalidJson) as caught:
        parse_json(text)
    shown, caret = caught.value.excerpt.splitlines()
    assert shown == " 3 4]"
    assert caret.index("^") == shown.index("4")


def test_a_100_000_deep_array_is_refused_quickly_without_a_recursion_error():
    text = "[" * 100_000
    start = time.perf_counter()
    with pytest.raises(InvalidJson) as caught:
        parse_json(text)
    assert time.perf_counter() - start < 0.5
    assert caught.value.line == 1
    assert caught.value.column == MAX_DEPTH + 1
    assert "nested deeper than 64 levels" in caught.value.message


def test_nesting_is_allowed_up_to_the_limit_and_refused_one_past_it():
    assert parse_json("[" * 64 + "]" * 64) is not None
    with pytest.raises(InvalidJson, match="nested deeper"):
        parse_json("{" + '"a":' * 0 + "[" * 64 + "]" * 64 + "}")


def test_brackets_inside_strings_do_not_count_as_nesting():
    text = '{"user_note": "' + "[{" * 500 + '\\"[[[' + '"}'
    assert parse_json(text)["user_note"].startswith("[{[{")


def test_nan_is_refused_like_json_parse_refuses_it():
    with pytest.raises(InvalidJson, match="NaN"):
        parse_json('{"totals": {"total": NaN}}')


def test_text_over_the_size_limit_is_refused_before_parsing():
    text = '"' + "x" * MAX_INPUT_BYTES + '"'
    with pytest.raises(InvalidJson, match="KiB"):
        parse_json(text)


def test_empty_text_is_an_error_not_a_null():
    with pytest.raises(InvalidJson, match="empty"):
        parse_json("  \n ")


def test_too_deep_on_a_later_line_names_that_line_and_column_and_shows_60_characters_either_side():
    # Found by mutation testing: every too-deep text in the tests was one line long,
    # so the line count and the column after a newline were never checked.
    text = '{\n  "a": ' + "[" * 70 + "1" + "]" * 70 + "\n}"
    second = text.splitlines()[1]
    # '{' is one level; the 64th '[' of the second line is the 65th level.
    column = second.index("[") + 64
    with pytest.raises(InvalidJson) as caught:
        parse_json(text)
    assert (caught.value.line, caught.value.column) == (2, column)
    # "at most 60 characters either side" of the offending one, cut on the left with "…".
    shown, caret = caught.value.excerpt.split("\n")
    assert shown == "…" + second[column - 61 : column + 60]
    assert caret == " " * 61 + "^"
    assert shown[61] == "["


def test_empty_text_has_no_excerpt():
    with pytest.raises(InvalidJson) as caught:
        parse_json("")
    assert caught.value.excerpt == ""


def test_the_line_and_column_count_every_newline_before_the_place_and_none_after():
    # A newline first and last, more lines after the place than before it.
    text = '\n{\n  "x": 1,\n  "a": ' + "[" * 70 + "1" + "]" * 70 + "\n}\n\n\n\n"
    fourth = text.split("\n")[3]
    with pytest.raises(InvalidJson) as caught:
        parse_json(text)
    assert (caught.value.line, caught.value.column) == (4, fourth.index("[") + 64)


def test_an_error_after_the_last_line_break_names_the_empty_line_and_shows_no_excerpt():
    with pytest.raises(InvalidJson) as caught:
        parse_json("[1,\n")
    assert (caught.value.line, caught.value.column) == (2, 1)
    assert caught.value.excerpt == ""
