"""The receiving end of push notifications: the sans-IO receiver's verdicts (an event once, a
redelivery as a duplicate, wrong credentials, unexpected tasks, retry_later), and the ASGI
endpoint under uvicorn on 127.0.0.1 taking a task's events from our ready server, with the
application failing once (503, the server retries, every event seen exactly once and in
order), and the SSRF guard keeping the server away from 127.0.0.1 unless allowed."""

from __future__ import annotations

import asyncio
import logging
import threading
from typing import Any

import httpx
import pytest
from hosts import base_card
from hosts import uvicorn_serving as serve

import a2a_wire as a
from a2a_wire.client import Client, user_message
from a2a_wire.server import AgentServer, Events, RequestContext
from a2a_wire.webhook import Delivery, WebhookEndpoint, WebhookReceiver

TOKEN = "s3cret-token"
CHUNKS = 4


def status_event(task_id: str, state: a.TaskState, context_id: str = "c-1") -> a.StreamResponse:
    return a.StreamResponse(status_update=a.TaskStatusUpdateEvent(task_id=task_id, context_id=context_id, status=a.TaskStatus(state=state)))


def post(rx: WebhookReceiver, event: a.StreamResponse, token: str | None = TOKEN, **extra: str) -> Delivery:
    headers = {"Content-Type": "application/a2a+json", **extra}
    if token is not None:
        headers["A2A-Notification-Token"] = token
    return rx.handle("POST", headers, event.to_json().encode())


def test_the_receiver_hands_each_event_over_once() -> None:
    rx = WebhookReceiver(TOKEN)
    rx.expect_task("t-1")
    assert rx.expects("t-1") and not rx.expects("t-2")
    working = status_event("t-1", a.TaskState.WORKING)
    d = post(rx, working)
    assert (d.kind, d.task_id, d.event, d.error, d.status, d.headers, d.body) == ("event", "t-1", working, None, 204, [], b"")
    assert repr(d) == "Delivery(kind='event', task_id='t-1', status=204)"
    # The same event again (re-encoded the same way or not) is a duplicate: answered, not handed over.
    again = rx.handle("POST", [(b"content-type", b"application/a2a+json"), (b"a2a-notification-token", TOKEN.encode())],
                      working.to_json().encode())
    assert (again.kind, again.task_id, again.event, again.status) == ("duplicate", "t-1", None, 204)
    # The application could not take it: 503 with Retry-After, and the redelivery is an event again.
    later = rx.retry_later(d)
    assert (later.kind, later.event, later.status) == ("event", working, 503)
    assert ("Retry-After", "1") in later.headers
    assert post(rx, working).kind == "event"
    assert post(rx, working).kind == "duplicate"
    # Forgotten tasks are not expected any more.
    rx.forget_task("t-1")
    assert not rx.expects("t-1") and post(rx, working).status == 404


def test_the_receiver_refuses_what_it_must() -> None:
    rx = WebhookReceiver(TOKEN)
    rx.expect_task("t-1")
    event = status_event("t-1", a.TaskState.COMPLETED)
    for token in ("wrong", None):
        d = post(rx, event, token=token)
        assert (d.kind, d.task_id, d.event, d.status) == ("refused", None, None, 401)
        assert isinstance(d.error, a.UnauthenticatedError) and d.error.wire_status == 401
        assert ("Content-Type", "application/json") in d.headers and b"UNAUTHENTICATED" in d.body
        with pytest.raises(ValueError, match="refused delivery cannot be retried"):
            rx.retry_later(d)
    # Refusals were not remembered: the real delivery is still new.
    assert post(rx, event).kind == "event"
    other = post(rx, status_event("t-2", a.TaskState.WORKING))
    assert (other.kind, other.status) == ("refused", 404) and isinstance(other.error, a.TaskNotFoundError)
    garbage = rx.handle("POST", {"A2A-Notification-Token": TOKEN}, b'{"nope": 1}')
    assert garbage.status == 400 and isinstance(garbage.error, a.A2AError)
    assert rx.handle("GET", {"A2A-Notification-Token": TOKEN}, b"").kind == "refused"
    # Both credentials required: one alone is not enough.
    both = WebhookReceiver(TOKEN, authorization="Bearer abc", window=1)
    both.expect_task("t-1")
    assert post(both, event).status == 401
    assert post(both, event, Authorization="Bearer abc").kind == "event"


