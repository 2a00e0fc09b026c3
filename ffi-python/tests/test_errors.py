"""The exception hierarchy: one class per A2A error kind, filled from the core's table,
raised and caught as Python exceptions, rendered on every binding and read back from each."""

from __future__ import annotations

import pickle

import pytest

import a2a_wire
from a2a_wire import _a2a_wire, errors

KINDS = [row[1] for row in _a2a_wire._error_table()]


def test_one_class_per_kind_of_the_core() -> None:
    classes = {c.kind: c for c in errors.A2AError.__subclasses__()}
    assert sorted(classes) == sorted(KINDS)
    for number, kind, code, grpc, http, reason, message in _a2a_wire._error_table():
        cls = errors.A2AError.from_kind(kind)
        assert (cls.number, cls.code, cls.grpc_status, cls.http_status, cls.reason, cls.default_message) == (
            number, code, grpc, http, reason, message)
        assert cls.__name__.endswith("Error") and cls.__name__ in errors.__all__
        assert getattr(a2a_wire, cls.__name__) is cls


@pytest.mark.parametrize("kind", KINDS)
def test_each_kind_round_trips_through_every_binding(kind: str) -> None:
    cls = errors.A2AError.from_kind(kind)
    err = cls("it failed", metadata={"taskId": "t-9"}, violations=[("params.id", "required")])
    with pytest.raises(errors.A2AError) as caught:
        raise err
    assert caught.value is err and str(err) == "it failed"
    status, body = err.to_http()
    back = errors.classify_http(status, __import__("json").dumps(body))
    assert type(back) is cls and back.message == "it failed" and back.metadata == {"taskId": "t-9"}
    assert back.violations == [("params.id", "required")] and back.binding == "HTTP+JSON" and back.wire_status == status
    code, message, details = err.to_grpc()
    back = errors.classify_grpc(code, message, details)
    assert type(back) is cls and back.metadata == {"taskId": "t-9"} and back.wire_status == code
    rpc = err.to_jsonrpc()
    back = errors.classify_jsonrpc(rpc)
    assert type(back) is cls and back.binding == "JSONRPC" and back.wire_status == rpc["code"] == cls.code
    # v0.3 interfaces render their own HTTP body, which reads back the same.
    status, body = err.to_http("0.3")
    back = errors.classify_http(status, __import__("json").dumps(body), "0.3")
    assert type(back) is cls


def test_base_classes_and_families() -> None:
    with pytest.raises(TypeError, match="abstract"):
        errors.A2AError("x")
    with pytest.raises(ValueError, match="no A2A error kind"):
        errors.A2AError.from_kind("Nope")
    assert issubclass(errors.ValidationError, ValueError) and issubclass(errors.MissingFieldError, errors.ValidationError)
    assert issubclass(errors.NotA2AError, errors.ClientError) and not issubclass(errors.NotA2AError, errors.A2AError)
    assert errors.TaskNotFoundError().message == "Task not found"


def test_exceptions_pickle_with_their_fields() -> None:
    e = errors.TaskNotCancelableError("done already", metadata={"state": "completed"}, binding="GRPC", wire_status=9)
    back = pickle.loads(pickle.dumps(e))
    assert type(back) is type(e) and back.metadata == e.metadata and back.wire_status == 9 and back.binding == "GRPC"
    n = pickle.loads(pickle.dumps(errors.NotA2AError(502, "bad gateway", binding="HTTP+JSON")))
    assert n.status == 502 and n.binding == "HTTP+JSON"
    v = pickle.loads(pickle.dumps(errors.MissingFieldError("required", path="message.parts", line=1, column=2)))
    assert v.path == "message.parts" and v.line == 1


def test_a_proxy_404_is_never_task_not_found() -> None:
    got = errors.classify_http(404, "<html>Not Found</html>")
    assert isinstance(got, errors.NotA2AError) and got.status == 404


def test_negotiation_and_interface_selection() -> None:
    assert a2a_wire.negotiate(None, ["1.0", "0.3"]) == "0.3"
    assert a2a_wire.negotiate("1.0.1", ["1.0"]) == "1.0"
    with pytest.raises(errors.VersionNotSupportedError) as e:
        a2a_wire.negotiate("0.3", ["1.0"])
    assert e.value.metadata["supportedVersions"] == "1.0"
    card = a2a_wire.AgentCard(
        name="x",
        supported_interfaces=[
            a2a_wire.AgentInterface(url="http://h/rpc", protocol_binding="JSONRPC", protocol_version="0.3"),
            a2a_wire.AgentInterface(url="http://h/rpc1", protocol_binding="JSONRPC", protocol_version="1.0", tenant="t"),
            a2a_wire.AgentInterface(url="h:50051", protocol_binding="GRPC", protocol_version="1.0"),
        ],
    )
    s = a2a_wire.select_interface(card)
    assert s == ("http://h/rpc1", "JSONRPC", "1.0", "t", 1) and s.entry_index == 1
    assert a2a_wire.select_interface(card, bindings=["GRPC"]).url == "h:50051"
    with pytest.raises(errors.CannotSendError, match="offered"):
        a2a_wire.select_interface(card, bindings=["HTTP+JSON"])
    with pytest.raises(ValueError):
        a2a_wire.select_interface(card, bindings=["SOAP"])


def test_read_card_of_either_version() -> None:
    v03 = '{"name":"old","description":"d","version":"1","url":"http://h/a2a","preferredTransport":"JSONRPC","protocolVersion":"0.3.0","capabilities":{},"defaultInputModes":[],"defaultOutputModes":[],"skills":[]}'
    card, shape = a2a_wire.read_card(v03)
    assert shape == "0.3" and card.supported_interfaces[0].url == "http://h/a2a"
    assert card.supported_interfaces[0].protocol_version == "0.3"
    with pytest.raises(ValueError):
        a2a_wire.read_card("[]")
