"""A sharper file for the resend question: no PDF that runs something, no image that explodes when decoded."""

from __future__ import annotations

import base64
import datetime as dt
import io
import struct
import uuid
import zlib

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from PIL import Image, ImageFile

from reviewapp.answers import resend, uploads
from reviewapp.answers.inputs import ResendAnswer
from reviewapp.answers.validation import AnswerInvalid, validate
from reviewapp.bookkeeping.models import InboxItem
from tests.answers.conftest import moved_item
from tests.html import Page

PLAIN_PDF = b"%PDF-1.7\n1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n%%EOF\n"


def pdf_with(body: bytes) -> bytes:
    return b"%PDF-1.7\n" + body + b"\ntrailer\n<< /Root 1 0 R >>\n%%EOF\n"


def object_stream(content: bytes, *, filters: bytes = b"/Filter /FlateDecode", raw: bytes | None = None) -> bytes:
    """An object stream (``/Type /ObjStm``) holding ``content``, compressed as ``filters`` says."""
    data = raw if raw is not None else zlib.compress(content)
    head = b"5 0 obj\n<< /Type /ObjStm /N 1 /First 4 " + filters + b" /Length %d >>\nstream\n" % len(data)
    return head + data + b"\nendstream\nendobj"


def refusal(content: bytes, name: str = "kvitto.pdf") -> str:
    with pytest.raises(ValueError) as refused:  # noqa: PT011 - the message is what each test checks
        uploads.check_file(SimpleUploadedFile(name, content))
    return str(refused.value)