def test_bad_receiver_settings_are_refused() -> None:
    with pytest.raises(ValueError, match="needs a token or an authorization"):
        WebhookReceiver()
    with pytest.raises(ValueError, match="token is empty"):
        WebhookReceiver("")
    with pytest.raises(ValueError, match="window must be at least 1, got 0"):
        WebhookReceiver(TOKEN, window=0)
    with pytest.raises(ValueError, match="window must be at least 1, got -3"):
        WebhookReceiver(TOKEN, window=-3)
    assert WebhookReceiver(authorization="Bearer x").expects("t") is False
    rx = WebhookReceiver(TOKEN)
    with pytest.raises(TypeError, match="headers"):
        rx.handle("POST", "A2A-Notification-Token: x", b"")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"headers\[0\]"):
        rx.handle("POST", [("only-a-name",)], b"")  # type: ignore[list-item]
    with pytest.raises(TypeError, match="receiver"):
        WebhookEndpoint(object(), lambda t, e: None)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="max_body"):
        WebhookEndpoint(rx, lambda t, e: None, max_body=-1)


class Counted:
    """The endpoint with a count of the HTTP requests that reached it."""

    def __init__(self, app: WebhookEndpoint) -> None:
        self.app = app
        self.requests = 0

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            self.requests += 1
        await self.app(scope, receive, send)


async def test_the_endpoint_under_uvicorn_answers_as_the_receiver_says() -> None:
    rx = WebhookReceiver(TOKEN)
    rx.expect_task("t-1")
    seen: list[tuple[str, a.StreamResponse, str]] = []

    def on_event(task_id: str, event: a.StreamResponse) -> None:  # a plain function: run in a thread
        seen.append((task_id, event, threading.current_thread().name))

    endpoint = WebhookEndpoint(rx, on_event, max_body=2048)
    event = status_event("t-1", a.TaskState.WORKING)
    headers = {"Content-Type": "application/a2a+json", "A2A-Notification-Token": TOKEN}
    async with serve(lambda base: endpoint) as base, httpx.AsyncClient(timeout=10) as http:
        wrong = await http.post(base + "/hook", content=event.to_json(), headers={**headers, "A2A-Notification-Token": "nope"})
        assert wrong.status_code == 401 and seen == []
        unknown = await http.post(base + "/hook", content=status_event("t-9", a.TaskState.WORKING).to_json(), headers=headers)
        assert unknown.status_code == 404 and seen == []
        first = await http.post(base + "/hook", content=event.to_json(), headers=headers)
        assert first.status_code == 204 and [(t, e) for t, e, _ in seen] == [("t-1", event)]
        assert seen[0][2] != threading.main_thread().name
        replay = await http.post(base + "/hook", content=event.to_json(), headers=headers)
        assert replay.status_code == 204 and len(seen) == 1, "a replay is answered, not handed over"
        big = await http.post(base + "/hook", content=b"x" * 4096, headers=headers)
        assert big.status_code == 413 and len(seen) == 1


async def agent(ctx: RequestContext, events: Events) -> None:
    if not ctx.follow_up:
        events.status(a.TaskState.INPUT_REQUIRED, "how many?")
        return
    events.status(a.TaskState.WORKING)
    for i in range(CHUNKS):
        events.artifact(f"chunk {i}", artifact_id="chunks", append=i > 0, last_chunk=i == CHUNKS - 1)
        await events.flush()
    events.complete()


def push_card() -> a.AgentCard:
    return base_card().replace(capabilities=a.AgentCapabilities(streaming=True, push_notifications=True))


async def run_task(url: str, hook: str, rx: WebhookReceiver) -> a.Task:
    """A task with a push config to `hook`: the config is made and the receiver told before
    the follow-up that makes the events."""
    async with await Client.connect(url) as c:
        asked = await c.send_message("start")
        assert isinstance(asked, a.Task) and asked.status is not None and asked.status.state is a.TaskState.INPUT_REQUIRED
        rx.expect_task(asked.id)
        await c.create_push_config(a.TaskPushNotificationConfig(task_id=asked.id, url=hook, token=TOKEN))
        done = await c.send_message(user_message("go", task_id=asked.id, context_id=asked.context_id))
        assert isinstance(done, a.Task) and done.status is not None and done.status.state is a.TaskState.COMPLETED
        return done


def state_of(e: a.StreamResponse) -> a.TaskState | None:
    if e.status_update is not None and e.status_update.status is not None:
        return e.status_update.status.state
    if e.task is not None and e.task.status is not None:
        return e.task.status.state
    return None


def describe(e: a.StreamResponse) -> str:
    if e.artifact_update is not None and e.artifact_update.artifact is not None:
        return f"artifact {e.artifact_update.artifact.parts[0].text}"
    return f"state {state_of(e)}"


