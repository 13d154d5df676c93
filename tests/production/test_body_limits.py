"""A request body larger than its view accepts is refused with 413 before anything reads it
(reviewapp/web/body_limits.py): 1 MiB everywhere, the receipt upload limit more on the answer form."""

from __future__ import annotations

import io
import json
import re
import uuid

import pytest
from django.conf import settings
from django.test import Client
from django.urls import reverse

from tests import factories

MiB = 1024 * 1024
TOO_LARGE = "What you sent is larger than the 1.0\xa0MB this page accepts, so nothing was saved."


class CountingStream(io.BytesIO):
    """A request body that remembers how much of it was read."""

    def __init__(self, data: bytes) -> None:
        super().__init__(data)
        self.bytes_read = 0

    def read(self, size: int | None = -1, /) -> bytes:
        piece = super().read(size)
        self.bytes_read += len(piece)
        return piece


def _streamed(client: Client, path: str, body: CountingStream, **headers: str):  # type: ignore[no-untyped-def]
    """POST ``body`` without a length, as ``Transfer-Encoding: chunked`` arrives from gunicorn."""
    return client.generic(
        "POST",
        path,
        CONTENT_TYPE="application/x-www-form-urlencoded",
        CONTENT_LENGTH="",
        HTTP_TRANSFER_ENCODING="chunked",
        **{"wsgi.input": body},
        headers=headers,
    )


def test_a_30_mb_multipart_post_to_the_login_form_is_refused_with_413(db):
    upload = io.BytesIO(b"x" * (30 * MiB))
    upload.name = "big.bin"
    response = Client().post(reverse("login"), {"username": "tilda", "password": "x", "file": upload})
    assert response.status_code == 413
    body = response.content.decode()
    assert TOO_LARGE in body
    assert "<h1>Too large to send</h1>" in body
    # Its own page carries the app's content security policy like every other.
    assert "script-src 'self'" in response["Content-Security-Policy"]


def test_a_declared_length_over_the_limit_is_refused_without_reading_a_byte(db):
    body = CountingStream(b"username=tilda&password=x")
    response = Client().generic(
        "POST",
        reverse("login"),
        content_type="application/x-www-form-urlencoded",
        CONTENT_LENGTH=str(MiB + 1),
        **{"wsgi.input": body},
    )
    assert response.status_code == 413
    assert body.bytes_read == 0


def test_a_body_of_exactly_the_limit_reaches_the_view(db):
    padding = "x" * (MiB - len("username=tilda&password=x&pad="))
    data = f"username=tilda&password=x&pad={padding}"
    assert len(data) == settings.REQUEST_BODY_MAX_BYTES == MiB
    response = Client().post(reverse("login"), data, content_type="application/x-www-form-urlencoded")
    assert response.status_code == 200  # the login form again, with "wrong password"
    assert "Please enter a correct username and password" in response.content.decode()


def test_the_answer_form_takes_a_receipt_upload_and_one_mib_more(db):
    url = reverse("item_answer", args=[uuid.uuid4()])
    assert 10 * MiB == settings.RECEIPT_UPLOAD_MAX_BYTES
    fits = io.BytesIO(b"%PDF-" + b"x" * (10 * MiB))
    fits.name = "receipt.pdf"
    # Not refused for its size: on to the login check (an anonymous post is sent to log in).
    assert Client().post(url, {"question": "resend", "file": fits}).status_code == 302
    too_big = io.BytesIO(b"%PDF-" + b"x" * (11 * MiB))
    too_big.name = "receipt.pdf"
    response = Client().post(url, {"question": "resend", "file": too_big})
    assert response.status_code == 413
    assert "larger than the 11.0\xa0MB this page accepts" in response.content.decode()


def test_the_same_upload_is_refused_anywhere_else(db):
    upload = io.BytesIO(b"%PDF-" + b"x" * (2 * MiB))
    upload.name = "receipt.pdf"
    assert Client().post(reverse("preview"), {"file": upload}).status_code == 413


def test_the_json_api_gets_its_refusal_as_json(db):
    url = reverse("api_item_answer", args=[uuid.uuid4()])
    response = Client().post(url, b"{" + b" " * (2 * MiB) + b"}", content_type="application/json")
    assert response.status_code == 413
    assert response["Content-Type"] == "application/json"
    assert response.json() == {"error": "the body is larger than the 1.0\xa0MB this address accepts; nothing was saved"}


def test_a_streamed_body_is_cut_off_one_byte_past_the_limit(db):
    body = CountingStream(b"username=tilda&password=" + b"x" * (30 * MiB))
    response = _streamed(Client(), reverse("login"), body)
    assert response.status_code == 413
    assert TOO_LARGE in response.content.decode()
    assert body.bytes_read == MiB + 1


def test_a_streamed_body_within_the_limit_is_read_like_one_with_a_length(db):
    user = factories.make_user(username="tilda")
    client = Client()
    body = CountingStream(f"username=tilda&password={factories.PASSWORD}".encode())
    response = _streamed(client, reverse("login"), body)
    assert response.status_code == 302
    assert client.session.get("_auth_user_id") == str(user.pk)


def test_htmx_gets_the_message_alone_aimed_at_the_pages_refusal_region(db):
    upload = io.BytesIO(b"x" * (2 * MiB))
    upload.name = "big.bin"
    response = Client().post(reverse("login"), {"file": upload}, headers={"HX-Request": "true"})
    assert response.status_code == 413
    assert response["HX-Retarget"] == "#request-refused"
    assert response["HX-Reswap"] == "innerHTML"
    body = response.content.decode()
    assert "<html" not in body
    assert TOO_LARGE in body
    assert "HX-Request" in response["Vary"]


def test_every_page_has_the_region_and_the_htmx_config_that_swaps_a_refusal_into_it(client, db):
    body = client.get(reverse("login")).content.decode()
    assert '<div id="request-refused" class="request-refused" role="alert"></div>' in body
    config = json.loads(re.search(r"<meta name=\"htmx-config\" content='([^']*)'>", body).group(1))  # type: ignore[union-attr]
    refused = {"code": "^(413|503)$", "swap": True, "target": "#request-refused", "swapOverride": "innerHTML"}
    assert refused in config["responseHandling"]
    # The script that clears the region once a later request succeeds.
    assert "js/refusals.js" in body


@pytest.mark.parametrize(("accept", "expected"), [("sv", "så inget sparades"), ("en", "nothing was saved")])
def test_the_refusal_speaks_the_browsers_language(db, accept, expected):
    upload = io.BytesIO(b"x" * (2 * MiB))
    upload.name = "big.bin"
    response = Client().post(reverse("login"), {"file": upload}, headers={"Accept-Language": accept})
    assert response.status_code == 413
    assert expected in response.content.decode()
