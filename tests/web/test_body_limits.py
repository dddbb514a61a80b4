"""Request bodies against a real uvicorn, over real sockets: every body is bounded before it is read, whatever its
Content-Type, forms by their own limit; a body that trickles in is cut off at the read deadline; a refusal is in
the visitor's language and closes the connection. The worker's memory is measured, not assumed."""

from __future__ import annotations

import json
import select
import socket
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from app.web.middleware.body import BODY_MAX_BYTES, FORM_MAX_BYTES
from tests.servers import UVICORN, serving_process

READ_DEADLINE_S = 2.0
HUGE_BYTES = 200 * 1024 * 1024
# Loopback socket buffers hold a few MB between the client and a server that has stopped reading.
SOCKET_SLACK_BYTES = 32 * 1024 * 1024
MEMORY_SLACK_BYTES = 40 * 1024 * 1024
IDLE_LIMIT_S = 60


@dataclass(frozen=True)
class Server:
    port: int
    pid: int


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    var_dir = tmp_path_factory.mktemp("body-limits")
    environment = {"BODY_READ_TIMEOUT_S": str(READ_DEADLINE_S)}
    with serving_process(UVICORN, var_dir, environment) as (process, base_url):
        yield Server(int(base_url.rsplit(":", 1)[1]), process.pid)


@dataclass(frozen=True)
class Answer:
    status: int
    headers: dict[str, str]
    body: bytes
    bytes_sent: int


def _status_line_kb(pid: int, field: str) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(f"{field}:"):
            return int(line.split()[1]) * 1024
    raise AssertionError(f"{field} not in /proc/{pid}/status")


def _reset_peak_memory(pid: int) -> None:
    Path(f"/proc/{pid}/clear_refs").write_text("5")  # resets VmHWM, the peak resident set, to the current one


def _read_answer(sock: socket.socket, bytes_sent: int) -> Answer:
    sock.setblocking(True)
    sock.settimeout(IDLE_LIMIT_S)
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        if not chunk:
            raise AssertionError(f"the server closed without answering after {bytes_sent} bytes: {data!r}")
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    status_line, *header_lines = head.decode("latin-1").split("\r\n")
    headers = {name.lower(): value.strip() for name, _, value in (line.partition(":") for line in header_lines)}
    length = int(headers.get("content-length", "0"))
    while len(body) < length:
        chunk = sock.recv(65536)
        if not chunk:
            break
        body += chunk
    return Answer(int(status_line.split()[1]), headers, body[:length], bytes_sent)


def post(
    server: Server,
    path: str,
    body_bytes: int,
    headers: dict[str, str],
    *,
    chunked: bool = False,
    trickle_s: float = 0.0,
) -> Answer:
    """POST `body_bytes` of `a` as fast as the server takes them (or one byte per `trickle_s`), and stop sending
    as soon as the server answers; the answer records how much was sent by then."""
    framing = {"Transfer-Encoding": "chunked"} if chunked else {"Content-Length": str(body_bytes)}
    lines = [f"POST {path} HTTP/1.1", f"Host: 127.0.0.1:{server.port}"]
    lines += [f"{name}: {value}" for name, value in (headers | framing).items()]
    with socket.create_connection(("127.0.0.1", server.port), timeout=IDLE_LIMIT_S) as sock:
        sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1"))
        sock.setblocking(False)
        piece = b"a" if trickle_s else b"a" * (1 << 20)
        pending = b""
        sent = 0
        body_left = body_bytes
        while body_left or pending:
            if not pending:
                size = min(len(piece), body_left)
                body_left -= size
                data = piece[:size]
                pending = f"{size:x}\r\n".encode() + data + b"\r\n" if chunked else data
                if chunked and not body_left:
                    pending += b"0\r\n\r\n"
            readable, writable, _ = select.select([sock], [sock], [], IDLE_LIMIT_S)
            if readable:
                break
            if not writable:
                raise AssertionError(f"the server neither read nor answered for {IDLE_LIMIT_S} s")
            try:
                written = sock.send(pending)
            except (BrokenPipeError, ConnectionResetError):
                break
            sent += written
            pending = pending[written:]
            if trickle_s and not pending:
                time.sleep(trickle_s)  # the pace of the attack, not a wait for the server
        return _read_answer(sock, sent)