def png_declaring(width: int, height: int) -> bytes:
    """A valid black-and-white PNG of ``width`` × ``height``: all zeros, so it compresses to almost nothing."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    row = b"\x00" * (1 + (width + 7) // 8)  # filter byte, then 1 bit per pixel
    packer = zlib.compressobj(9)
    idat = b"".join(packer.compress(row) for _ in range(height)) + packer.flush()
    header = struct.pack(">IIBBBBB", width, height, 1, 0, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", idat) + chunk(b"IEND", b"")


# --- PDFs ---------------------------------------------------------------------------------------------


def test_a_plain_pdf_is_accepted():
    assert uploads.check_file(SimpleUploadedFile("kvitto.pdf", PLAIN_PDF)).mime_type == "application/pdf"


@pytest.mark.parametrize(
    ("body", "named"),
    [
        (b"1 0 obj\n<< /Type /Catalog /OpenAction 2 0 R >>\nendobj", "/OpenAction"),
        (b"2 0 obj\n<< /S /JavaScript /JS (app.alert\\(1\\)) >>\nendobj", "/JS, /JavaScript"),
        (b"3 0 obj\n<< /Type /Annot /AA << /E 4 0 R >> >>\nendobj", "/AA"),
        (b"4 0 obj\n<</S/Launch/F(calc.exe)>>\nendobj", "/Launch"),
        (b"1 0 obj\n<< /AcroForm << /XFA 6 0 R >> >>\nendobj", "/XFA"),
        # Names may spell a character as #xx: /J#61vaScript is /JavaScript.
        (b"2 0 obj\n<< /S /J#61vaScript /#4A#53 7 0 R >>\nendobj", "/JS, /JavaScript"),
    ],
)
def test_a_pdf_that_runs_something_is_refused_naming_what(body, named):
    message = refusal(pdf_with(body))
    assert f"contains JavaScript or an action that runs when it is opened ({named})" in message


def test_javascript_inside_a_compressed_object_stream_is_found():
    hidden = object_stream(b"2 0 << /S /JavaScript /JS (app.alert\\(1\\)) >>")
    assert b"JavaScript" not in hidden  # invisible to a scan of the raw bytes
    assert "(/JS, /JavaScript)" in refusal(pdf_with(hidden))


def test_a_compressed_object_stream_without_javascript_is_accepted():
    clean = object_stream(b"2 0 << /Type /Page /Parent 3 0 R /MediaBox [0 0 595 842] >>")
    assert uploads.check_file(SimpleUploadedFile("kvitto.pdf", pdf_with(clean))).mime_type == "application/pdf"


@pytest.mark.parametrize(
    "stream",
    [
        object_stream(b"", filters=b"/Filter /ASCII85Decode", raw=base64.a85encode(b"2 0 << /JS (x) >>")),
        object_stream(b"", filters=b"/Filter [/FlateDecode /FlateDecode]", raw=zlib.compress(zlib.compress(b"/JS"))),
        object_stream(b"", raw=b"this is not zlib data"),  # damaged, or encrypted
        object_stream(b"2 0 << >>", filters=b"/Filter /FlateDecode /DecodeParms << /Predictor 12 /Columns 4 >>"),
    ],
)
def test_an_object_stream_that_cannot_be_read_is_refused_as_unchecked(stream):
    assert "compressed parts the app cannot check for JavaScript" in refusal(pdf_with(stream))


def test_an_object_stream_past_the_inflation_budget_is_refused(monkeypatch):
    monkeypatch.setattr(uploads, "MAX_INFLATED_BYTES", 1000)
    large = object_stream(b"2 0 << >>" + b" " * 5000)
    assert "cannot check for JavaScript" in refusal(pdf_with(large))


def test_compressed_page_content_is_not_mistaken_for_an_object_stream():
    content = zlib.compress(b"BT /F1 12 Tf (Kvitto) Tj ET")
    page = b"6 0 obj\n<< /Length %d /Filter /FlateDecode >>\nstream\n" % len(content) + content + b"\nendstream\nendobj"
    assert uploads.check_file(SimpleUploadedFile("kvitto.pdf", pdf_with(page))).mime_type == "application/pdf"


# --- Images ------------------------------------------------------------------------------------------------


def test_a_13_kb_png_declaring_108_megapixels_is_refused_without_decoding_it(monkeypatch):
    bomb = png_declaring(10_800, 10_000)
    assert len(bomb) < 20_000

    def never(*args, **kwargs):  # type: ignore[no-untyped-def]
        raise AssertionError("the image was decoded")

    monkeypatch.setattr(ImageFile.ImageFile, "load", never)
    message = refusal(bomb, "kvitto.png")
    assert message == "The image is 10800 × 10000 pixels (108 megapixels); the limit is 40 megapixels."


def test_an_image_just_over_the_cap_is_refused_where_pillow_would_not_warn():
    # 41.6 megapixels: under Pillow's own limit (about 89), over the app's 40.
    assert "(42 megapixels); the limit is 40 megapixels" in refusal(png_declaring(8_000, 5_200), "kvitto.png")


def test_an_image_at_the_cap_is_accepted():
    upload = SimpleUploadedFile("kvitto.png", png_declaring(8_000, 5_000))
    assert uploads.check_file(upload).mime_type == "image/png"


def test_pillows_decompression_bomb_warning_is_a_refusal(monkeypatch):
    # Pillow warns (it does not raise) between its limit and twice it.
    monkeypatch.setattr(Image, "MAX_IMAGE_PIXELS", 1_000)
    monkeypatch.setattr(uploads, "MAX_IMAGE_PIXELS", 10**12)
    buffer = io.BytesIO()
    Image.new("RGB", (40, 40), "white").save(buffer, format="PNG")  # 1 600 pixels
    assert refusal(buffer.getvalue(), "kvitto.png") == (
        "The image declares more pixels than the app accepts; send a smaller image."
    )


def test_the_answer_refuses_them_through_validate():
    upload = SimpleUploadedFile("kvitto.png", png_declaring(10_800, 10_000))
    with pytest.raises(AnswerInvalid) as caught:
        validate(ResendAnswer(upload=upload))
    assert "108 megapixels" in caught.value.errors["file"][0]


# --- On the page -------------------------------------------------------------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("kvitto.pdf", pdf_with(b"1 0 obj\n<< /OpenAction << /S /JavaScript /JS (x) >> >>\nendobj"), "/OpenAction"),
        ("kvitto.png", png_declaring(10_800, 10_000), "108 megapixels"),
    ],
)
def test_the_page_says_why_the_file_is_refused_and_stores_nothing(
    bookkeeper_client, documents_bucket, name, content, message
):
    item = moved_item("resend")
    upload = SimpleUploadedFile(name, content)
    response = bookkeeper_client.post(
        reverse("item_answer", args=[item.pk]), {"question": "resend", "choice": "upload", "file": upload}
    )
    assert response.status_code == 200
    assert message in Page(response.content.decode()).text("id_file_error")
    assert InboxItem.objects.filter(company_id=item.company_id).count() == 1
    assert not [path for path in documents_bucket.rglob("*") if path.is_file()]


# --- accounted's storage key --------------------------------------------------------------------------------


# Expected values: accounted's sanitizeFileName (lib/core/documents/document-service.ts at 0d5eec7) run in node.
@pytest.mark.parametrize(
    ("name", "key_name"),
    [
        ("Kvitto åäö (2).PNG", "Kvitto_2.PNG"),
        ("Skarpare kvitto åäö.png", "Skarpare_kvitto.png"),
        (".png", ".png"),
        ("_", "file"),
        ("x.", "x."),
        ("😀.p😀g", "file.p__g"),
        ("a" * 99 + "_b.pdf", "a" * 99 + "_.pdf"),
        ("_" * 120 + "x", "x"),
        ("___x___.pdf", "x.pdf"),
        ("../../etc/passwd", ".._.._etc_passwd"),
    ],
)
def test_the_storage_key_uses_accounteds_file_name_sanitiser(name, key_name):
    assert resend.sanitize_file_name(name) == key_name


@pytest.mark.parametrize(
    ("uploaded", "kept"),
    [
        ("kvitto\u202e.pdf", "kvitto.pdf"),
        ("rad\r\nett.pdf", "radett.pdf"),
        ("\u202e\n", "file"),
        (None, "file"),
        (" ", "file"),
    ],
)
def test_the_documents_name_is_the_uploaded_one_less_control_characters_or_file(uploaded, kept):
    assert resend.original_file_name(uploaded) == kept


def test_the_storage_key_is_accounteds_layout():
    company, user = uuid.UUID(int=1), uuid.UUID(int=2)
    moment = dt.datetime(2026, 8, 12, 9, 31, 7, 123000, tzinfo=dt.UTC)
    assert resend.storage_key(company, user, "Kvitto 1.png", moment) == (
        f"documents/{company}/{user}/1786527067123_Kvitto_1.png"
    )