async def test_the_ready_server_delivers_to_the_endpoint_and_a_failure_is_retried(caplog: pytest.LogCaptureFixture) -> None:
    rx = WebhookReceiver(TOKEN)
    seen: list[a.StreamResponse] = []
    failed: list[str] = []
    completed = asyncio.Event()

    async def on_event(task_id: str, event: a.StreamResponse) -> None:
        if event.artifact_update is not None and describe(event) == "artifact chunk 1" and not failed:
            failed.append(describe(event))
            raise RuntimeError("the database is down")
        seen.append(event)
        if state_of(event) is a.TaskState.COMPLETED:
            completed.set()

    counted = Counted(WebhookEndpoint(rx, on_event))
    caplog.set_level(logging.ERROR, logger="a2a_wire")
    async with serve(lambda base: counted) as base, AgentServer(agent, card=push_card(), allow_webhooks=["127.0.0.1"]) as s:
        task = await run_task(s.url, base + "/hooks/a2a", rx)
        await asyncio.wait_for(completed.wait(), 30)
    assert failed == ["artifact chunk 1"]
    assert any("the database is down" in (r.exc_text or "") for r in caplog.records), caplog.records
    described = [describe(e) for e in seen]
    # Every event once and in order: the working status, each chunk, the completed status.
    assert described == ["state TaskState.WORKING", *[f"artifact chunk {i}" for i in range(CHUNKS)], "state TaskState.COMPLETED"], described
    assert all((e.status_update or e.artifact_update) is not None for e in seen)
    assert len({e.to_json() for e in seen}) == len(seen)
    assert counted.requests == len(seen) + 1, "one more request: the delivery answered 503 and sent again"
    assert all((e.status_update.task_id if e.status_update else e.artifact_update.task_id) == task.id for e in seen)  # type: ignore[union-attr]


async def test_the_ssrf_guard_keeps_the_server_from_loopback_unless_allowed() -> None:
    rx = WebhookReceiver(TOKEN)
    seen: list[a.StreamResponse] = []

    async def on_event(task_id: str, event: a.StreamResponse) -> None:
        seen.append(event)

    counted = Counted(WebhookEndpoint(rx, on_event))
    async with serve(lambda base: counted) as base, AgentServer(agent, card=push_card()) as s:
        await run_task(s.url, base + "/hook", rx)
        await asyncio.sleep(2)  # a delivery would have come by now (it does within ms when allowed)
    assert counted.requests == 0 and seen == []
    with pytest.raises(ValueError, match=r"allow_webhooks: .*10\.0\.0\.0/99"):
        async with AgentServer(agent, card=base_card(), allow_webhooks=["10.0.0.0/99"]):
            pass
    with pytest.raises(TypeError, match="allow_webhooks"):
        AgentServer(agent, card=base_card(), allow_webhooks="127.0.0.1")


async def test_the_asgi_app_delivers_to_allowed_hosts_only() -> None:
    from hosts import mounted_card

    from a2a_wire.asgi import A2AApp

    rx = WebhookReceiver(TOKEN)
    seen: list[a.StreamResponse] = []
    completed = asyncio.Event()

    async def on_event(task_id: str, event: a.StreamResponse) -> None:
        seen.append(event)
        if state_of(event) is a.TaskState.COMPLETED:
            completed.set()

    def app_for(allow: list[str]) -> Any:
        def make(base: str) -> A2AApp:
            card = mounted_card(base).replace(capabilities=a.AgentCapabilities(streaming=True, push_notifications=True))
            return A2AApp(agent, card, allow_webhooks=allow)
        return make

    counted = Counted(WebhookEndpoint(rx, on_event))
    async with serve(lambda base: counted) as hook:
        async with serve(app_for(["127.0.0.0/8"])) as allowed:
            await run_task(allowed, hook + "/hook", rx)
            await asyncio.wait_for(completed.wait(), 30)
        assert [describe(e) for e in seen][-1] == "state TaskState.COMPLETED" and counted.requests == len(seen)
        before = counted.requests
        async with serve(app_for(["10.0.0.0/8"])) as guarded:
            await run_task(guarded, hook + "/hook", rx)
            await asyncio.sleep(2)
        assert counted.requests == before, "127.0.0.1 is not on this allow-list: nothing was delivered"


async def test_a_bad_webhook_ca_file_is_a_tls_error() -> None:
    with pytest.raises(a.TLSError):
        async with AgentServer(agent, card=base_card(), webhook_ca_file="/nonexistent/ca.pem"):
            pass


def test_the_example_runs_as_written() -> None:
    import subprocess
    import sys

    from conftest import REPO

    example = REPO / "examples" / "python" / "webhook.py"
    out = subprocess.run([sys.executable, str(example), "pushed hello"], capture_output=True, text=True, timeout=120,
                         cwd=example.parent)
    assert out.returncode == 0, out.stdout + out.stderr
    lines = [x for x in out.stdout.splitlines() if x.startswith("pushed for ")]
    assert any('"pushed hello"' in x for x in lines), out.stdout
    assert "TASK_STATE_COMPLETED" in lines[-1], out.stdout
