"""Golden cases QA maintain: accept the current output, rename, tags, delete, the word diff, the playground's save."""

from __future__ import annotations

import io
import json
import re
from typing import Any

import pytest
from django.core.management import call_command
from django.test import Client
from django.urls import reverse

import clarifications.cli
from reviewapp.models import GoldenCase, GoldenCaseChange
from reviewapp.previews.golden import (
    CaseResult,
    canonical,
    check,
    classify_diff,
    mark_words,
    natural_key,
    save_golden_case,
    word_diff,
)
from reviewapp.previews.maintenance import MAX_TAGS, digest
from reviewapp.previews.rendering import input_for_item
from tests import factories
from tests.html import form_of, text_of, texts
from tests.previews.conftest import GOLDEN, golden_records

RECORDS = {r["name"]: r for r in golden_records()}
HTMX = {"HTTP_HX_REQUEST": "true"}
PARAGRAPH = RECORDS["full answer"]["expected"]["agent_view"][-1]


@pytest.fixture
def imported(db) -> None:  # type: ignore[no-untyped-def]
    call_command("golden_import", str(GOLDEN), stdout=io.StringIO())


def detail_url(case: GoldenCase) -> str:
    return reverse("golden_case_detail", args=[case.pk])


def outdated(name: str, **changes: Any) -> GoldenCase:
    """The shared case as an older renderer would have stored it: ``changes`` replace expected outputs."""
    case = GoldenCase.objects.get(name=name)
    case.expected = {**case.expected, **changes}
    case.save()
    return case


def same_outputs(stored: dict[str, Any], expected: dict[str, Any]) -> bool:
    return all(canonical(stored[key]) == canonical(value) for key, value in expected.items())


def accept_data(client, case) -> dict[str, str]:  # type: ignore[no-untyped-def]
    """The accept form as the confirmation page offers it, with what its button sends."""
    form = form_of(client.get(reverse("golden_case_accept", args=[case.pk])).content.decode(), "golden-accept")
    assert form.action == reverse("golden_case_accept", args=[case.pk])
    (button,) = form.submit_buttons
    return {**dict(form.fields), button["name"]: button["value"]}


# --- Accept the current output ------------------------------------------------------


def test_qa_accepts_the_current_output_and_the_change_is_logged(qa, qa_client, imported):
    old_notes = "Representation: Anna Berg (Volvo), Jakob W · Syfte: Kundmöte"
    case = outdated("full answer", notes=old_notes)
    stored_before = dict(case.expected)

    response = qa_client.post(reverse("golden_case_accept", args=[case.pk]), accept_data(qa_client, case))

    assert response.status_code == 302
    assert response["Location"] == detail_url(case)
    case.refresh_from_db()
    assert same_outputs(case.expected, RECORDS["full answer"]["expected"])
    assert texts(qa_client.get(reverse("golden_cases")).content.decode(), cls="golden-fail") == []
    change = GoldenCaseChange.objects.get(case=case)
    assert (change.kind, change.changed_by, change.case_name) == ("accepted", qa, "full answer")
    assert change.old == stored_before
    assert change.new["notes"] == RECORDS["full answer"]["expected"]["notes"]
    page = qa_client.get(detail_url(case)).content.decode()
    assert "Accepted the current output" in " ".join(text_of(page, "golden-changes").split())
    assert "by qarin" in " ".join(text_of(page, "golden-changes").split())
    assert old_notes in text_of(page, "golden-changes")


def test_an_accept_is_refused_when_someone_changed_the_case_since(qa_client, imported):
    case = outdated("full answer", notes="gammalt")
    seen = accept_data(qa_client, case)
    outdated("full answer", notes="ännu äldre")  # another QA's change in between

    response = qa_client.post(reverse("golden_case_accept", args=[case.pk]), seen, follow=True)

    case.refresh_from_db()
    assert case.expected["notes"] == "ännu äldre"
    assert not GoldenCaseChange.objects.exists()
    assert "Someone changed this case since you opened it" in response.content.decode()


