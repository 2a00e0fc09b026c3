"""HTTP/1.1 framing on the Python ready server: the request-smuggling cases of the framing
table (tests/vectors/http1/framing.json, the file the Rust, C and Node tests read) and its
controls, as raw bytes on a socket. The ready server reads HTTP/1.1 through the core's
request reader, so a request with two framings is refused and nothing smuggled in its body
is ever answered."""

from __future__ import annotations

import asyncio
import json
import socket
from typing import Any
from urllib.parse import urlsplit

from conftest import VECTORS
from hosts import ready

from a2a_wire.server import Events, RequestContext

CASES = [c for c in json.loads((VECTORS / "http1" / "framing.json").read_text())["cases"] if {"smuggling", "control"} & set(c["tags"])]


async def echo(ctx: RequestContext, events: Events) -> None:
    events.artifact(ctx.text, artifact_id="echo", last_chunk=True)
    events.complete()


def fill(s: socket.socket, buf: bytearray) -> bool:
    """Reads once more into buf; False at the end of the stream (a reset after the answer
    counts as its end)."""
    try:
        chunk = s.recv(65536)
    except ConnectionResetError:
        return False
    buf.extend(chunk)
    return bool(chunk)


def read_answer(s: socket.socket, buf: bytearray) -> tuple[int, bytes]:
    """One answer off the socket: its status and body (Content-Length or chunked)."""
    while b"\r\n\r\n" not in buf:
        assert fill(s, buf), f"closed before an answer: {bytes(buf)!r}"
    end = buf.index(b"\r\n\r\n") + 4
    head = bytes(buf[:end]).decode("latin-1")
    del buf[:end]
    status = int(head.split(" ", 2)[1])
    fields = {k.strip().lower(): v.strip() for k, _, v in (line.partition(":") for line in head.split("\r\n")[1:] if line)}
    if 100 <= status < 200:
        return status, b""
    if fields.get("transfer-encoding", "").lower() == "chunked":
        body = bytearray()
        while True:
            while b"\r\n" not in buf:
                assert fill(s, buf), "closed inside a chunked answer"
            line_end = buf.index(b"\r\n")
            size = int(bytes(buf[:line_end]).split(b";")[0], 16)
            while len(buf) < line_end + 2 + size + 2:
                assert fill(s, buf), "closed inside a chunk"
            body += buf[line_end + 2 : line_end + 2 + size]
            del buf[: line_end + 2 + size + 2]
            if size == 0:
                return status, bytes(body)
    n = int(fields.get("content-length", "0"))
    while len(buf) < n:
        assert fill(s, buf), "closed inside an answer"
    body = bytes(buf[:n])
    del buf[:n]
    return status, body


def run_case(port: int, rpc: str, case: dict[str, Any]) -> None:
    host = f"127.0.0.1:{port}"
    with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
        buf = bytearray()
        for step in case["steps"]:
            if "send" in step:
                s.sendall(step["send"].replace("{host}", host).replace("{rpc}", rpc).encode("latin-1"))
            elif "status" in step:
                status, body = read_answer(s, buf)
                assert status == step["status"], f"{case['name']}: {status} {body!r}"
                assert step.get("body_contains", "") in body.decode("utf-8", "replace")
            elif step.get("closed"):
                while fill(s, buf):
                    pass
                assert not buf, f"{case['name']}: more came after the answer: {bytes(buf)!r}"
                return
            elif step.get("open"):
                s.sendall(f"GET /.well-known/agent-card.json HTTP/1.1\r\nHost: {host}\r\n\r\n".encode())
                assert read_answer(s, buf)[0] == 200, f"{case['name']}: the connection did not stay open"


def rpc_path(port: int) -> str:
    with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
        s.sendall(b"GET /.well-known/agent-card.json HTTP/1.1\r\nHost: x\r\n\r\n")
        _, body = read_answer(s, bytearray())
    card = json.loads(body)
    url = next(i["url"] for i in card["supportedInterfaces"] if i["protocolBinding"] == "JSONRPC" and i["protocolVersion"] == "1.0")
    return urlsplit(url).path


async def test_the_ready_server_refuses_smuggled_requests() -> None:
    assert any(c["name"] == "te-and-cl" for c in CASES)
    async with ready(echo) as h:
        port = urlsplit(h.url).port
        assert port is not None
        rpc = await asyncio.to_thread(rpc_path, port)
        for case in CASES:
            await asyncio.to_thread(run_case, port, rpc, case)
        # Still serving after every refusal.
        await asyncio.to_thread(run_case, port, rpc, next(c for c in CASES if c["name"] == "pipelined-requests"))
