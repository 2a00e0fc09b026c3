"""The API an SDK user switches to: the authentication hook on both hosts, the request context
(metadata, tenant, configuration), event metadata, safe defaults, cancellation in asyncio's
idiom, one exception root, and the client's shape (async with, per-call options, a header
provider)."""

from __future__ import annotations

import asyncio
import inspect
from typing import Any

import httpx
import pytest

import a2a_wire as a
from a2a_wire import errors
from a2a_wire.auth import ANONYMOUS, Request
from a2a_wire.client import Client, user_message
from a2a_wire.server import AgentServer, Events, RequestContext
from hosts import HOSTS, base_card

seen: list[Request] = []


async def echo(ctx: RequestContext, events: Events) -> None:
    events.artifact(f"{ctx.principal}:{ctx.text}", last_chunk=True)
    events.complete()


def jsonrpc(text: str = "hi") -> dict[str, Any]:
    message = {"messageId": "m1", "role": "ROLE_USER", "parts": [{"text": text}]}
    return {"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": {"message": message}}


async def judge(req: Request) -> str | None:
    seen.append(req)
    if req.headers.get("x-deny"):
        raise PermissionError("not you")
    if req.headers.get("x-anonymous"):
        return ANONYMOUS  # type: ignore[return-value]
    return req.headers.get("x-user")  # None: 401


@pytest.mark.parametrize("host", sorted(HOSTS))
async def test_the_auth_hook_sees_every_header_and_refuses_with_401_or_403(host: str) -> None:
    seen.clear()
    v1 = {"A2A-Version": "1.0"}
    async with HOSTS[host](echo, authenticate=judge) as h, httpx.AsyncClient(timeout=10, headers=v1) as http:
        url = f"{h.url}/a2a/jsonrpc"
        r = await http.post(url, json=jsonrpc(), headers={"X-Trace": "abc", "X-User": "alice"})
        body = r.json()
        assert r.status_code == 200 and "result" in body, body
        assert body["result"]["task"]["artifacts"][0]["parts"][0]["text"] == "alice:hi", body
        req = seen[-1]
        assert (req.method, req.path, req.operation, req.binding, req.version) == ("POST", "/a2a/jsonrpc", "SendMessage", "JSONRPC", "1.0")
        assert req.headers["X-TRACE"] == "abc" and req.headers["x-user"] == "alice" and "content-type" in req.headers
        assert req.peer is not None and req.peer[0] == "127.0.0.1"
        if host == "mounted":
            assert req.scope is not None and req.scope["type"] == "http" and req.scope["path"] == "/a2a/jsonrpc"
        else:
            assert req.scope is None
        # No principal: 401 with the challenge; PermissionError: 403.
        r = await http.post(f"{h.url}/a2a/rest/message:send", json=jsonrpc()["params"])
        assert r.status_code == 401 and "www-authenticate" in r.headers, (r.status_code, dict(r.headers))
        r = await http.post(f"{h.url}/a2a/rest/message:send", json=jsonrpc()["params"], headers={"X-Deny": "1"})
        assert r.status_code == 403 and "not you" in r.text, r.text
        r = await http.post(url, json=jsonrpc("who"), headers={"X-Anonymous": "1"})
        assert r.json()["result"]["task"]["artifacts"][0]["parts"][0]["text"] == "None:who"


async def test_a_plain_function_judges_too_off_the_event_loop() -> None:
    loop_thread: list[bool] = []

    def sync_judge(req: Request) -> str | None:
        import threading

        loop_thread.append(threading.current_thread() is threading.main_thread())
        return "bob" if req.headers.get("authorization") == "Bearer b" else None

    async with AgentServer(echo, card=base_card(), authenticate=sync_judge) as s:
        async with Client.connect(s.url, headers={"Authorization": "Bearer b"}) as c:
            t = await c.send_message("x")
            assert isinstance(t, a.Task) and t.artifacts[0].parts[0].text == "bob:x"
        async with Client.connect(s.url) as c:
            with pytest.raises(a.UnauthenticatedError):
                await c.send_message("x")
    assert loop_thread and not any(loop_thread), "a plain authenticate ran on the event loop's thread"