def _detail(answer: Answer) -> str:
    detail: str = json.loads(answer.body)["detail"]
    return detail


@pytest.mark.parametrize(
    "content_type",
    [None, "text/plain", "application/octet-stream", "application/json"],
    ids=["no-content-type", "text-plain", "octet-stream", "json"],
)
def test_a_200_mb_body_is_refused_before_it_is_read_and_the_worker_does_not_grow(
    server: Server, content_type: str | None
) -> None:
    headers = {"Content-Type": content_type} if content_type else {}
    for chunked in (False, True):  # declared too large, or only found so while reading
        rss_before = _status_line_kb(server.pid, "VmRSS")
        _reset_peak_memory(server.pid)
        answer = post(server, "/api/v1/credentials/verify?lang=ko", HUGE_BYTES, headers, chunked=chunked)
        peak = _status_line_kb(server.pid, "VmHWM")
        assert answer.status == 413, (chunked, answer)
        assert _detail(answer) == "요청 본문이 너무 큽니다."
        assert answer.headers["connection"] == "close"
        assert answer.bytes_sent < SOCKET_SLACK_BYTES, (chunked, answer.bytes_sent)
        assert peak - rss_before < MEMORY_SLACK_BYTES, (chunked, rss_before, peak)


def test_a_form_has_its_own_limit_and_a_page_in_the_visitors_language(server: Server) -> None:
    form = {"Content-Type": "application/x-www-form-urlencoded"}
    for chunked in (False, True):
        answer = post(server, "/ko/certificate", FORM_MAX_BYTES + 1, form, chunked=chunked)
        assert answer.status == 413
        assert answer.headers["content-type"].startswith("text/html")
        assert "보낸 양식이 너무 큽니다." in answer.body.decode()
        assert answer.headers["connection"] == "close"
    multipart = {"Content-Type": "multipart/form-data; boundary=x", "Accept-Language": "en"}
    answer = post(server, "/newsletter", 60 * 1024 * 1024, multipart)
    assert answer.status == 413
    assert "The form sent is too large." in answer.body.decode()
    assert answer.bytes_sent < SOCKET_SLACK_BYTES


def test_bodies_within_the_limits_reach_the_route(server: Server) -> None:
    """The bodies the middleware read are replayed whole: JSON in one piece or chunked, near the limit."""
    base = f"http://127.0.0.1:{server.port}"
    padding = "x" * (BODY_MAX_BYTES - 1000)
    credential = json.dumps({"jwt": "a.b.c", "padding": padding})
    headers = {"content-type": "application/json"}
    whole = httpx.post(f"{base}/api/v1/credentials/verify", content=credential, headers=headers, timeout=60)
    assert whole.status_code == 200, whole.text[:200]
    assert whole.json()["checks"][0]["name"] == "format"

    def chunks() -> Iterator[bytes]:
        data = credential.encode()
        for start in range(0, len(data), 10_000):
            yield data[start : start + 10_000]

    chunked = httpx.post(f"{base}/api/v1/credentials/verify", content=chunks(), headers=headers, timeout=60)
    assert chunked.status_code == 200
    assert chunked.json()["valid"] is False


def test_a_body_that_trickles_in_is_cut_off_at_the_read_deadline(server: Server) -> None:
    started = time.monotonic()
    json_type = {"Content-Type": "application/json"}
    answer = post(server, "/api/v1/credentials/verify?lang=ko", 1000, json_type, trickle_s=0.1)
    elapsed = time.monotonic() - started
    assert answer.status == 408
    assert _detail(answer) == "요청 본문이 너무 느리게 도착했습니다. 다시 시도해 주세요."
    assert answer.headers["connection"] == "close"
    assert READ_DEADLINE_S <= elapsed < READ_DEADLINE_S + 30
    assert answer.bytes_sent < 1000  # it was cut off, not answered once the body was complete


def test_a_cross_site_post_is_refused_before_its_body_is_read(server: Server) -> None:
    attack = {"Origin": "https://evil.example", "Content-Type": "application/x-www-form-urlencoded"}
    answer = post(server, "/newsletter", HUGE_BYTES, attack)
    assert answer.status == 403
    assert answer.bytes_sent < SOCKET_SLACK_BYTES