def test_an_accept_is_refused_when_the_rendering_changed_since_it_was_compared(qa_client, imported, monkeypatch):
    case = outdated("denial", lines=["gammal rad"])
    seen = accept_data(qa_client, case)
    original = clarifications.cli.render_lines
    monkeypatch.setattr(clarifications.cli, "render_lines", lambda s: [x.lower() for x in original(s)])

    response = qa_client.post(reverse("golden_case_accept", args=[case.pk]), seen, follow=True)

    case.refresh_from_db()
    assert case.expected["lines"] == ["gammal rad"]
    assert "The current output changed since you compared it" in response.content.decode()


def test_a_passing_case_offers_no_accept(qa_client, imported):
    case = GoldenCase.objects.get(name="denial")
    assert texts(qa_client.get(detail_url(case)).content.decode(), id="golden-accept-link") == []
    confirm = qa_client.get(reverse("golden_case_accept", args=[case.pk])).content.decode()
    assert texts(confirm, id="golden-accept") == []
    assert "Nothing to accept" in text_of(confirm, "golden-accept-nothing")


# --- The word diff -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("before", "after", "marked_before", "marked_after"),
    [
        ("lunch med Anna", "lunch med Bo", "lunch med <del>Anna</del>", "lunch med <ins>Bo</ins>"),
        ("väger tyngre än", "väger mer än", "väger <del>tyngre</del> än", "väger <ins>mer</ins> än"),
        ("a b", "a b c", "a b", "a b<ins> c</ins>"),
        ("Syfte: Kundmöte.", "Syfte: Kundmöte", "Syfte: Kundmöte<del>.</del>", "Syfte: Kundmöte"),
        ("<b>gammal</b>", "<b>ny</b>", "&lt;b&gt;<del>gammal</del>&lt;/b&gt;", "&lt;b&gt;<ins>ny</ins>&lt;/b&gt;"),
        ("same", "same", "same", "same"),
    ],
)
def test_mark_words_marks_only_the_words_that_differ(before, after, marked_before, marked_after):
    assert mark_words(before, after) == (marked_before, marked_after)


def test_each_diff_line_gets_the_kind_the_page_styles_it_by():
    lines = ["--- expected lines", "+++ actual lines", "@@ -1,2 +1,2 @@", "-gammal", "+ny", " samma"]
    kinds = [line.kind for line in classify_diff(lines)]
    assert kinds == ["file", "file", "hunk", "remove", "add", "same"]
    assert [line.html for line in classify_diff([" <b>&"])] == [" &lt;b&gt;&amp;"]


def test_a_diff_ending_in_removed_lines_keeps_them_whole():
    lines = ["--- expected lines", "+++ actual lines", "@@ -1,2 +1 @@", " samma", "-borta"]
    out = word_diff(lines)
    assert [(line.kind, line.html) for line in out[-2:]] == [("same", " samma"), ("remove", "-borta")]


def test_names_sort_with_numbers_as_numbers_and_never_compare_a_number_with_a_word():
    names = ["b", "case 10", "10", "case 2", "A", "2"]
    assert sorted(names, key=natural_key) == ["2", "10", "A", "b", "case 2", "case 10"]


def test_a_one_word_change_in_the_long_agent_paragraph_is_marked_inside_the_line(qa_client, imported):
    old_paragraph = PARAGRAPH.replace("väger tyngre", "väger mer")
    agent_view = [*RECORDS["full answer"]["expected"]["agent_view"][:-1], old_paragraph]
    case = outdated("full answer", agent_view=agent_view)

    html = qa_client.get(detail_url(case)).content.decode()

    (removed,) = texts(html, cls="diff-remove")
    (added,) = texts(html, cls="diff-add")
    # The lines read as before: the whole JSON string, stored and current.
    assert removed == f"-  {json.dumps(old_paragraph, ensure_ascii=False)}"
    assert added == f"+  {json.dumps(PARAGRAPH, ensure_ascii=False)}"
    # Inside them, only the changed word is marked.
    assert texts(html, id="golden-diff")[0].count("tyngre") == 1
    assert html.count("<del>") == 1
    assert "<del>mer</del>" in html
    assert html.count("<ins>") == 1
    assert "<ins>tyngre</ins>" in html


