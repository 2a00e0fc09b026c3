"""File bytes on v0.3 gRPC and HTTP+JSON from Python (INTEROP.md, "File bytes in v0.3"): the
client's and the ready server's ``v03_file_bytes`` option, against an agent that says how
many bytes it got and sends them back."""

from __future__ import annotations

import base64
from typing import Literal

import pytest

from hosts import base_card

import a2a_wire as a
from a2a_wire.client import Client
from a2a_wire.server import AgentServer, Events, RequestContext

# Not UTF-8 and not base64 text (the interop `file` check's bytes, tests/interop/CHECKS.md).
FILE = b"a2a-wire \x00\x01\x02\xfe\xff file bytes \x89PNG\r\n"


async def sizes(ctx: RequestContext, events: Events) -> None:
    got = next(p.raw for p in ctx.message.parts if p.raw is not None)
    events.artifact(
        a.Artifact(artifact_id="file", parts=[a.Part(text=f"received {len(got)} bytes"), a.Part(raw=got, media_type="application/octet-stream")]),
        last_chunk=True,
    )
    events.complete()


async def round_trip(server_form: Literal["base64", "raw"], client_form: Literal["base64", "raw"], binding: str) -> tuple[str, bytes]:
    async with AgentServer(sizes, card=base_card(), v03_file_bytes=server_form) as server:
        client = await Client.connect(server.url, bindings=[binding], versions=["0.3"], v03_file_bytes=client_form)
        try:
            message = a.Message(message_id="m-file", role=a.Role.USER, parts=[a.Part(raw=FILE, media_type="application/octet-stream")])
            task = await client.send_message(message)
            assert isinstance(task, a.Task)
            parts = task.artifacts[0].parts
            back = next(p.raw for p in parts if p.raw is not None)
            return parts[0].text or "", back
        finally:
            await client.aclose()


@pytest.mark.parametrize("binding", ["GRPC", "HTTP+JSON"])
async def test_either_form_reaches_a_default_server_as_the_bytes_sent(binding: str) -> None:
    for client_form in ("base64", "raw"):
        said, back = await round_trip("base64", client_form, binding)  # type: ignore[arg-type]
        assert said == "received 32 bytes", (client_form, said)
        assert back == FILE, client_form


@pytest.mark.parametrize("binding", ["GRPC", "HTTP+JSON"])
async def test_a_raw_server_reads_the_field_as_it_is(binding: str) -> None:
    # Raw on both sides: the bytes themselves.
    said, back = await round_trip("raw", "raw", binding)
    assert (said, back) == ("received 32 bytes", FILE)
    # A base64-text client against a raw server: the agent gets the 44 bytes of the text.
    said, _ = await round_trip("raw", "base64", binding)
    assert said == f"received {len(base64.b64encode(FILE))} bytes"


async def test_the_option_names_one_of_the_two_forms() -> None:
    with pytest.raises(ValueError, match="base64"):
        AgentServer(sizes, card=base_card(), v03_file_bytes="hex")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="base64"):
        await Client.connect("http://127.0.0.1:1", v03_file_bytes="hex")  # type: ignore[arg-type]
