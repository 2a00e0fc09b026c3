"""The Python model: construction, immutability, equality, repr, the three wire forms, and
the round trip through the official SDK's own protobuf classes (a2a-sdk's a2a_pb2)."""

from __future__ import annotations

import copy
import datetime
import json
import pickle

import pytest

import a2a_wire as a
from a2a_wire import errors


def sample() -> a.Task:
    return a.Task(
        id="t-1",
        context_id="c-1",
        status=a.TaskStatus(
            state=a.TaskState.INPUT_REQUIRED,
            timestamp=datetime.datetime(2025, 3, 4, 5, 6, 7, 890000, tzinfo=datetime.timezone.utc),
            message=a.Message(message_id="m-2", role=a.Role.AGENT, parts=[a.Part(text="which city?")]),
        ),
        history=[a.Message(message_id="m-1", role=a.Role.USER, parts=[a.Part(text="weather"), a.Part(raw=b"\x00\xff", media_type="application/octet-stream")])],
        artifacts=[a.Artifact(artifact_id="a-1", parts=[a.Part(data={"n": 1, "list": [True, None, "x"]})])],
        metadata={"trace": "abc", "depth": 2},
    )


def test_fields_read_back_as_python_values() -> None:
    t = sample()
    assert t.id == "t-1" and t.context_id == "c-1"
    assert t.status is not None and t.status.state is a.TaskState.INPUT_REQUIRED
    assert t.status.timestamp == datetime.datetime(2025, 3, 4, 5, 6, 7, 890000, tzinfo=datetime.timezone.utc)
    assert isinstance(t.history, tuple) and t.history[0].parts[1].raw == b"\x00\xff"
    assert t.history[0].role is a.Role.USER
    assert t.artifacts[0].parts[0].data == {"n": 1.0, "list": [True, None, "x"]}
    assert t.metadata == {"trace": "abc", "depth": 2.0}
    # Unset fields read as their defaults; unset optional ones as None.
    empty = a.Task()
    assert empty.id == "" and empty.status is None and empty.history == () and empty.metadata is None
    assert a.Part(text="x").raw is None


def test_objects_are_immutable_values() -> None:
    t = sample()
    with pytest.raises(AttributeError):
        t.id = "other"  # type: ignore[misc]
    changed = t.replace(id="t-2", metadata=None)
    assert changed.id == "t-2" and changed.metadata is None and t.id == "t-1"
    assert t == sample() and t != changed and t != "t-1"
    assert copy.copy(t) is t and copy.deepcopy(t) is t
    assert pickle.loads(pickle.dumps(t)) == t
    with pytest.raises(TypeError):
        hash(t)


def test_repr_shows_the_set_fields() -> None:
    assert repr(a.Part(text="hi")) == "Part(text='hi')"
    assert repr(a.TaskStatus(state=a.TaskState.WORKING)) == "TaskStatus(state=<TaskState.WORKING: 2>)"
    assert repr(a.Task()) == "Task()"


def test_json_is_exact_protojson() -> None:
    t = sample()
    text = t.to_json()
    assert text.startswith('{"id":"t-1","contextId":"c-1","status":{"state":"TASK_STATE_INPUT_REQUIRED"')
    assert '"timestamp":"2025-03-04T05:06:07.890Z"' in text and '"raw":"AP8="' in text
    assert a.Task.from_json(text) == t and a.Task.from_json(text.encode()) == t
    assert a.Task.from_dict(json.loads(text)) == t
    assert t.to_dict() == json.loads(text)


def test_enums_are_enum_members_with_proto_names() -> None:
    assert a.TaskState.COMPLETED.value == 3 and a.TaskState.COMPLETED.proto_name == "TASK_STATE_COMPLETED"
    assert a.Role(2) is a.Role.AGENT
    # A number this version does not know (from a newer peer) still reads and writes back.
    future = a.TaskStatus.from_json('{"state":42}')
    assert future.state.value == 42 and future.state.name == "UNKNOWN_42"
    assert json.loads(future.to_json()) == {"state": 42}
    assert a.TaskStatus(state=3).state is a.TaskState.COMPLETED


