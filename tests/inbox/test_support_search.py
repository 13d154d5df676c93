"""Support's list: why each search hit matched, refused filters shown, answered items of one question type."""

from __future__ import annotations

import re
import uuid

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from tests import factories
from tests.html import texts

pytestmark = pytest.mark.django_db

URL = reverse("inbox")
ASKED = "2026-08-01T09:00:00Z"


def _representation(names: list[str], purpose: str, raw: str, *, status: str = "answered") -> dict:  # type: ignore[type-arg]
    return {
        "channel": "whatsapp",
        "pending_question": {"type": "representation", "asked_at": "2026-08-01T09:00:00.000Z", "status": status},
        "representation": {
            "participants": [{"name": name, "company": "Kund AB"} for name in names],
            "purpose": purpose,
            "event_date": None,
            "raw_answer": raw,
            "answered_at": "2026-08-01T10:00:00.000Z",
        },
    }


def _why(response) -> list[str]:  # type: ignore[no-untyped-def]
    """Each row's reasons as HTML, one string per row that has any."""
    return re.findall(r'<ul class="match-why"[^>]*>(.*?)</ul>', response.content.decode(), flags=re.S)


# --- Why a hit matched -------------------------------------------------------------


def test_a_hit_names_the_field_and_marks_the_word(support_client):
    factories.make_item(channel_context=_representation(["Anna Berg"], "Kundmöte", "Anna Berg från Kund AB"))

    response = support_client.get(URL, {"q": "berg"})

    (why,) = _why(response)
    assert '<span class="match-field">Participant:</span> Anna <mark>Berg</mark>' in why
    assert '<span class="match-field">Stored answer (raw_answer):</span> Anna <mark>Berg</mark> från Kund AB' in why


def test_words_found_in_different_fields_are_each_named(support_client):
    factories.make_item(
        channel_context=_representation(["Bo Ek"], "Kundmöte om hösten", "bo ek"),
        extracted_data={"supplier": {"name": "ICA Maxi"}},
    )

    response = support_client.get(URL, {"q": "ica KUNDMÖTE"})

    (why,) = _why(response)
    assert "Supplier:</span> <mark>ICA</mark> Maxi" in why
    assert "Purpose:</span> <mark>Kundmöte</mark> om hösten" in why


def test_the_text_around_the_marks_is_escaped(support_client):
    factories.make_item(channel_context=_representation(["<b>Berg</b> & co"], "x", "y"))

    (why,) = _why(support_client.get(URL, {"q": "berg"}))

    assert "&lt;b&gt;<mark>Berg</mark>&lt;/b&gt; &amp; co" in why
    assert "<b>" not in why


def test_an_item_found_by_the_start_of_its_id_says_so(support_client):
    item = factories.make_item(channel_context={"channel": "whatsapp", "user_note": "papper"})
    start = str(item.pk)[:8]
    # Another item's note holds the same characters, so the search lists both instead of opening the one.
    factories.make_item(channel_context={"channel": "whatsapp", "user_note": f"ref {start}"})

    reasons = _why(support_client.get(URL, {"q": start}))

    assert any(f"Item id:</span> <mark>{start}</mark>{str(item.pk)[8:]}" in why for why in reasons)


def test_a_long_text_shows_the_part_around_the_match(support_client):
    note = "början " + "fyllnad " * 40 + "nyckelordet " + "slut " * 40
    factories.make_item(channel_context={"channel": "whatsapp", "user_note": note})

    (why,) = _why(support_client.get(URL, {"q": "nyckelordet"}))

    assert "<mark>nyckelordet</mark>" in why
    assert why.count("…") == 2  # cut before and after
    assert "början" not in why
    assert len(re.sub(r"<[^>]+>", "", why)) < 200


def test_a_list_without_a_search_says_nothing_of_matches_and_does_not_read_them(support_client):
    factories.make_item(channel_context=_representation(["Anna Berg"], "Kundmöte", "Anna"))

    with CaptureQueriesContext(connection) as queries:
        response = support_client.get(URL, {"sort": "received"})

    assert _why(response) == []
    rows_query = next(q["sql"] for q in queries.captured_queries if "reviewapp_reservation" in q["sql"])
    assert "search_fields" not in rows_query