def test_the_word_diff_is_escaped(qa_client):
    value = {"channel_context": {"channel": "whatsapp", "user_note": "<script>x</script>"}, "item": None}
    case = GoldenCase.objects.create(name="escaped", input=value, expected={"notes": "<script>y</script>"})

    html = qa_client.get(detail_url(case)).content.decode()

    assert "<script>x</script>" not in html
    assert "<script>y</script>" not in html
    assert "&lt;script&gt;<del>y</del>&lt;/script&gt;" in html
    assert "&lt;script&gt;<ins>x</ins>&lt;/script&gt;" in html


# --- Rename, tags, delete -----------------------------------------------------------


def test_qa_renames_a_case_and_the_rename_is_logged(qa, qa_client, imported):
    case = GoldenCase.objects.get(name="denial")

    response = qa_client.post(reverse("golden_case_rename", args=[case.pk]), {"name": "nej: ingen representation"})

    assert response.status_code == 302
    case.refresh_from_db()
    assert case.name == "nej: ingen representation"
    change = GoldenCaseChange.objects.get(case=case)
    assert (change.kind, change.old, change.new, change.changed_by) == ("renamed", "denial", case.name, qa)
    assert "denial → nej: ingen representation" in " ".join(
        text_of(qa_client.get(detail_url(case)).content.decode(), "golden-changes").split()
    )


def test_a_rename_to_a_taken_name_is_an_error_under_the_field(qa_client, imported):
    case = GoldenCase.objects.get(name="denial")

    response = qa_client.post(reverse("golden_case_rename", args=[case.pk]), {"name": "user note"})

    assert response.status_code == 200
    assert "A golden case with this name already exists." in text_of(response.content.decode(), "id_name_error")
    case.refresh_from_db()
    assert case.name == "denial"
    assert not GoldenCaseChange.objects.exists()


def test_qa_tags_cases_and_the_list_filters_by_tag(qa, qa_client, imported):
    denial = GoldenCase.objects.get(name="denial")
    moved = GoldenCase.objects.get(name="denial plus moved context question")
    qa_client.post(reverse("golden_case_tags", args=[denial.pk]), {"tags": " Denial , ,denial"})
    qa_client.post(reverse("golden_case_tags", args=[moved.pk]), {"tags": "denial, moved   context"})

    denial.refresh_from_db()
    moved.refresh_from_db()
    assert denial.tags == ["denial"]
    assert moved.tags == ["denial", "moved context"]
    change = GoldenCaseChange.objects.filter(case=moved).get()
    assert (change.kind, change.old, change.new) == ("tagged", [], ["denial", "moved context"])
    assert (change.changed_by, change.changed_by_label) == (qa, "qarin")

    html = qa_client.get(reverse("golden_cases"), {"tag": "Moved Context"}).content.decode()
    assert texts(html, cls="golden-pass") == [texts(html, cls="golden-pass")[0]]
    assert "denial plus moved context question" in texts(html, cls="golden-pass")[0]
    html = qa_client.get(reverse("golden_cases"), {"tag": "denial"}).content.decode()
    assert len(texts(html, cls="golden-pass")) == 2
    all_html = qa_client.get(reverse("golden_cases")).content.decode()
    assert len(texts(all_html, cls="golden-pass")) == len(RECORDS)
    assert " ".join(text_of(all_html, "golden-tags").split()) == "Tags: denial moved context"
    # A second change logs the tags it replaced.
    qa_client.post(reverse("golden_case_tags", args=[moved.pk]), {"tags": "moved context"})
    change = GoldenCaseChange.objects.filter(case=moved).latest("pk")
    assert (change.old, change.new) == (["denial", "moved context"], ["moved context"])


def test_too_many_tags_are_refused_under_the_field(qa_client, imported):
    case = GoldenCase.objects.get(name="denial")
    tags = ", ".join(f"t{n}" for n in range(MAX_TAGS + 1))

    response = qa_client.post(reverse("golden_case_tags", args=[case.pk]), {"tags": tags})

    assert response.status_code == 200
    assert "At most 20 tags." in text_of(response.content.decode(), "id_tags_error")
    case.refresh_from_db()
    assert case.tags == []


