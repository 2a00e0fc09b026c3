"""HTTP/1.1 framing on the Python ready server: the request-smuggling cases of the framing
table (tests/vectors/http1/framing.json, the file the Rust, C and Node tests read) and its
controls, as raw bytes on a socket, through the table's runner (tests/interop/framing.py,
which also measures the SDKs' servers). The ready server reads HTTP/1.1 through the core's
request reader, so a request with two framings is refused and nothing smuggled in its body
is ever answered."""

from __future__ import annotations

import asyncio
import importlib.util
from urllib.parse import urlsplit

from conftest import REPO
from hosts import ready

from a2a_wire.server import Events, RequestContext

_spec = importlib.util.spec_from_file_location("framing", REPO / "tests" / "interop" / "framing.py")
assert _spec is not None and _spec.loader is not None
framing = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(framing)

CASES = [c for c in framing.TABLE["cases"] if {"smuggling", "control"} & set(c["tags"])]


async def echo(ctx: RequestContext, events: Events) -> None:
    events.artifact(ctx.text, artifact_id="echo", last_chunk=True)
    events.complete()


async def test_the_ready_server_refuses_smuggled_requests() -> None:
    assert any(c["name"] == "te-and-cl" for c in CASES)
    async with ready(echo) as h:
        port = urlsplit(h.url).port
        assert port is not None
        rpc = await asyncio.to_thread(framing.rpc_path, port)
        for case in CASES:
            got = await asyncio.to_thread(framing.run_case, port, rpc, case)
            assert got == framing.expected(case), f"{case['name']}: {got}"
        # Still serving after every refusal.
        last = next(c for c in CASES if c["name"] == "pipelined-requests")
        assert await asyncio.to_thread(framing.run_case, port, rpc, last) == framing.expected(last)