def test_bearer_tokens_and_authenticate_are_one_or_the_other() -> None:
    with pytest.raises(ValueError, match="not both"):
        AgentServer(echo, card=base_card(), bearer_tokens={"t": "p"}, authenticate=judge)
    with pytest.raises(TypeError, match="authenticate"):
        AgentServer(echo, card=base_card(), authenticate="yes")  # type: ignore[arg-type]


def test_a_server_without_a_card_is_an_error_that_names_it() -> None:
    with pytest.raises(TypeError, match="card="):
        AgentServer(echo)
    with pytest.raises(TypeError, match="card"):
        a.asgi.A2AApp(echo, None)  # type: ignore[arg-type]


def test_the_removed_auth_request_names_its_replacement() -> None:
    with pytest.raises(ImportError, match=r"a2a_wire\.auth\.Request"):
        from a2a_wire.asgi import AuthRequest  # type: ignore[attr-defined]  # noqa: F401


@pytest.mark.parametrize("host", sorted(HOSTS))
async def test_metadata_tenant_and_configuration_reach_the_agent_and_come_back_on_events(host: str) -> None:
    got: list[Any] = []

    async def agent(ctx: RequestContext, events: Events) -> None:
        got.append((ctx.metadata, ctx.tenant, ctx.accepted_output_modes, ctx.configuration))
        events.status(a.TaskState.WORKING, metadata={"step": 1})
        events.artifact("one", metadata={"ext": "x"})
        events.artifact("two")
        events.complete()

    async with HOSTS[host](agent) as h, Client.connect(h.url) as c:
        config = a.SendMessageConfiguration(accepted_output_modes=["text/plain"], history_length=3)
        request = a.SendMessageRequest(message=user_message("go"), metadata={"trace": "t-1"}, configuration=config, tenant="acme")
        events = [e async for e in c.send_streaming_message(request)]
    metadata, tenant, modes, configuration = got[0]
    assert metadata == {"trace": "t-1"}
    assert tenant == "acme"
    assert modes == ["text/plain"] and configuration is not None and configuration.history_length == 3
    statuses = [e.status_update for e in events if e.status_update is not None]
    artifacts = [e.artifact_update for e in events if e.artifact_update is not None]
    assert any(s.metadata == {"step": 1} for s in statuses), statuses
    assert [u.metadata for u in artifacts] == [{"ext": "x"}, None], artifacts
    # Two artifacts without an id stay two, each with a fresh UUID v4.
    ids = [u.artifact.artifact_id for u in artifacts]
    assert len(set(ids)) == 2 and all(len(i) == 36 and i[14] == "4" for i in ids), ids


async def test_agent_messages_get_fresh_uuid_ids() -> None:
    async def agent(ctx: RequestContext, events: Events) -> None:
        events.message("a reply")

    async with AgentServer(agent, card=base_card()) as s, Client.connect(s.url) as c:
        first, second = await c.send_message("x"), await c.send_message("y")
    assert isinstance(first, a.Message) and isinstance(second, a.Message)
    assert first.message_id != second.message_id and len(first.message_id) == 36 and first.message_id[14] == "4"


class SdkStyle:
    """An executor object as the official SDK shapes them: execute and cancel."""

    def __init__(self) -> None:
        self.log: list[str] = []
        self.cancelled_at = 0.0

    async def execute(self, ctx: RequestContext, events: Events) -> None:
        events.status(a.TaskState.WORKING)
        if ctx.text == "patient":
            await ctx.wait_cancelled()
            self.log.append(f"woke flag={ctx.cancelled}")
            return
        try:
            await asyncio.sleep(60)
        except asyncio.CancelledError:
            self.cancelled_at = asyncio.get_running_loop().time()
            self.log.append("CancelledError")
            raise

    async def cancel(self, ctx: RequestContext, events: Events) -> None:
        self.log.append(f"cancel {ctx.text}")


