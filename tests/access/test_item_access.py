"""A user assigned some companies never opens another company's item by its id, on any item path.

Rita is a bookkeeper assigned "Vår Klient AB" only; Quinn does QA's work
(raw JSON, preview, golden cases) for the same one company. "Hemlig Kund AB"
has an item with a document, a conversation, a history and a link to one of
Vår Klient's items. Each test tries one path with Hemlig Kund's ids and
expects the answer a missing id gets (404, nothing of the item in it), then
the same path with Vår Klient's item and expects it to work.
"""

from __future__ import annotations

import datetime as dt
import uuid
from dataclasses import dataclass
from typing import Any

import pytest
from django.contrib.auth.models import Permission, User
from django.test import Client
from django.urls import reverse

from reviewapp.bookkeeping.models import Company, InboxItem
from reviewapp.core import access, roles
from reviewapp.inbox import lookup
from reviewapp.models import CompanyAssignment, GoldenCase
from reviewapp.readmodel import sync
from reviewapp.web.api_auth import create_token
from tests import factories
from tests.html import page_of
from tests.items.bookkeeping import PNG, accounted_event, make_document, make_message, resend_answer, whatsapp_item

pytestmark = pytest.mark.django_db

MISSING = uuid.UUID("00000000-0000-4000-8000-000000000000")
SECRET_SUPPLIER = "Hemlig Leverantör"
SECRET_NOTE = "middag med Hemliga Gäster"
SECRET_REPLY = "hemligt svar i chatten"
SECRET_ACTOR = "Hemlig Handläggare"
OUR_SUPPLIER = "Vår Leverantör"
ASKED_AT = "2026-11-01T09:00:00Z"


@dataclass
class World:
    ours: Company
    theirs: Company
    our_item: InboxItem
    their_item: InboxItem
    their_wamid: str

    @property
    def secrets(self) -> tuple[str, ...]:
        return (SECRET_SUPPLIER, SECRET_NOTE, SECRET_REPLY, SECRET_ACTOR, str(self.their_item.document_id))


def _item(company: Company, *, supplier: str, note: str, wamid: str) -> InboxItem:
    item = whatsapp_item(
        company,
        when="2026-11-01T08:00:00Z",
        wamid=wamid,
        document=make_document(company, content=PNG),
        extracted_data={"supplier": {"name": supplier}, "totals": {"total": 100}},
        channel_context={
            "channel": "whatsapp",
            "user_note": note,
            "pending_question": {"type": "context", "asked_at": ASKED_AT, "status": "moved_to_app"},
        },
    )
    sync.index_items([item.pk])
    return item


@pytest.fixture
def world() -> World:
    ours = factories.make_company(name="Vår Klient AB")
    theirs = factories.make_company(name="Hemlig Kund AB")
    our_item = _item(ours, supplier=OUR_SUPPLIER, note="fika med kund", wamid="wamid.OURS")
    their_item = _item(theirs, supplier=SECRET_SUPPLIER, note=SECRET_NOTE, wamid="wamid.THEIRS")
    make_message(item_id=their_item.pk, when="2026-11-01T10:00:00Z", body=SECRET_REPLY, wamid="wamid.THEIR-REPLY")
    accounted_event(
        their_item,
        "ChannelQuestionAsked",
        "2026-11-01T09:00:00Z",
        actor={"type": "user", "id": "u1", "label": SECRET_ACTOR},
    )
    return World(ours, theirs, our_item, their_item, "wamid.THEIR-REPLY")


def _assigned(user: User, company: Company) -> User:
    CompanyAssignment.objects.create(user=user, company_id=company.pk)
    return user


@pytest.fixture
def rita(world: World) -> User:
    """A bookkeeper assigned Vår Klient AB only."""
    return _assigned(factories.make_user(roles.BOOKKEEPER, username="rita"), world.ours)


@pytest.fixture
def quinn(world: World) -> User:
    """QA's permissions (raw JSON, preview, golden cases) without the all-companies one, assigned Vår Klient AB."""
    user = factories.make_user(username="quinn")
    codenames = ["view_indexeditem", "view_clarificationevent", "view_raw_context", "use_preview"]
    codenames += ["view_goldencase", "add_goldencase"]
    user.user_permissions.set(Permission.objects.filter(content_type__app_label="reviewapp", codename__in=codenames))
    return _assigned(user, world.ours)


