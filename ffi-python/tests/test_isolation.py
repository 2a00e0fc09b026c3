"""Per-principal authorization from Python: two principals on every operation and interface.

The two-principal matrix (``a2a-wire-isolation``, tests/src/bin/isolation.rs, built by
``make py-test``) runs over real sockets against the ready server with ``bearer_tokens`` and
against the ASGI app under uvicorn with an ``authenticate`` callback. Principal B tries every
operation on principal A's tasks and push configs and must get exactly the answer a task that
does not exist gets; A's tasks stay as A left them.
"""

from __future__ import annotations

import asyncio
import json
import os
from typing import Any

import pytest
from conftest import REPO
from fastapi import FastAPI
from hosts import base_card, mounted_card
from hosts import uvicorn_serving as serve

import a2a_wire as a
from a2a_wire.asgi import A2AApp
from a2a_wire.auth import Request
from a2a_wire.server import AgentServer, Events, RequestContext

MATRIX = os.environ.get("A2A_ISOLATION_BIN", str(REPO / "target" / "debug" / "a2a-wire-isolation"))
TOKENS = {"alice-token": "alice", "bob-token": "bob"}


async def agent(ctx: RequestContext, events: Events) -> None:
    # The two behaviours the matrix needs: a task left waiting, and a finished one.
    if ctx.text == "need-input" and not ctx.follow_up:
        events.status(a.TaskState.INPUT_REQUIRED, "What should I echo?")
        return
    events.artifact(ctx.text, artifact_id="echo", last_chunk=True)
    events.complete()


def push_card(card: a.AgentCard) -> a.AgentCard:
    return card.replace(capabilities=a.AgentCapabilities(streaming=True, push_notifications=True))


async def run_matrix(url: str) -> tuple[int, list[dict[str, Any]]]:
    assert os.access(MATRIX, os.X_OK), f"{MATRIX} is missing: cargo build -p a2a-wire-tests --bin a2a-wire-isolation"
    proc = await asyncio.create_subprocess_exec(
        MATRIX, "--url", url, "--token-a", "alice-token", "--token-b", "bob-token", stdout=asyncio.subprocess.PIPE
    )
    out, _ = await asyncio.wait_for(proc.communicate(), 90)
    rows = [json.loads(line) for line in out.decode().splitlines() if line.strip()]
    return proc.returncode if proc.returncode is not None else -1, rows


def assert_isolated(code: int, rows: list[dict[str, Any]], interfaces: int) -> None:
    failed = [r for r in rows if not r["ok"]]
    assert not failed, failed
    assert len({(r["binding"], r["version"]) for r in rows}) == interfaces, rows
    # Every check ran on every interface (none skipped as missing).
    assert len(rows) == 14 * interfaces, len(rows)
    assert code == 0


async def test_the_ready_server_with_bearer_tokens_keeps_principals_apart() -> None:
    async with AgentServer(agent, card=push_card(base_card()), bearer_tokens=TOKENS) as s:
        assert "bearer" in s.card.security_schemes
        code, rows = await run_matrix(s.url)
    assert_isolated(code, rows, 6)


async def test_the_matrix_catches_two_tokens_of_one_principal() -> None:
    async with AgentServer(agent, card=push_card(base_card()), bearer_tokens={"alice-token": "alice", "bob-token": "alice"}) as s:
        code, rows = await run_matrix(s.url)
    assert code == 1
    leaked = {(r["binding"], r["version"]) for r in rows if r["check"] == "get" and not r["ok"]}
    assert len(leaked) == 6, rows


async def test_the_asgi_app_keeps_the_principals_its_authenticator_names_apart() -> None:
    async def judge(req: Request) -> str | None:
        value = req.headers.get("authorization", "")
        principal = TOKENS.get(value.removeprefix("Bearer ")) if value.startswith("Bearer ") else None
        if principal is None:
            raise a.UnauthenticatedError("send a known bearer token")
        return principal

    def app_for(base: str) -> FastAPI:
        a2a = A2AApp(agent, push_card(mounted_card(base)), authenticate=judge)
        app = FastAPI(lifespan=a2a.lifespan)
        app.mount("/", a2a)
        return app

    async with serve(app_for) as base:
        code, rows = await run_matrix(base)
    assert_isolated(code, rows, 4)


def test_bearer_tokens_are_checked_when_the_server_starts() -> None:
    async def start(tokens: dict[str, str]) -> None:
        async with AgentServer(agent, card=base_card(), bearer_tokens=tokens):
            pass

    with pytest.raises(ValueError, match="empty"):
        asyncio.run(start({}))
    with pytest.raises(ValueError, match='token of "carol"') as e:
        asyncio.run(start({"not a token": "carol"}))
    assert "not a token" not in str(e.value), "the message must not repeat the secret"