@pytest.mark.parametrize("host", sorted(HOSTS))
async def test_cancel_wakes_the_agent_calls_the_executor_then_cancels_after_the_grace(host: str) -> None:
    agent = SdkStyle()
    async with HOSTS[host](agent, cancel_grace=0.3) as h, Client.connect(h.url) as c:
        for text in ("patient", "stubborn"):
            request = a.SendMessageRequest(message=user_message(text), configuration=a.SendMessageConfiguration(return_immediately=True))
            t = await c.send_message(request)
            assert isinstance(t, a.Task)
            canceled_at = asyncio.get_running_loop().time()
            await c.cancel_task(t.id)
            for _ in range(300):
                if len(agent.log) >= (2 if text == "patient" else 4):
                    break
                await asyncio.sleep(0.01)
            if text == "stubborn":
                # The coroutine that ignores the cancel gets CancelledError once the grace passed.
                assert agent.log[2:] == ["cancel stubborn", "CancelledError"], agent.log
                assert agent.cancelled_at - canceled_at >= 0.25, agent.cancelled_at - canceled_at
    assert sorted(agent.log[:2]) == ["cancel patient", "woke flag=True"], agent.log


def test_every_exception_of_the_package_derives_from_one_root() -> None:
    classes = [getattr(errors, n) for n in errors.__all__ if inspect.isclass(getattr(errors, n))]
    exceptions = [c for c in classes if issubclass(c, BaseException)]
    assert len(exceptions) > 30
    for c in exceptions:
        assert issubclass(c, a.Error), c
    assert issubclass(a.ValidationError, ValueError) and issubclass(a.EncodeError, ValueError)
    assert issubclass(a.CallTimeoutError, TimeoutError) and issubclass(a.ClientClosedError, RuntimeError)
    assert a.Error is errors.Error


async def test_client_shape_async_with_per_call_options_and_a_header_provider() -> None:
    calls = 0
    got: list[tuple[str | None, str | None]] = []

    async def slow(ctx: RequestContext, events: Events) -> None:
        if ctx.text == "slow":
            await asyncio.sleep(2)
        events.complete()

    def recording(req: Request) -> str:
        got.append((req.headers.get("authorization"), req.headers.get("x-call")))
        return "p"

    async def provider() -> dict[str, str]:
        nonlocal calls
        calls += 1
        return {"Authorization": f"Bearer t{calls}"}

    async with AgentServer(slow, card=base_card(), authenticate=recording) as s:
        async with Client.connect(s.url, header_provider=provider) as c:
            await c.send_message("a")
            await c.send_message("b", headers={"X-Call": "two"})
            stream = [e async for e in c.send_streaming_message("c")]
            assert stream
            with pytest.raises(a.CallTimeoutError) as caught:
                await c.send_message("slow", timeout=0.3)
            assert isinstance(caught.value, TimeoutError) and isinstance(caught.value, a.Error)
        assert got[:3] == [("Bearer t1", None), ("Bearer t2", "two"), ("Bearer t3", None)], got
        # After the block the client is closed, with an error of the package's own.
        with pytest.raises(a.ClientClosedError):
            await c.get_task("x")
        # The awaited form still works.
        client = await Client.connect(s.url, header_provider=provider)
        await client.send_message("d")
        await client.aclose()


async def test_per_call_options_are_checked() -> None:
    async with AgentServer(echo, card=base_card()) as s, Client.connect(s.url) as c:
        with pytest.raises(ValueError, match="timeout"):
            await c.send_message("x", timeout=-1)
        with pytest.raises(ValueError, match="headers"):
            await c.send_message("x", headers={"bad name": "v"})