def test_delete_asks_first_then_deletes_and_keeps_the_log(qa, qa_client, imported):
    case = GoldenCase.objects.get(name="denial")
    url = reverse("golden_case_delete", args=[case.pk])
    assert texts(qa_client.get(detail_url(case)).content.decode(), id="golden-delete-link") != []

    confirm = qa_client.get(url)

    assert confirm.status_code == 200
    assert form_of(confirm.content.decode(), "golden-delete").action == url
    assert GoldenCase.objects.filter(pk=case.pk).exists()

    response = qa_client.post(url, follow=True)

    assert response.redirect_chain[-1][0] == reverse("golden_cases")
    assert "Deleted the golden case “denial”." in response.content.decode()
    assert not GoldenCase.objects.filter(pk=case.pk).exists()
    change = GoldenCaseChange.objects.get(case_name="denial")
    assert (change.kind, change.case, change.changed_by) == ("deleted", None, qa)
    # The log names who by their user name too, which stays when the account is deleted.
    assert change.changed_by_label == "qarin"
    assert change.old["input"] == RECORDS["denial"]["input"]
    assert same_outputs(change.old["expected"], RECORDS["denial"]["expected"])


# --- Permissions ---------------------------------------------------------------------


def test_support_sees_a_case_but_cannot_change_it(support_client, imported):
    case = outdated("denial", lines=["gammal rad"])
    page = support_client.get(detail_url(case)).content.decode()
    assert texts(page, id="golden-accept-link") == []
    assert support_client.get(reverse("golden_case_accept", args=[case.pk])).status_code == 403
    assert texts(page, id="golden-rename") == []
    assert texts(page, id="golden-delete-link") == []

    posts = {
        "golden_case_accept": {"expected_digest": "x", "actual_digest": "y", "confirm": "yes"},
        "golden_case_rename": {"name": "nytt namn"},
        "golden_case_tags": {"tags": "x"},
        "golden_case_delete": {},
    }
    for name, data in posts.items():
        assert support_client.post(reverse(name, args=[case.pk]), data).status_code == 403, name
    assert support_client.get(reverse("golden_case_delete", args=[case.pk])).status_code == 403
    case.refresh_from_db()
    assert (case.name, case.tags, case.expected["lines"]) == ("denial", [], ["gammal rad"])
    assert not GoldenCaseChange.objects.exists()


def test_bookkeepers_may_not_change_cases(bookkeeper_client, imported):
    case = GoldenCase.objects.get(name="denial")
    assert bookkeeper_client.post(reverse("golden_case_rename", args=[case.pk]), {"name": "x"}).status_code == 403


def test_changes_need_post_and_an_existing_case(qa_client, imported):
    case = GoldenCase.objects.get(name="denial")
    for name in ("golden_case_rename", "golden_case_tags"):
        assert qa_client.get(reverse(name, args=[case.pk])).status_code == 405
    for name in ("golden_case_accept", "golden_case_rename", "golden_case_tags"):
        assert qa_client.post(reverse(name, args=[999_999])).status_code == 404
    assert qa_client.get(reverse("golden_case_accept", args=[999_999])).status_code == 404
    assert qa_client.put(reverse("golden_case_accept", args=[case.pk])).status_code == 405
    assert qa_client.put(reverse("golden_case_delete", args=[case.pk])).status_code == 405


# --- The playground: the last good rendering, Enter saves, the item it came from ----------


def test_the_last_good_rendering_stays_while_the_json_is_invalid(qa_client):
    record = RECORDS["full answer"]
    value = record["input"]
    good = {
        "channel_context": json.dumps(value["channel_context"], ensure_ascii=False),
        "document_id": value["item"]["document_id"],
        "extracted_data": json.dumps(value["item"]["extracted_data"], ensure_ascii=False),
    }
    first = qa_client.post("/preview/", good, **HTMX).content.decode()
    (last_good,) = [v for k, v in form_of(first, "preview-form", fragment=True).fields if k == "last_good"]

    half_typed = {**good, "channel_context": good["channel_context"][:-7], "last_good": last_good}
    html = qa_client.post("/preview/", half_typed, **HTMX).content.decode()

    assert "Invalid JSON" in text_of(html, "input-errors")
    stale = text_of(html, "stale-rendering")
    assert "Stale: the last good rendering" in stale
    assert texts(html, cls="verbatim-line") == record["expected"]["lines"]
    assert text_of(html, "agent-view-text") == "\n".join(record["expected"]["agent_view"])
    # Still carried, so the next keystroke keeps it too.
    assert ("last_good", last_good) in form_of(html, "preview-form", fragment=True).fields


