"""The body cap through a real gunicorn (gunicorn.conf.py), which has none of its own:
a body declared too large and one streamed without a length are both answered 413
before they have been sent in full."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator

import pytest

from tests.production.test_proxy import _free_port, _start_gunicorn, _stop

MiB = 1024 * 1024


@pytest.fixture(scope="module")
def app_port(django_db_setup, django_db_blocker, tmp_path_factory) -> Iterator[int]:  # type: ignore[no-untyped-def]
    port = _free_port()
    gunicorn, _log = _start_gunicorn(
        django_db_blocker,
        port,
        tmp_path_factory.mktemp("gunicorn") / "gunicorn.log",
        ALLOWED_HOSTS="127.0.0.1",
        WEB_CONCURRENCY="1",
        GUNICORN_THREADS="2",
    )
    try:
        yield port
    finally:
        _stop(gunicorn)


def _post_and_read_answer(port: int, head: str, body: Iterator[bytes]) -> tuple[int, bytes]:
    """Send ``head``, then keep sending ``body`` in the background; return the answer's status and content.

    The answer is read while the body is still being sent: the body's end
    never comes, so only a server that stops reading early answers at all.
    """
    sock = socket.create_connection(("127.0.0.1", port), timeout=20)
    sock.sendall(head.encode("latin-1"))

    def send() -> None:
        try:
            for piece in body:
                sock.sendall(piece)
        except OSError:
            pass  # the server answered and closed: what we want

    sender = threading.Thread(target=send, daemon=True)
    sender.start()
    try:
        received = b""
        while b"\r\n\r\n" not in received:
            chunk = sock.recv(65536)
            if not chunk:
                break
            received += chunk
        status = int(received.split(b" ", 2)[1])
        return status, received
    finally:
        sock.close()


def _endless(piece: bytes, *, then: int) -> Iterator[bytes]:
    for _ in range(then):
        yield piece


def test_gunicorn_answers_413_to_a_declared_30_mb_body_before_it_is_sent(app_port):
    head = (
        "POST /accounts/login/ HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        "Content-Type: multipart/form-data; boundary=xyz\r\n"
        f"Content-Length: {30 * MiB}\r\n\r\n"
    )
    # 2 MiB of the promised 30 are ever sent.
    status, answer = _post_and_read_answer(app_port, head, _endless(b"x" * 65536, then=32))
    assert status == 413
    assert b"Retry-After" not in answer


def test_gunicorn_cuts_off_a_chunked_body_that_streams_past_the_cap(app_port):
    head = (
        "POST /accounts/login/ HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        "Content-Type: application/x-www-form-urlencoded\r\n"
        "Transfer-Encoding: chunked\r\n\r\n"
    )
    piece = b"x" * 65536
    chunk = f"{len(piece):x}\r\n".encode() + piece + b"\r\n"
    # 30 MiB in chunks, never the closing zero-length chunk.
    status, _ = _post_and_read_answer(app_port, head, _endless(chunk, then=480))
    assert status == 413
