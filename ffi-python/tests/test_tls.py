"""TLS from Python, with a throwaway CA made at test time (``a2a-wire-testca``, built by
``make py-test``): the ready server with ``tls=(cert, key)`` on every binding, our client with
``ca_file`` (and refusing what it cannot verify), and the official SDK's client
(tests/interop/python/their_client.py, a2a-sdk from PyPI) against our TLS server on all three
bindings, in v1.0 and v0.3.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from hosts import base_card
from conftest import REPO

import a2a_wire as a
from a2a_wire.client import Client
from a2a_wire.server import AgentServer, Events, RequestContext

TESTCA = os.environ.get("A2A_TESTCA_BIN", str(REPO / "target" / "debug" / "a2a-wire-testca"))
THEIR_CLIENT = REPO / "tests" / "interop" / "python" / "their_client.py"


@pytest.fixture(scope="module")
def certs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("tls")
    assert os.access(TESTCA, os.X_OK), f"{TESTCA} is missing: cargo build -p a2a-wire-tests --bin a2a-wire-testca"
    subprocess.run([TESTCA, str(d)], check=True, timeout=60)
    return d


async def demo(ctx: RequestContext, events: Events) -> None:
    # The interop matrix's agent: need-input, slow, message-only, echo.
    if ctx.follow_up:
        events.artifact(ctx.text, artifact_id="echo", last_chunk=True)
        events.complete()
    elif ctx.text == "need-input":
        events.status(a.TaskState.INPUT_REQUIRED, "What should I echo?")
    elif ctx.text == "slow":
        events.status(a.TaskState.WORKING)
        for i, piece in enumerate(["one ", "two ", "three"]):
            await asyncio.sleep(0.05)
            events.artifact(piece, artifact_id="slow", append=i > 0, last_chunk=i == 2)
        events.complete()
    elif ctx.text == "message-only":
        events.message(ctx.text)
    else:
        events.artifact(ctx.text, artifact_id="echo", last_chunk=True)
        events.complete()


def server(certs: Path) -> AgentServer:
    return AgentServer(demo, card=base_card(), tls=(certs / "server.pem", certs / "server.key"))


async def test_our_client_talks_to_our_tls_server_on_every_binding(certs: Path) -> None:
    async with server(certs) as s:
        assert s.url.startswith("https://127.0.0.1:")
        assert all(i.url.startswith("https://") for i in s.card.supported_interfaces)
        for binding in ("JSONRPC", "HTTP+JSON", "GRPC"):
            for version in ("1.0", "0.3"):
                async with await Client.connect(s.url, bindings=[binding], versions=[version], ca_file=certs / "ca.pem") as c:
                    reply = await c.send_message("hello")
                    assert isinstance(reply, a.Task) and reply.status.state == a.TaskState.COMPLETED, (binding, version)


async def test_a_certificate_that_does_not_verify_is_a_tls_error(certs: Path, tmp_path: Path) -> None:
    other = tmp_path / "other"
    subprocess.run([TESTCA, str(other)], check=True, timeout=60)
    async with server(certs) as s:
        for ca in (None, other / "ca.pem"):
            with pytest.raises(a.TLSError) as e:
                await Client.connect(s.url, ca_file=ca)
            assert isinstance(e.value, a.TransportError)
            # Another CA of the same name fails on its signature, the platform's roots on the issuer.
            assert "invalid peer certificate" in str(e.value) or "no trusted root" in str(e.value), str(e.value)
    with pytest.raises(a.TLSError):
        async with AgentServer(demo, card=base_card(), tls=(certs / "server.pem", certs / "missing.key")):
            pass


async def test_the_official_sdk_client_talks_to_our_tls_server_on_every_binding(certs: Path) -> None:
    async with server(certs) as s:
        proc = await asyncio.create_subprocess_exec(
            sys.executable, str(THEIR_CLIENT), "--url", s.url, "--ca-file", str(certs / "ca.pem"),
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
        )
        out, err = await asyncio.wait_for(proc.communicate(), 300)
    rows = [json.loads(line) for line in out.decode().splitlines() if line.startswith("{")]
    failed = [r for r in rows if not r["ok"]]
    assert not failed, json.dumps(failed)[:3000]
    combos = {(r["binding"], r["version"]) for r in rows}
    assert combos == {(b, v) for b in ("JSONRPC", "HTTP+JSON", "GRPC") for v in ("1.0", "0.3")}, (combos, err.decode()[-2000:])
    # Nine checks in v1.0, eight in v0.3 (no ListTasks).
    assert len(rows) == 3 * (9 + 8), len(rows)