def test_without_a_last_good_input_an_invalid_one_renders_nothing(qa_client):
    for last_good in ("", "{not json", '{"no": "channel_context"}', "[" * 100_000):
        data = {"channel_context": "{oops", "document_id": "", "extracted_data": "", "last_good": last_good}
        html = qa_client.post("/preview/", data, **HTMX).content.decode()
        assert texts(html, id="stale-rendering") == []
        assert texts(html, cls="verbatim-line") == []


def test_enter_in_the_case_name_saves_the_case(qa_client, imported):
    source = GoldenCase.objects.get(name="full answer")
    page = qa_client.get("/preview/", {"case": source.pk}).content.decode()
    save = form_of(page, "golden-save-form")
    preview_form = form_of(page, "preview-form")

    # The name field is in the save form, whose first (default) button saves:
    # Enter in it submits that form, never the preview's Render.
    assert "name" in save.order
    assert "name" not in preview_form.order
    assert [b.get("type") for b in save.submit_buttons] == ["submit"]
    data = {**dict(save.fields), "name": "hel representation"}
    response = qa_client.post(save.action, data)

    assert response.status_code == 302
    case = GoldenCase.objects.get(name="hel representation")
    assert canonical(case.input) == canonical(RECORDS["full answer"]["input"])
    assert same_outputs(case.expected, RECORDS["full answer"]["expected"])


def test_a_case_saved_from_an_item_keeps_a_link_to_it(qa_client, company):
    context = {"channel": "whatsapp", "user_note": "kontorsmaterial"}
    item = factories.make_item(company, channel_context=context)
    page = qa_client.get("/preview/", {"item": item.pk}).content.decode()
    save = form_of(page, "golden-save-form")

    response = qa_client.post(save.action, {**dict(save.fields), "name": "från kvitto"})

    case = GoldenCase.objects.get(name="från kvitto")
    assert response["Location"] == detail_url(case)
    assert case.source_item_id == item.pk
    detail = qa_client.get(detail_url(case)).content.decode()
    assert f'href="{reverse("item_detail", args=[item.pk])}"' in detail
    assert str(item.pk) in text_of(detail, "case-source-item")


def test_the_link_survives_a_render_without_javascript(qa_client, company):
    item = factories.make_item(company, channel_context={"channel": "whatsapp", "user_note": "pärmar"})
    page = qa_client.get("/preview/", {"item": item.pk}).content.decode()
    rendered = qa_client.post("/preview/", dict(form_of(page, "preview-form").fields)).content.decode()

    assert ("source_item", str(item.pk)) in form_of(rendered, "golden-save-form").fields


def test_a_case_saved_from_the_item_page_keeps_a_link_to_it(qa_client, company):
    item = factories.make_item(company, channel_context={"channel": "whatsapp", "user_note": "pärmar"})

    qa_client.post(reverse("golden_case_create"), {"item": str(item.pk), "name": "från sidan"})

    assert GoldenCase.objects.get(name="från sidan").source_item_id == item.pk


def test_a_case_from_an_item_deleted_since_names_it_without_a_link(qa_client, company):
    item = factories.make_item(company)
    case = save_golden_case(name="borta", value=input_for_item(item), source_item_id=item.pk)
    type(item).objects.filter(pk=item.pk).delete()

    detail = qa_client.get(detail_url(case)).content.decode()

    assert "(no longer in the bookkeeping database)" in text_of(detail, "case-source-item")
    assert f'href="{reverse("item_detail", args=[item.pk])}"' not in detail