@pytest.mark.parametrize(
    ("text", "spans", "html"),
    [
        ("Lunch med Anna", [(10, 14)], "Lunch med <mark>Anna</mark>"),
        ("a<b", [(0, 1)], "<mark>a</mark>&lt;b"),
        ("", [], ""),
    ],
)
def test_marked_escapes_and_marks(text, spans, html):
    from reviewapp.inbox.matches import marked

    assert marked(text, spans) == html


def test_a_letter_that_lowercases_longer_is_marked_in_place():
    # "İ".lower() is two characters: the mark must still cover the original letters.
    from reviewapp.inbox.matches import row_matches

    (match,) = row_matches(uuid.uuid4(), [["participant", "İsmail Öz"]], "öz")
    assert match.html == "İsmail <mark>Öz</mark>"


def test_malformed_search_fields_are_skipped():
    from reviewapp.inbox.matches import row_matches

    assert row_matches(uuid.uuid4(), [["note"], ["note", 3], "x", ["note", "ja"]], "ja")[0].html == "<mark>ja</mark>"
    assert row_matches(uuid.uuid4(), {"note": "ja"}, "ja") == []
    assert row_matches(uuid.uuid4(), None, "ja") == []  # a row indexed without its fields


def test_a_colleagues_note_that_holds_the_word_is_named_and_marked(support_client, support):
    from reviewapp.items import notes

    item = factories.make_item(channel_context={"channel": "whatsapp", "user_note": "kvitto lunch"})
    notes.add_note(item.pk, item.company_id, support, "Ring Lisa om kvittot")

    (why,) = _why(support_client.get(URL, {"q": "Lisa kvitto"}))

    assert '<span class="match-field">Team note:</span> Ring <mark>Lisa</mark> om <mark>kvittot</mark>' in why


def test_an_id_typed_with_its_dashes_is_marked_up_to_where_the_typing_stopped():
    from reviewapp.inbox.matches import row_matches

    item_id = uuid.UUID("0f8fad5b-d9cb-469f-a165-70867728950e")
    (match,) = row_matches(item_id, [], "0F8FAD5B-D9CB-46")
    assert (match.label, match.html) == ("Item id", "<mark>0f8fad5b-d9cb-46</mark>9f-a165-70867728950e")


def test_two_search_words_in_one_word_mark_it_once():
    from reviewapp.inbox.matches import row_matches

    # "ann" and "anna" both lie in "Annakarin": one mark over the whole word, not two, not an empty one.
    (match,) = row_matches(uuid.uuid4(), [["participant", "Annakarin Berg"]], "ann anna")
    assert match.html == "<mark>Annakarin</mark> Berg"


def test_a_row_names_at_most_four_fields_in_the_read_models_order():
    from reviewapp.inbox.matches import row_matches

    fields = [[key, f"möte {key}"] for key in ("supplier", "note", "raw_answer", "purpose", "participant")]
    matched = row_matches(uuid.uuid4(), fields, "möte")
    assert [match.field for match in matched] == ["supplier", "note", "raw_answer", "purpose"]


def test_a_long_word_holding_the_match_is_not_cut_away_at_the_windows_end():
    from reviewapp.inbox.matches import row_matches

    # The first mark runs past where the window ends: the window ends inside it rather than before it.
    long_word = "nyckel" + "o" * 200
    (match,) = row_matches(uuid.uuid4(), [["note", f"xxxxxxxxxx {long_word}"]], "nyckel")
    assert match.html == f"xxxxxxxxxx <mark>{long_word[:109]}</mark>…"


# --- A refused filter is shown -------------------------------------------------------


def test_an_unknown_state_is_named_in_the_alert_above_the_rows(support_client):
    response = support_client.get(URL, {"state": "answerd", "q": ""})

    alert = " ".join(texts(response.content.decode(), id="filter-errors")[0].split())
    assert "State: “answerd” is not a state. The states are: needs_answer, on_hold, waiting_in_chat," in alert


def test_an_htmx_refresh_shows_the_refused_state_too(support_client):
    response = support_client.get(URL, {"state": ["answered", "nonsense"]}, HTTP_HX_REQUEST="true")

    alert = " ".join(texts(response.content.decode(), id="filter-errors")[0].split())
    assert "“nonsense” is not a state" in alert