def _client(user: User) -> Client:
    client = Client()
    client.force_login(user)
    return client


def _hides(response: Any, world: World) -> None:
    """The answer a missing item gets: 404, and nothing of the hidden item in it."""
    assert response.status_code == 404
    body = b"".join(response.streaming_content) if response.streaming else response.content
    text = body.decode()
    for secret in world.secrets:
        assert secret not in text


def test_the_fixture_users_are_restricted_and_the_firm_wide_one_is_not(rita, quinn, bookkeeper, world):
    # Guards every test below: without the restriction they would test nothing.
    for user in (rita, quinn):
        assert _client(user).get(reverse("item_detail", args=[world.their_item.pk])).status_code == 404
    assert _client(bookkeeper).get(reverse("item_detail", args=[world.their_item.pk])).status_code == 200


# --- The item page, its API, its document --------------------------------------------------------


def test_the_item_page_of_another_company_is_a_404_like_a_missing_item(rita, world):
    client = _client(rita)
    hidden = client.get(reverse("item_detail", args=[world.their_item.pk]))
    missing = client.get(reverse("item_detail", args=[MISSING]))

    _hides(hidden, world)
    assert missing.status_code == 404
    assert "<h1>Page not found</h1>" in hidden.content.decode()
    assert "<h1>Page not found</h1>" in missing.content.decode()


def test_the_item_page_of_an_assigned_company_opens_with_its_conversation_and_history(rita, world):
    actor = {"type": "user", "id": "u2", "label": "Vår Handläggare"}
    accounted_event(world.our_item, "ChannelQuestionAsked", "2026-11-01T09:00:00Z", actor=actor)

    response = _client(rita).get(reverse("item_detail", args=[world.our_item.pk]))

    assert response.status_code == 200
    page = page_of(response)
    assert f"<h1>{OUR_SUPPLIER}</h1>" in response.content.decode()
    assert "fika med kund" in page.text("human-said")
    history = page.text("history")
    assert "Vår Handläggare" in history
    assert SECRET_ACTOR not in history
    assert SECRET_REPLY not in page.text("conversation")


def test_the_api_answers_another_companys_item_exactly_as_a_missing_one(rita, world):
    client = _client(rita)
    hidden = client.get(reverse("api_item", args=[world.their_item.pk]))
    missing = client.get(reverse("api_item", args=[MISSING]))

    assert hidden.status_code == missing.status_code == 404
    assert hidden.json() == missing.json() == {"error": "no such item"}


def test_the_api_gives_an_assigned_companys_item(rita, world):
    response = _client(rita).get(reverse("api_item", args=[world.our_item.pk]))

    assert response.status_code == 200
    data = response.json()
    assert data["id"] == str(world.our_item.pk)
    assert data["supplier"] == OUR_SUPPLIER
    assert data["human"]["user_note"] == "fika med kund"


def test_the_api_with_a_token_is_restricted_too(rita, world):
    secret = create_token(rita, name="script")
    client = Client(HTTP_AUTHORIZATION=f"Bearer {secret}")

    assert client.get(reverse("api_item", args=[world.their_item.pk])).status_code == 404
    assert client.get(reverse("api_item", args=[world.our_item.pk])).status_code == 200


def test_the_document_of_another_companys_item_is_a_404(rita, world):
    client = _client(rita)

    _hides(client.get(reverse("item_document", args=[world.their_item.pk])), world)
    mine = client.get(reverse("item_document", args=[world.our_item.pk]))
    assert mine.status_code == 200
    assert b"".join(mine.streaming_content) == PNG


@pytest.mark.parametrize("column", ["channel_context", "extracted_data"])
def test_the_raw_download_of_another_companys_item_is_a_404(quinn, world, column):
    client = _client(quinn)

    _hides(client.get(reverse("item_raw", args=[world.their_item.pk, column])), world)
    mine = client.get(reverse("item_raw", args=[world.our_item.pk, column]))
    assert mine.status_code == 200
    assert (OUR_SUPPLIER if column == "extracted_data" else "fika med kund").encode() in b"".join(
        mine.streaming_content
    )


