"""flatten(): the free-text defence in front of every prompt line.

Expectations beyond the golden file were derived from the JavaScript
semantics (``\\s``, ``trim()`` and the three regular expressions of
``flattenMemoryContent``) and checked against Node 20 in a throwaway script.
"""

import pytest

from clarifications import flatten

WHITE_SPACE = [
    # JavaScript's white space collapses, including U+FEFF and U+2028/2029…
    ("a\u00a0\u00a0b", "a b"),
    ("\ufeffa\ufeff", "a"),
    ("a\u2028\u2029b", "a b"),
    ("\u3000\u3000x", "x"),
    ("a\x0bb\x0cc", "a b c"),
    ("första raden\r\n\r\nandra\traden", "första raden andra raden"),
    # …but not what Python's str.isspace() adds: U+0085, U+001C-U+001F,
    # and U+180E (white space before Unicode 6.3, not in V8).
    ("a\x85b\x85", "a\x85b\x85"),
    ("\x1c a \x1f", "\x1c a \x1f"),
    ("a\u180eb", "a\u180eb"),
]

MARKDOWN_RUNS = [
    ("x---y", "x-y"),
    ("x_-_y", "x_y"),
    ("*_*", "*"),
    ("|||", ""),
    ("#hashtag ##tag", "hashtag #tag"),
    ("--5", "-5"),
    # `+` is a bullet but not part of a run.
    ("+-5", "+-5"),
    ("++ x", "++ x"),
]

LEADING_MARKERS = [
    ("#- x", "x"),
    ("+ + x", "x"),
    ("-_- x", "x"),
    ("- - -", "-"),
    (">>> citat", "citat"),
    ("#>|`x", "x"),
    ("`` `` kod", "kod"),
    ("> - > - svar", "svar"),
    ("* * * rubrik", "rubrik"),
    ("- 😀", "😀"),
    ("- ", ""),
    ("-", "-"),
    # A sign is not a bullet, a number list is not defused.
    ("-5", "-5"),
    ("- -5", "-5"),
    ("1. punkt", "1. punkt"),
    # Markers are only stripped at the very start, before the final trim:
    # a leading space protects them, exactly as in the reference.
    (" # x", "# x"),
    ("\u00a0- punkt", "- punkt"),
    ("😀 - x", "😀 - x"),
    ("a | b", "a | b"),
]

UNCHANGED = ["Anna Berg", "2026-07-30", "Karlsson-Berg", "mail_hunt", "Företaget AB 3", ""]


@pytest.mark.parametrize(("text", "expected"), WHITE_SPACE)
def test_every_javascript_white_space_run_becomes_one_space(text: str, expected: str) -> None:
    assert flatten(text) == expected


@pytest.mark.parametrize(("text", "expected"), MARKDOWN_RUNS)
def test_a_run_of_markdown_characters_keeps_only_its_first(text: str, expected: str) -> None:
    assert flatten(text) == expected


@pytest.mark.parametrize(("text", "expected"), LEADING_MARKERS)
def test_leading_block_markers_are_removed_but_signs_survive(text: str, expected: str) -> None:
    assert flatten(text) == expected


@pytest.mark.parametrize("text", UNCHANGED)
def test_ordinary_text_comes_back_unchanged(text: str) -> None:
    assert flatten(text) == text


def test_a_lone_surrogate_passes_through_like_any_other_character() -> None:
    # JSON.parse accepts "\ud83d"; JavaScript strings are UTF-16 code units.
    assert flatten("\ud83d - x") == "\ud83d - x"
    assert flatten("- \ud83d") == "\ud83d"