def test_the_api_refuses_an_unknown_state_with_the_reason(support_client):
    response = support_client.get(reverse("api_items"), {"state": "nonsense"})

    assert response.status_code == 400
    (error,) = response.json()["fields"]["state"]
    assert error["message"].startswith("“nonsense” is not a state. The states are: needs_answer,")


# --- Answered items of one question type ---------------------------------------------------


def test_answered_can_be_combined_with_a_question_type(support_client):
    representation = factories.make_item(channel_context=_representation(["Anna"], "Möte", "Anna, möte"))
    context = factories.make_item(
        channel_context={
            "channel": "whatsapp",
            "user_note": "Papper",
            "context_answer": {"raw_answer": "papper", "answered_at": "2026-08-01T10:00:00.000Z"},
            "pending_question": {"type": "context", "asked_at": "2026-08-01T09:00:00.000Z", "status": "answered"},
        }
    )
    factories.make_item(  # open, not answered
        channel_context={
            "channel": "whatsapp",
            "pending_question": {"type": "representation", "asked_at": ASKED, "status": "moved_to_app"},
        }
    )

    response = support_client.get(URL, {"state": "answered", "type": "representation"})
    shown = re.findall(r'class="row-link" href="/items/([0-9a-f-]{36})/', response.content.decode())

    assert shown == [str(representation.pk)]
    assert 'data-state="answered">1<' in response.content.decode()
    api = support_client.get(reverse("api_items"), {"state": "answered", "type": "context"}).json()
    assert [row["id"] for row in api["results"]] == [str(context.pk)]
    assert api["results"][0]["answered_question_type"] == "context"
    assert api["count"] == 1


def test_a_type_alone_lists_open_and_answered_questions_of_it(support_client):
    answered = factories.make_item(channel_context=_representation(["Anna"], "Möte", "Anna"))
    waiting = factories.make_item(
        channel_context={
            "channel": "whatsapp",
            "pending_question": {"type": "representation", "asked_at": ASKED, "status": "moved_to_app"},
        }
    )

    api = support_client.get(reverse("api_items"), {"type": "representation"}).json()

    assert {row["id"] for row in api["results"]} == {str(answered.pk), str(waiting.pk)}


def test_an_answered_row_says_which_question_it_answered(support_client):
    factories.make_item(channel_context=_representation(["Anna"], "Möte", "Anna"))

    page = support_client.get(URL, {"state": "answered"}).content.decode()

    assert '<span class="question-type">Representation (participants and purpose)</span>' in page
    assert "owner-answered" in page


# --- A hit is shown as whole words ----------------------------------------------------


def test_a_one_letter_word_is_marked_where_it_stands_alone_and_not_inside_another_word():
    from reviewapp.inbox.matches import row_matches

    (supplier, note) = row_matches(
        uuid.uuid4(), [["supplier", "Scandic Malmö"], ["note", "Hotell under mässan i Malmö"]], "i malmö"
    )
    assert supplier.html == "Scandic <mark>Malmö</mark>"
    assert note.html == "Hotell under mässan <mark>i</mark> <mark>Malmö</mark>"


def test_part_of_a_word_marks_the_whole_word():
    from reviewapp.inbox.matches import row_matches

    (match,) = row_matches(uuid.uuid4(), [["supplier", "Scandic Hotels"]], "scand")
    assert match.html == "<mark>Scandic</mark> Hotels"


def test_a_long_text_is_cut_between_words_around_the_match():
    from reviewapp.inbox.matches import row_matches

    words = ["Konferens", "med", "kunden", "och", "hotell", "under", "mässan"]
    before = " ".join(words * 4)
    text = f"{before} i Malmö med Scandic {' '.join(words * 4)}"
    (match,) = row_matches(uuid.uuid4(), [["note", text]], "scandic")
    shown = re.sub(r"</?mark>", "", match.html)
    assert "<mark>Scandic</mark>" in match.html
    assert shown.startswith("…")
    assert shown.endswith("…")
    # Every word shown whole: the window's ends are the text's own words, not pieces of them.
    for piece in shown.strip("…").split():
        assert piece in {*words, "i", "Malmö", "Scandic"}, piece
    assert text.index(shown.strip("…")) >= 0