# --- Previous and next ----------------------------------------------------------------------------


def _received(item: InboxItem, when: str) -> InboxItem:
    InboxItem.objects.filter(pk=item.pk).update(created_at=dt.datetime.fromisoformat(when))
    sync.index_items([item.pk])
    return item


def test_previous_and_next_skip_another_companys_items(rita, world):
    newer = _received(factories.make_item(world.ours), "2026-11-05T10:00:00Z")
    _received(factories.make_item(world.theirs), "2026-11-04T10:00:00Z")
    middle = _received(factories.make_item(world.ours), "2026-11-03T10:00:00Z")
    _received(factories.make_item(world.theirs), "2026-11-02T10:00:00Z")
    older = _received(factories.make_item(world.ours), "2026-11-01T10:00:00Z")
    for item in (world.our_item, world.their_item):
        _received(item, "2026-10-01T10:00:00Z")

    page = page_of(_client(rita).get(reverse("item_detail", args=[middle.pk]) + "?sort=received"))

    links = {a.get("data-nav"): a["href"] for a in page.tags("a") if a.get("data-nav")}
    assert links["prev"] == reverse("item_detail", args=[newer.pk]) + "?sort=received"
    assert links["next"] == reverse("item_detail", args=[older.pk]) + "?sort=received"


# --- Linked items -----------------------------------------------------------------------------------


def _cross_company_links(world: World, bookkeeper: User) -> InboxItem:
    """Their item replaced by ours, and ours replaced by a newer one of theirs; the newer one."""
    resend_answer(world.their_item, world.our_item, "2026-11-02T08:00:00Z", actor=bookkeeper)
    newer_theirs = factories.make_item(world.theirs, extracted_data={"supplier": {"name": SECRET_SUPPLIER}})
    resend_answer(world.our_item, newer_theirs, "2026-11-03T08:00:00Z", actor=bookkeeper)
    return newer_theirs


def test_a_link_to_another_companys_item_is_left_out_on_the_page_and_in_the_api(rita, bookkeeper, world):
    newer_theirs = _cross_company_links(world, bookkeeper)

    page = page_of(_client(rita).get(reverse("item_detail", args=[world.our_item.pk])))
    data = _client(rita).get(reverse("api_item", args=[world.our_item.pk])).json()
    firm_wide = _client(bookkeeper).get(reverse("api_item", args=[world.our_item.pk])).json()

    assert not page.has("linked-items")
    assert data["replaced_by"] is None
    assert data["replaces"] == []
    # The same links for someone who sees every company: the test is about the restriction.
    assert firm_wide["replaced_by"]["item_id"] == str(newer_theirs.pk)
    assert [link["item_id"] for link in firm_wide["replaces"]] == [str(world.their_item.pk)]


def test_a_link_within_the_assigned_company_is_shown(rita, bookkeeper, world):
    newer = factories.make_item(world.ours)
    resend_answer(world.our_item, newer, "2026-11-03T08:00:00Z", actor=bookkeeper)

    data = _client(rita).get(reverse("api_item", args=[world.our_item.pk])).json()

    assert data["replaced_by"]["item_id"] == str(newer.pk)


# --- The preview and golden cases ------------------------------------------------------------------


def test_the_preview_does_not_load_another_companys_item(quinn, world):
    client = _client(quinn)

    _hides(client.get(reverse("preview") + f"?item={world.their_item.pk}"), world)
    mine = client.get(reverse("preview") + f"?item={world.our_item.pk}")
    assert mine.status_code == 200
    assert "fika med kund" in mine.content.decode()


def test_a_golden_case_cannot_be_saved_from_another_companys_item(quinn, world):
    client = _client(quinn)

    hidden = client.post(reverse("golden_case_create"), {"item": str(world.their_item.pk), "name": "stulen"})

    _hides(hidden, world)
    assert not GoldenCase.objects.filter(name="stulen").exists()
    mine = client.post(reverse("golden_case_create"), {"item": str(world.our_item.pk), "name": "vår"})
    assert mine.status_code == 302
    case = GoldenCase.objects.get(name="vår")
    assert case.source_item_id == world.our_item.pk
    assert case.input["channel_context"]["user_note"] == "fika med kund"


