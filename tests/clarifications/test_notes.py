"""render_notes(): the one line put on the verifikat.

The 220 cap counts UTF-16 code units (JavaScript's length). Expectations
with emoji at the boundary were worked out from ``String.prototype.slice``
semantics and checked against Node 20.
"""

from typing import Any

import pytest

from clarifications import render_notes
from tests.clarifications.records import person, rep, wa

CASES = [
    (None, None),
    (wa(), None),
    (wa(caption="  kvitto  "), "kvitto"),
    (wa(representation=rep([], denied=True)), None),
    # The notes renderer does not look at `denied`: a caption still shows…
    (wa(caption=" bild ", representation=rep([], denied=True)), "bild"),
    # …and so do names stored next to a denial.
    (wa(representation=rep([person("Anna")], denied=True)), "Representation: Anna"),
    (wa(representation=rep([person("  ")], "   "), caption=" kvitto "), "kvitto"),
    (
        wa(representation=rep([person(" Jakob W ", "  "), person("Anna", " Volvo ")], " lunch ")),
        "Representation: Jakob W, Anna (Volvo) · Syfte: lunch",
    ),
    (
        wa(representation=rep([person("Anna Berg", "Volvo")], "avtalslunch"), user_note="Betald privat", caption="x"),
        "Representation: Anna Berg (Volvo) · Syfte: avtalslunch · Betald privat",
    ),
    # Voucher text is not a prompt: it is trimmed, not flattened.
    (wa(user_note="rad1\n\n# rad2 "), "rad1\n\n# rad2"),
    # Exactly 220 units (110 emoji) fits; one more unit does not, and the
    # cut at 219 units splits an emoji, keeping its high surrogate.
    (wa(user_note="😀" * 110), "😀" * 110),
    (wa(user_note="😀" * 110 + "a"), "😀" * 109 + "\ud83d…"),
    (wa(user_note="a" * 218 + "😀" + "b" * 10), "a" * 218 + "\ud83d…"),
    # JavaScript white space before the cut is trimmed away.
    (wa(user_note="a" * 210 + "\u00a0\u3000" * 10 + "b"), "a" * 210 + "…"),
    # Two 100-character names plus the prefix: 218 units, fits.
    (wa(representation=rep([person("a" * 100), person("b" * 100)])), "Representation: " + "a" * 100 + ", " + "b" * 100),
]


@pytest.mark.parametrize(("ctx", "expected"), CASES)
def test_notes_match_the_reference(ctx: Any, expected: str | None) -> None:
    assert render_notes(ctx) == expected


def test_names_are_dropped_whole_and_counted() -> None:
    ctx = wa(representation=rep([person(f"N{i:02d}") for i in range(60)], "syfte"))
    # 16 (prefix) + 35 names of 3 + 34 separators of 2 + " … och 25 till" (14)
    # + " · Syfte: syfte" (15) = 218 units; a 36th name would make 223.
    expected = "Representation: " + ", ".join(f"N{i:02d}" for i in range(35)) + " … och 25 till · Syfte: syfte"
    assert render_notes(ctx) == expected


def test_names_alone_dropped_to_exactly_220_units_keep_the_last_name_that_fits() -> None:
    # No purpose and no note: the prefix (16) + 8 names of 22 + 7 separators (14) + " … och 10 till" (14)
    # = 220 units, exactly the cap: the eighth name stays.
    names = [f"Deltagare nummer {i:02d} AB" for i in range(18)]
    ctx = wa(representation=rep([person(name) for name in names]))
    expected = "Representation: " + ", ".join(names[:8]) + " … och 10 till"
    assert len(expected) == 220
    assert render_notes(ctx) == expected


def test_a_name_that_would_overshoot_the_cap_by_two_units_is_dropped() -> None:
    # 24 names of 6 with their 23 separators and " … och 106 till" would be 16 + 144 + 46 + 16 = 222 units;
    # 23 names and " … och 107 till" are 16 + 138 + 44 + 15 = 213.
    names = [f"Bo{i:04d}" for i in range(130)]
    ctx = wa(representation=rep([person(name) for name in names]))
    assert render_notes(ctx) == "Representation: " + ", ".join(names[:23]) + " … och 107 till"


def test_when_even_one_name_does_not_fit_with_a_long_purpose_one_name_stays() -> None:
    ctx = wa(representation=rep([person("Anna"), person("Bo"), person("Cecilia")], "x" * 250))
    # One name, the rest counted, then the purpose, cut to 219 units and "…".
    assert render_notes(ctx) == ("Representation: Anna … och 2 till · Syfte: " + "x" * 250)[:219] + "…"


def test_emoji_count_double_when_names_are_dropped() -> None:
    name = "😀" * 20 + " (" + "🏢" * 10 + ")"  # 63 units, 33 code points
    ctx = wa(representation=rep([person("😀" * 20, "🏢" * 10) for _ in range(5)], "Middag"))
    assert render_notes(ctx) == f"Representation: {name}, {name} … och 3 till · Syfte: Middag"


def test_one_name_always_stays_and_the_rest_is_cut_with_an_ellipsis() -> None:
    ctx = wa(representation=rep([person("Å" * 300, "AB"), person("Bo")], "x"))
    # 219 units kept: the 16-unit prefix and 203 of the 300 letters.
    assert render_notes(ctx) == "Representation: " + "Å" * 203 + "…"


def test_thousands_of_names_are_handled_in_linear_time() -> None:
    ctx = wa(representation=rep([person(f"Person {i}") for i in range(20_000)]))
    notes = render_notes(ctx)
    assert notes is not None
    assert notes.endswith(" … och 19982 till")
