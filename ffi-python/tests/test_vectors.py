"""Every golden vector in tests/vectors/ through the Python API: the same files, the same
verdicts as the Rust and C tests.

- v1/ and bench/: lf.a2a.v1 messages through their model class (``from_json`` /
  ``from_protobuf`` / ``to_json`` / ``to_protobuf``), other messages (well-known types,
  google.rpc) through ``a2a_wire.transcode``; invalid ones raise the ValidationError
  subclass of their kind naming their path; the v0.3 translation through ``a2a_wire.v03``.
- v03/: decoded as their v0.3 type and translated to v1.0, with the losses.
- errors/render-*: an A2AError built in Python renders exactly the vector's JSON-RPC, HTTP
  and gRPC forms; errors/received-*: the bytes of a peer classify to the vector's exception.
- http/: requests through the sans-IO service; see test_service.py.
"""

from __future__ import annotations

import base64
import json
from typing import Any

import pytest
from conftest import load_vectors

import a2a_wire
from a2a_wire import errors, v03

KIND_CLASS = {
    "syntax": errors.JsonSyntaxError,
    "invalid_value": errors.InvalidValueError,
    "missing_required": errors.MissingFieldError,
    "protobuf": errors.ProtobufError,
    "conversion": errors.ConversionError,
}

V1 = load_vectors("v1") + load_vectors("bench")
V03 = load_vectors("v03")
ERRORS = load_vectors("errors")


def wire_of(v: dict[str, Any]) -> tuple[bytes, str]:
    if "wire_base64" in v:
        return base64.b64decode(v["wire_base64"]), "protobuf"
    if "wire_text" in v:
        return v["wire_text"].encode(), "json"
    return json.dumps(v["wire"], separators=(",", ":"), ensure_ascii=False).encode(), "json"


def model_class(type_name: str) -> Any:
    return a2a_wire._a2a_wire._v1_class(type_name)


def check_error(exc: errors.ValidationError, want: dict[str, Any]) -> None:
    cls = KIND_CLASS[want["kind"]]
    assert isinstance(exc, cls), f"raised {type(exc).__name__}, want {cls.__name__}: {exc}"
    assert exc.kind == want["kind"]
    if "field" in want:
        assert exc.path == want["field"], f"path {exc.path!r}, want {want['field']!r} ({exc})"
    assert want.get("contains", "") in str(exc)


def decode(type_name: str, data: bytes, fmt: str) -> tuple[Any, bytes]:
    """Decodes through the model class when there is one; returns (object or None, canonical JSON)."""
    cls = model_class(type_name)
    if cls is None:
        return None, a2a_wire.transcode(type_name, data, fmt, "json")
    obj = cls.from_protobuf(data) if fmt == "protobuf" else cls.from_json(data)
    return obj, obj.to_json().encode()


@pytest.mark.parametrize("name,v", V1, ids=[n for n, _ in V1])
def test_v1_vector(name: str, v: dict[str, Any]) -> None:
    type_name = v["type"]
    data, fmt = wire_of(v)
    if v["expect"] == "invalid":
        with pytest.raises(errors.ValidationError) as info:
            decode(type_name, data, fmt)
        check_error(info.value, v["error"])
        return
    obj, out = decode(type_name, data, fmt)
    canonical = v.get("canonical", v.get("wire"))
    assert json.loads(out) == canonical
    if obj is not None:
        # The other doors of the class say the same: dict, protobuf, a rebuilt copy.
        assert obj.to_dict() == canonical
        assert type(obj).from_dict(canonical) == obj
        again = type(obj).from_protobuf(obj.to_protobuf())
        assert again == obj and json.loads(again.to_json()) == canonical
        assert obj.replace() == obj
    else:
        pb = a2a_wire.transcode(type_name, json.dumps(canonical), "json", "protobuf")
        assert json.loads(a2a_wire.transcode(type_name, pb, "protobuf", "json")) == canonical
    t = v.get("v03")
    if t is None or obj is None:
        return
    if "error" in t:
        with pytest.raises(errors.ConversionError) as conv:
            v03.from_v1(obj)
        check_error(conv.value, t["error"])
        return
    back, losses = v03.from_v1(obj)
    if "type" in t:
        assert back.type_name == t["type"]
    assert back.to_dict() == t["json"]
    assert [f"{x.kind}@{x.path}" for x in losses] == t.get("losses", [])