def test_a_forged_source_item_of_another_company_is_not_linked_to_a_saved_case(quinn, world):
    data = {"channel_context": '{"channel": "whatsapp"}', "name": "eget", "source_item": str(world.their_item.pk)}

    response = _client(quinn).post(reverse("golden_case_create"), data)

    assert response.status_code == 302
    assert GoldenCase.objects.get(name="eget").source_item_id is None


def test_a_golden_case_saved_from_another_companys_item_does_not_link_it(quinn, qa, world):
    case = GoldenCase.objects.create(
        name="från annan", input={"channel_context": None}, expected={}, source_item_id=world.their_item.pk
    )
    item_url = reverse("item_detail", args=[world.their_item.pk])

    restricted = page_of(_client(quinn).get(reverse("golden_case_detail", args=[case.pk])))
    firm_wide = page_of(_client(qa).get(reverse("golden_case_detail", args=[case.pk])))

    assert item_url not in [attrs.get("href") for _, attrs in restricted.all_tags()]
    assert "not open to you" in restricted.text("case-source-item")
    assert item_url in [attrs.get("href") for _, attrs in firm_wide.all_tags()]


# --- The exact-id lookup ----------------------------------------------------------------------------


def _visible(user: User) -> Any:
    return access.company_ids(user)


def test_the_exact_id_lookup_does_not_find_another_companys_item_by_any_of_its_ids(rita, world):
    theirs = world.their_item
    ids = [str(theirs.pk), str(theirs.document_id), str(theirs.correlation_id), str(theirs.whatsapp_message_id)]

    for text in [*ids, world.their_wamid, "wamid.THEIRS"]:
        assert lookup.item_for_exact_id(text, company_ids=_visible(rita)) is None, text
        assert lookup.item_for_exact_id(text) == theirs.pk, text  # found by someone who sees every company


def test_the_exact_id_lookup_finds_an_assigned_companys_item(rita, world):
    ours = world.our_item

    for text in (str(ours.pk), str(ours.document_id), str(ours.correlation_id), "wamid.OURS"):
        assert lookup.item_for_exact_id(text, company_ids=_visible(rita)) == ours.pk, text


def test_another_companys_item_sharing_a_document_id_does_not_make_the_lookup_ambiguous(rita, world):
    # Two items naming one document id (a copy across companies): for
    # everyone it names two items, so nothing; for Rita only hers exists.
    document_id = world.our_item.document_id
    copy = factories.make_item(world.theirs)
    InboxItem.objects.filter(pk=copy.pk).update(document_id=document_id)
    sync.index_items([copy.pk])

    assert lookup.item_for_exact_id(str(document_id)) is None
    assert lookup.item_for_exact_id(str(document_id), company_ids=_visible(rita)) == world.our_item.pk


# --- The answer: its form, its preview, its API and its panel's links --------------------------------


def test_the_answer_form_of_another_companys_item_is_a_404(rita, world):
    client = _client(rita)
    url = reverse("item_answer", args=[world.their_item.pk])

    assert client.get(url).status_code == 404
    assert client.post(url, {"question": "context", "text": "intrång"}).status_code == 404
    preview = reverse("item_answer_preview", args=[world.their_item.pk])
    assert client.post(preview, {"question": "context", "text": "intrång"}).status_code == 404
    assert client.get(reverse("item_answer", args=[world.our_item.pk])).status_code == 200


def test_the_answer_api_refuses_another_companys_item_as_missing(rita, world):
    response = _client(rita).post(
        reverse("api_item_answer", args=[world.their_item.pk]),
        {"question": "context", "text": "intrång"},
        content_type="application/json",
    )

    assert response.status_code == 404
    assert response.json()["error"] == "no such item"
    their = InboxItem.objects.get(pk=world.their_item.pk)
    assert their.channel_context["pending_question"]["status"] == "moved_to_app"


def test_the_answer_panel_does_not_link_another_companys_item_either(rita, bookkeeper, world):
    # The panel under the question lists the resend links too (reviewapp.answers.log.resend_links).
    newer_theirs = _cross_company_links(world, bookkeeper)

    page = _client(rita).get(reverse("item_detail", args=[world.our_item.pk])).content.decode()

    assert str(world.their_item.pk) not in page
    assert str(newer_theirs.pk) not in page