def test_wrong_values_name_the_field() -> None:
    with pytest.raises(TypeError, match=r"Message\.parts\[1\]: expected Part, got dict"):
        a.Message(parts=[a.Part(text="x"), {"text": "y"}])
    with pytest.raises(TypeError, match=r"Task\.id: expected str, got int"):
        a.Task(id=5)
    with pytest.raises(TypeError, match="unexpected keyword argument 'contextId'"):
        a.Task(contextId="c")
    with pytest.raises(TypeError, match="members of the oneof `content`"):
        a.Part(text="x", url="https://example.com")
    with pytest.raises(ValueError, match="naive datetime"):
        a.TaskStatus(timestamp=datetime.datetime(2025, 1, 1))
    with pytest.raises(TypeError, match=r"Task\.metadata: .*"):
        a.Task(metadata={"x": object()})
    with pytest.raises(ValueError, match="finite"):
        a.Task(metadata={"x": float("nan")})
    with pytest.raises(TypeError, match="expected a sequence, got str"):
        a.Message(parts="text")
    selfref: list[object] = []
    selfref.append(selfref)
    with pytest.raises(ValueError, match="nested too deeply"):
        a.Part(data=selfref)


def test_validation_errors_carry_path_and_position() -> None:
    with pytest.raises(errors.MissingFieldError) as e:
        a.Message.from_json('{"role":"ROLE_USER","parts":[{"text":"x"}]}')
    assert e.value.path == "messageId" and [v.field for v in e.value.violations] == ["messageId"]
    with pytest.raises(errors.JsonSyntaxError) as s:
        a.Task.from_json('{"id": "x",\n  "contextId": }')
    assert s.value.line == 2 and s.value.column is not None and isinstance(s.value, ValueError)
    with pytest.raises(errors.ProtobufError):
        a.Task.from_protobuf(b"\xff\xff\xff")
    # validate=False reads what is there; validate() checks it later.
    m = a.Message.from_json('{"parts":[{"text":"x"}]}', validate=False)
    with pytest.raises(errors.MissingFieldError):
        m.validate()
    a.Message(message_id="m", role=a.Role.USER, parts=[a.Part(text="x")]).validate()


def test_round_trip_through_the_official_sdk_classes(sample_task_json: str) -> None:
    from a2a.types import a2a_pb2
    from google.protobuf import json_format

    ours = a.Task.from_json(sample_task_json)
    theirs = a2a_pb2.Task()
    json_format.Parse(sample_task_json, theirs)
    # Their bytes read as our object, our bytes read as theirs: the same message.
    assert a.Task.from_protobuf(theirs.SerializeToString()) == ours
    back = a2a_pb2.Task()
    back.ParseFromString(ours.to_protobuf())
    assert back == theirs
    for obj in [sample(), a.Message(message_id="m", role=a.Role.USER, parts=[a.Part(url="https://x.example/f", filename="f")])]:
        pb = getattr(a2a_pb2, type(obj).__name__)()
        pb.ParseFromString(obj.to_protobuf())
        assert type(obj).from_protobuf(pb.SerializeToString()) == obj
        assert json.loads(json_format.MessageToJson(pb)) == obj.to_dict()


def test_every_proto_message_and_enum_has_a_class() -> None:
    from a2a.types import a2a_pb2

    proto_names = set(a2a_pb2.DESCRIPTOR.message_types_by_name) | set(a2a_pb2.DESCRIPTOR.enum_types_by_name)
    assert proto_names == set(a._model.__all__)


def test_the_committed_stub_is_the_generated_one() -> None:
    from pathlib import Path

    import a2a_wire._a2a_wire as native

    committed = Path(__file__).resolve().parents[1] / "python" / "a2a_wire" / "_model.pyi"
    assert committed.read_text() == native._MODEL_STUB, "_model.pyi drifted: run `make py-stubs`"


def test_version_comes_from_cargo() -> None:
    import re
    from pathlib import Path

    cargo = (Path(__file__).resolve().parents[2] / "Cargo.toml").read_text()
    m = re.search(r'\[workspace\.package\][^\[]*?version = "([^"]+)"', cargo)
    assert m is not None and a.__version__ == m.group(1)


def test_the_package_exports_every_class_and_exception() -> None:
    from a2a_wire import errors

    assert set(a._model.__all__) | set(errors.__all__) <= set(a.__all__)
    for name in a.__all__:
        assert hasattr(a, name), name


def test_every_v03_type_of_the_core_has_a_class() -> None:
    from a2a_wire import _a2a_wire, v03

    assert sorted(v03._BY_NAME) == sorted(_a2a_wire._v03_type_names())