# --- The admin ---------------------------------------------------------------------


def test_a_rename_and_a_deletion_in_the_admin_are_logged_too(imported):
    admin_user = factories.make_user(username="root", is_staff=True, is_superuser=True)
    client = Client()
    client.force_login(admin_user)
    case = GoldenCase.objects.get(name="denial")
    url = reverse("admin:reviewapp_goldencase_change", args=[case.pk])
    data = {
        "name": "nej tack",
        "input": json.dumps(case.input),
        "tags": json.dumps(["admin"]),
        "_save": "Save",
    }

    assert client.post(url, data).status_code == 302

    logged = {(c.kind, json.dumps(c.old), json.dumps(c.new)) for c in GoldenCaseChange.objects.filter(case=case)}
    assert logged == {("renamed", '"denial"', '"nej tack"'), ("tagged", "[]", '["admin"]')}
    # The expected output is not editable there: only "accept" changes it.
    assert 'name="expected"' not in client.get(url).content.decode()

    client.post(reverse("admin:reviewapp_goldencase_delete", args=[case.pk]), {"post": "yes"})

    assert not GoldenCase.objects.filter(pk=case.pk).exists()
    assert GoldenCaseChange.objects.filter(kind="deleted", case_name="nej tack", changed_by=admin_user).exists()


def test_removed_lines_pair_with_added_ones_in_order_and_leftovers_stay_whole():
    lines = ["--- expected lines", "+++ actual lines", "@@ -1,3 +1,2 @@", "-a b", "-c d", "-e f", "+a x", "+c y"]
    out = word_diff(lines)
    assert [line.text for line in out] == lines
    assert [str(line.html) for line in out[3:]] == [
        "-a <del>b</del>",
        "-c <del>d</del>",
        "-e f",
        "+a <ins>x</ins>",
        "+c <ins>y</ins>",
    ]


def test_a_changed_key_diffs_expected_against_actual_and_an_absent_one_says_so():
    result = CaseResult(name="n", input={}, expected={"lines": ["a"]}, actual={}, changed=("lines",))
    header = ["--- expected lines", "+++ actual lines", "@@ -1,3 +1 @@"]
    assert result.diff() == [*header, "-[", '-  "a"', "-]", "+(absent)"]


def test_an_expected_output_that_is_not_an_object_is_compared_whole(db):
    value = {"channel_context": None}
    result = check("plain", value, "not an object")
    assert result.expected == {"(expected)": "not an object"}
    assert result.changed == ("(expected)",)
    assert result.input == value


def test_an_input_the_renderer_fails_on_is_a_failed_case_not_an_error(monkeypatch):
    def fail(value):  # type: ignore[no-untyped-def]
        raise ValueError("broken input")

    monkeypatch.setattr("reviewapp.previews.golden.render", fail)
    result = check("bad", {"channel_context": 1}, {"lines": []})
    assert result.actual == {"error": "ValueError: broken input"}
    assert result.changed == ("lines",)
    assert not result.passed


def test_an_output_holding_half_an_emoji_still_has_a_fingerprint():
    # The notes cap can cut an emoji in half: a lone surrogate in a stored output.
    first, second = digest({"notes": "kaffe \ud83d"}), digest({"notes": "kaffe \ud83c"})
    assert re.fullmatch("[0-9a-f]{32}", first)
    assert first != second


@pytest.mark.parametrize(
    ("changed", "marked"),
    [
        # Two runs of one removal and one addition: each pair is marked.
        (
            ["-a b", "+a x", "-c d", "+c y"],
            ["-a <del>b</del>", "+a <ins>x</ins>", "-c <del>d</del>", "+c <ins>y</ins>"],
        ),
        # One removal, two additions: the second addition has no partner.
        (["-a b", "+a x", "+c y"], ["-a <del>b</del>", "+a <ins>x</ins>", "+c y"]),
    ],
)
def test_each_run_of_removals_pairs_only_with_the_additions_right_after_it(changed, marked):
    out = word_diff(["--- expected lines", "+++ actual lines", "@@ -1,2 +1,2 @@", *changed])
    assert [str(line.html) for line in out[3:]] == marked