@pytest.mark.parametrize("name,v", V03, ids=[n for n, _ in V03])
def test_v03_vector(name: str, v: dict[str, Any]) -> None:
    data, _ = wire_of(v)
    if v["expect"] == "invalid":
        with pytest.raises(errors.ValidationError) as info:
            v03.to_v1(v["type"], data)
        check_error(info.value, v["error"])
        return
    obj = getattr(v03, v["type"])(data)
    assert obj.to_dict() == v.get("canonical", v.get("wire"))
    v1, losses = obj.to_v1()
    want = v["v1"]
    if "type" in want:
        assert f"lf.a2a.v1.{type(v1).__name__}" == want["type"]
    assert json.loads(v1.to_json()) == want["json"]
    assert [f"{x.kind}@{x.path}" for x in losses] == want.get("losses", [])


def grpc_details(code: int, message: str, details: list[dict[str, Any]]) -> bytes:
    """A google.rpc.Status built by Google's protobuf library (an independent encoder)."""
    from google.protobuf import any_pb2
    from google.rpc import error_details_pb2, status_pb2

    status = status_pb2.Status(code=code, message=message)
    for d in details:
        info = error_details_pb2.ErrorInfo(reason=d.get("reason", ""), domain=d.get("domain", ""))
        status.details.append(any_pb2.Any(type_url=d.get("type_url", ""), value=info.SerializeToString()))
    return status.SerializeToString()


@pytest.mark.parametrize("name,v", ERRORS, ids=[n for n, _ in ERRORS])
def test_error_vector(name: str, v: dict[str, Any]) -> None:
    version = v.get("version", "1.0")
    if v["type"] == "error":
        e = v["error"]
        cls = errors.A2AError.from_kind(e["kind"])
        violations = [(x["field"], x["description"]) for x in e.get("violations", [])]
        err = cls(e["message"], metadata=e.get("metadata"), violations=violations)
        assert err.to_jsonrpc() == v["jsonrpc"]
        assert err.to_http() == (v["http"]["status"], v["http"]["body"])
        code, message, details = err.to_grpc()
        assert code == v["grpc"]["code"] == err.grpc_status
        # The gRPC trailer reads back as the same error.
        back = errors.classify_grpc(code, message, details)
        assert type(back) is cls and back.metadata == err.metadata and back.violations == err.violations
        return
    assert v["type"] == "received-error"
    r, want = v["received"], v["classified"]
    if "http" in r:
        got = errors.classify_http(r["http"]["status"], r["http"].get("body_text", ""), version)
        binding, status = "HTTP+JSON", r["http"]["status"]
    elif "grpc" in r:
        g = r["grpc"]
        details = grpc_details(g["code"], g.get("message", ""), g["details"]) if "details" in g else None
        got = errors.classify_grpc(g["code"], g.get("message", ""), details, version)
        binding, status = "GRPC", g["code"]
    else:
        got = errors.classify_jsonrpc(r["jsonrpc"])
        binding, status = "JSONRPC", r["jsonrpc"].get("code")
    if want.get("not_a2a"):
        assert isinstance(got, errors.NotA2AError), f"classified as {got!r}"
        assert got.status == want["status"] and got.binding == binding
        assert not isinstance(got, errors.A2AError)
        return
    assert isinstance(got, errors.A2AError), f"classified as {got!r}"
    assert got.kind == want["kind"]
    assert got.binding == binding and got.wire_status == status
    for k, val in want.get("metadata", {}).items():
        assert got.metadata.get(k) == val
    if "violations" in want:
        assert [x.field for x in got.violations] == want["violations"]


def test_every_vector_folder_is_read() -> None:
    assert len(V1) > 300 and len(V03) > 15 and len(ERRORS) >= 20
