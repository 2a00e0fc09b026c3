"""Every HTTP vector (tests/vectors/http/) through the sans-IO service as the ASGI app drives
it (``_a2a_wire.ServiceHost``): requests of every route and method on the three bindings in
both versions decode to the vector's operation, and refused ones get the vector's answer."""

from __future__ import annotations

import base64
import json
from typing import Any

import pytest
from conftest import load_vectors
from google.protobuf import any_pb2  # noqa: F401  (registers Any)
from google.rpc import error_details_pb2, status_pb2

import a2a_wire as a
from a2a_wire import _a2a_wire

HTTP = load_vectors("http")


def vector_card() -> a.AgentCard:
    iface = lambda url, b, v: a.AgentInterface(url=url, protocol_binding=b, protocol_version=v)  # noqa: E731
    return a.AgentCard(
        name="vectors",
        supported_interfaces=[
            iface("http://a2a.example/rpc", "JSONRPC", "1.0"),
            iface("http://a2a.example/rpc", "JSONRPC", "0.3"),
            iface("http://a2a.example/rest", "HTTP+JSON", "1.0"),
            iface("http://a2a.example/rest", "HTTP+JSON", "0.3"),
            iface("a2a.example:443", "GRPC", "1.0"),
            iface("a2a.example:443", "GRPC", "0.3"),
        ],
        capabilities=a.AgentCapabilities(streaming=True, push_notifications=True, extended_agent_card=True),
    )


@pytest.fixture(scope="module")
def service() -> _a2a_wire.ServiceHost:
    card = vector_card()
    return _a2a_wire.ServiceHost(card, extended_card=card)


def body_of(r: dict[str, Any]) -> bytes:
    if "body" in r:
        return json.dumps(r["body"], separators=(",", ":"), ensure_ascii=False).encode()
    if "body_text" in r:
        return str(r["body_text"]).encode()
    if "body_base64" in r:
        return base64.b64decode(r["body_base64"])
    return b""


def header(pairs: list[tuple[bytes, bytes]], name: str) -> str | None:
    for n, v in pairs:
        if n.decode().lower() == name:
            return v.decode()
    return None


@pytest.mark.parametrize("name,v", HTTP, ids=[n for n, _ in HTTP])
def test_http_vector(name: str, v: dict[str, Any], service: _a2a_wire.ServiceHost) -> None:
    r = v["request"]
    headers = [(k.encode(), str(x).encode()) for k, x in r.get("headers", {}).items()]
    body = body_of(r)
    decoded = service.decode(r["method"], r["target"], headers, body)
    if v["expect"] == "valid":
        assert decoded[0] == "call", f"refused: {decoded[1]} {decoded[3]!r}"
        _, method, request, jsonrpc_id, version = decoded
        want = v["operation"]
        assert method == want["method"]
        assert json.loads(request) == want["request"]
        if "jsonrpc_id" in want:
            assert json.loads(jsonrpc_id) == want["jsonrpc_id"]
        assert version == v.get("version", "1.0")
        return
    if decoded[0] == "refused":
        _, status, resp_headers, resp_body, trailers = decoded
    else:
        # Decoded: the refusal is the whole service's (the extended card needs an
        # authenticated caller), so the request goes through it.
        call = service.request(r["method"], r["target"], headers, body)
        answers = [o for o in service.poll() if o[0] == "answer" and o[1] == call]
        assert answers, f"decoded as {decoded[1]} and served, want a refusal"
        _, _, status, resp_headers, resp_body, trailers = answers[0]
    want = v["response"]
    body_json: Any = None
    try:
        body_json = json.loads(resp_body)
    except ValueError:
        pass
    if "status" in want:
        assert status == want["status"], resp_body
    if "jsonrpc_code" in want:
        assert body_json["error"]["code"] == want["jsonrpc_code"]
        if "jsonrpc_id" in want:
            assert body_json["id"] == want["jsonrpc_id"]
    if "grpc_status" in want:
        assert header(trailers, "grpc-status") == str(want["grpc_status"])
    if "reason" in want:
        details_b64 = header(trailers, "grpc-status-details-bin")
        if details_b64 is not None:
            st = status_pb2.Status()
            st.ParseFromString(base64.b64decode(details_b64 + "=" * (-len(details_b64) % 4)))
            reasons = []
            for d in st.details:
                info = error_details_pb2.ErrorInfo()
                if d.Unpack(info):
                    reasons.append(info.reason)
        else:
            details = body_json["error"].get("details") or body_json["error"].get("data") or []
            reasons = [d.get("reason") for d in details]
        assert want["reason"] in reasons
    if "content_type" in want:
        assert header(resp_headers, "content-type") == want["content_type"]
    for k, w in want.get("body_subset", {}).items():
        assert body_json.get(k) == w
    if "grpc_message_prefix" in want:
        from urllib.parse import unquote

        assert unquote(header(trailers, "grpc-message") or "").startswith(want["grpc_message_prefix"])
    if "allow" in want:
        assert header(resp_headers, "allow") == want["allow"]
    if want.get("no_errorinfo"):
        assert b"ErrorInfo" not in resp_body


def test_all_http_vectors_are_read() -> None:
    assert len(HTTP) >= 100
