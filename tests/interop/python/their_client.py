#!/usr/bin/env python3
"""Drive an A2A server with the official Python SDK client (a2a-sdk 1.3.0 or 1.0.3).

    their_client.py --url http://127.0.0.1:PORT [--timeout 20] [--server a2a-wire]

For every binding (JSONRPC, HTTP+JSON, GRPC) x protocol version (1.0, 0.3)
the SDK client supports, runs each check on its own and prints one JSON
object per line:

  {"sdk":"python","client":"python","server":"a2a-wire","binding":"JSONRPC",
   "version":"1.0","check":"send","ok":true,"detail":"..."}

Checks (tests/interop/CHECKS.md): card, send, get, stream, input_required,
cancel_completed, get_unknown, list (1.0 only), message_only, file, push,
resubscribe.  A failing check never stops the others; the exit status is 0
whatever the results (the caller judges).

push: a small asyncio HTTP listener on 127.0.0.1 (free port, /webhook) takes
the notifications; the config rides in the SendMessage configuration
(task_push_notification_config, return_immediately=True; the v0.3 layer sends
it as pushNotificationConfig with blocking=false).  resubscribe: the first
streamed event is read, the SDK's stream generator is closed (aclose() ends
the HTTP response / cancels the gRPC call), then Client.subscribe() (v1.0
SubscribeToTask, v0.3 tasks/resubscribe) is read to the end.

One program for both SDK releases: the client API used here is the same in
a2a-sdk 1.0.3 and 1.3.0 (same v1.0 protos, same ClientFactory and v0.3
Compat*Transport classes), so nothing is chosen by version; the venv that
runs it decides, and the detail of the card check names the release.

How the SDK is steered to one interface: ClientFactory.create() picks among
the card's supportedInterfaces itself, preferring protocol 1.0, and decides
between the 1.0 and the v0.3 compat transports by looking the chosen URL up
in the card again.  Where two interfaces share a URL (a2a-wire lists one
gRPC address for 1.0 and 0.3) that lookup always lands on 1.0.  So each
client is made from a copy of the card whose supportedInterfaces holds only
the interface under test.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import importlib.metadata
import json
import os
import ssl
import sys
import time
import traceback
import uuid
from collections.abc import Awaitable, Callable
from typing import Any

import grpc
import grpc.aio
import httpx

from a2a.client import A2ACardResolver, ClientConfig, ClientFactory
from a2a.types.a2a_pb2 import (
    AgentCard,
    CancelTaskRequest,
    GetTaskRequest,
    ListTasksRequest,
    Message,
    Part,
    Role,
    SendMessageConfiguration,
    SendMessageRequest,
    StreamResponse,
    SubscribeToTaskRequest,
    Task,
    TaskPushNotificationConfig,
    TaskState,
)
from a2a.utils.errors import TaskNotCancelableError, TaskNotFoundError

BINDINGS = ("JSONRPC", "HTTP+JSON", "GRPC")
VERSIONS = ("1.0", "0.3")
CHECKS = (
    "card",
    "send",
    "get",
    "stream",
    "input_required",
    "cancel_completed",
    "get_unknown",
    "list",
    "message_only",
    "file",
    "push",
    "resubscribe",
)
SDK_VERSION = importlib.metadata.version("a2a-sdk")

# A2A_INTEROP_CHECKS=card,send,...: run only these checks (the bindings' tests run the nine
# their agents implement; unset: every check).
ONLY_CHECKS = {c for c in os.environ.get("A2A_INTEROP_CHECKS", "").split(",") if c}

# CHECKS.md: 32 bytes that are neither UTF-8 nor base64 text.
FILE_BYTES = b"a2a-wire \x00\x01\x02\xfe\xff file bytes \x89PNG\r\n"
FILE_NAME = "hello.bin"
FILE_MEDIA_TYPE = "application/octet-stream"


class CheckFailed(Exception):
    """A check ran to the end but the answer was wrong."""


def token_of(headers: dict[str, str], version: str) -> str | None:
    """The push token as tests/interop/CHECKS.md reads it: `X-A2A-Notification-Token` (the
    v0.3 spec's header); on 1.0, which names no header since v1.0.1, also
    `A2A-Notification-Token` (a2a-go v2's and a2a-wire's)."""
    if version == "1.0" and "a2a-notification-token" in headers:
        return headers["a2a-notification-token"]
    return headers.get("x-a2a-notification-token")


def state_name(state: int) -> str:
    return TaskState.Name(state)


def artifact_text(task: Task) -> str:
    return "".join(
        p.text for a in task.artifacts for p in a.parts if p.HasField("text")
    )


def describe(exc: BaseException) -> str:
    if isinstance(exc, CheckFailed):
        return str(exc)
    if isinstance(exc, asyncio.TimeoutError):
        return "TimeoutError: no answer within the time limit"
    text = f"{type(exc).__name__}: {exc}"
    cause = exc.__cause__
    if cause is not None:
        text += f" (caused by {type(cause).__name__}: {cause})"
    return text


def version_matches(iface_version: str, wanted: str) -> bool:
    parts = iface_version.split(".")
    return ".".join(parts[:2]) == wanted


def user_message(text: str, task_id: str = "", context_id: str = "") -> Message:
    return Message(
        message_id=f"py-{uuid.uuid4()}",
        role=Role.ROLE_USER,
        parts=[Part(text=text)],
        task_id=task_id,
        context_id=context_id,
    )


class Webhook:
    """A minimal HTTP/1.1 listener on 127.0.0.1 that records every POST to /webhook."""

    def __init__(self) -> None:
        self.posts: list[tuple[dict[str, str], bytes]] = []
        self.arrived = asyncio.Event()
        self.server: asyncio.base_events.Server | None = None
        self.conns: dict[asyncio.Task, asyncio.StreamWriter] = {}

    async def start(self) -> str:
        self.server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        port = self.server.sockets[0].getsockname()[1]
        return f"http://127.0.0.1:{port}/webhook"

    async def stop(self) -> None:
        if self.server is not None:
            self.server.close()
        # Close kept-alive connections too, so no handler outlives the check.
        for writer in self.conns.values():
            writer.close()
        if self.conns:
            await asyncio.wait(list(self.conns), timeout=2)

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        me = asyncio.current_task()
        self.conns[me] = writer
        try:
            while True:  # keep-alive: several requests on one connection
                head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 30)
                lines = head.decode("latin-1").split("\r\n")
                method, path = lines[0].split(" ")[:2]
                headers = {}
                for line in lines[1:]:
                    if ":" in line:
                        k, v = line.split(":", 1)
                        headers[k.strip().lower()] = v.strip()
                body = await reader.readexactly(int(headers.get("content-length", "0")))
                status = "404 Not Found"
                if path == "/webhook":
                    status = "200 OK" if method == "POST" else "405 Method Not Allowed"
                    if method == "POST":
                        self.posts.append((headers, body))
                        self.arrived.set()
                writer.write(f"HTTP/1.1 {status}\r\ncontent-length: 0\r\n\r\n".encode())
                await writer.drain()
        except (asyncio.IncompleteReadError, asyncio.TimeoutError, ConnectionError, ValueError):
            pass
        finally:
            writer.close()
            self.conns.pop(me, None)


def push_names_completed(body: Any, task_id: str, version: str) -> bool:
    """Whether a push body names the task and its completed state, as CHECKS.md has it per version."""
    if not isinstance(body, dict):
        return False
    if version == "0.3":
        # v0.3: the Task object itself, state "completed".
        return (body.get("id") == task_id
                and (body.get("status") or {}).get("state") == "completed")
    # v1.0: a StreamResponse (task or statusUpdate) or a bare Task.
    if isinstance(body.get("statusUpdate"), dict):
        upd = body["statusUpdate"]
        return (upd.get("taskId") == task_id
                and (upd.get("status") or {}).get("state") == "TASK_STATE_COMPLETED")
    task = body.get("task") if isinstance(body.get("task"), dict) else body
    return (task.get("id") == task_id
            and (task.get("status") or {}).get("state") == "TASK_STATE_COMPLETED")


def push_summary(body: bytes) -> str:
    """A short form of one push body: its top-level keys and the state it carries."""
    try:
        obj = json.loads(body)
    except ValueError:
        return f"not JSON: {body[:80]!r}"
    if not isinstance(obj, dict):
        return f"JSON {type(obj).__name__}"
    inner = next((obj[k] for k in ("statusUpdate", "task", "artifactUpdate") if isinstance(obj.get(k), dict)), obj)
    state = (inner.get("status") or {}).get("state") if isinstance(inner.get("status"), dict) else None
    return f"{sorted(obj)[:4]}{' ' + state if state else ''}"


class Combo:
    """One binding x version: its clients and what the checks learnt."""

    def __init__(self, args: argparse.Namespace, card: AgentCard | None,
                 card_error: str | None, binding: str, version: str):
        self.args = args
        self.card = card
        self.card_error = card_error
        self.binding = binding
        self.version = version
        self.timeout = args.timeout
        self.http: httpx.AsyncClient | None = None
        self.client = None          # non-streaming (SendMessage)
        self.stream_client = None   # streaming (SendStreamingMessage)
        self.task_ids: list[str] = []  # completed tasks, for get/cancel/list

    def emit(self, check: str, ok: bool, detail: str) -> None:
        rec = {
            "sdk": "python",
            "client": "python",
            "server": self.args.server,
            "binding": self.binding,
            "version": self.version,
            "check": check,
            "ok": ok,
            "detail": detail,
        }
        print(json.dumps(rec, separators=(",", ":")), flush=True)

    async def run(self, check: str, fn: Callable[[], Awaitable[str]]) -> None:
        if ONLY_CHECKS and check not in ONLY_CHECKS:
            return
        started = time.monotonic()
        try:
            detail = await asyncio.wait_for(fn(), self.timeout)
            ok = True
        except Exception as exc:  # noqa: BLE001 - every failure is reported
            if self.args.verbose:
                traceback.print_exc(file=sys.stderr)
            ok, detail = False, describe(exc)
        self.emit(check, ok, f"{detail} [{time.monotonic() - started:.2f}s]")

    # -- setup --------------------------------------------------------------

    def _channel(self, url: str) -> grpc.aio.Channel:
        # https:// gRPC URLs run TLS (verified against --ca-file); bare host:port is cleartext.
        if url.startswith("https://"):
            target = url.removeprefix("https://").split("/")[0]
            with open(self.args.ca_file, "rb") as f:
                creds = grpc.ssl_channel_credentials(root_certificates=f.read())
            return grpc.aio.secure_channel(target, creds)
        return grpc.aio.insecure_channel(url.removeprefix("http://").split("/")[0])

    def _make_client(self, sub_card: AgentCard, streaming: bool):
        config = ClientConfig(
            streaming=streaming,
            httpx_client=self.http,
            supported_protocol_bindings=[self.binding],
            grpc_channel_factory=self._channel,
        )
        return ClientFactory(config).create(sub_card)

    async def check_card(self) -> str:
        if self.card is None:
            raise CheckFailed(f"agent card not fetched: {self.card_error}")
        matches = [
            i for i in self.card.supported_interfaces
            if i.protocol_binding == self.binding
            and version_matches(i.protocol_version, self.version)
        ]
        if not matches:
            listed = [
                f"{i.protocol_binding}/{i.protocol_version}@{i.url}"
                for i in self.card.supported_interfaces
            ]
            raise CheckFailed(
                f"no {self.binding} {self.version} interface in card; listed: {listed}"
            )
        iface = matches[0]
        sub_card = AgentCard()
        sub_card.CopyFrom(self.card)
        del sub_card.supported_interfaces[:]
        sub_card.supported_interfaces.append(iface)
        self.http = httpx.AsyncClient(timeout=self.timeout, verify=verify(self.args))
        self.client = self._make_client(sub_card, streaming=False)
        self.stream_client = self._make_client(sub_card, streaming=True)
        transport = type(self.client._transport).__name__  # noqa: SLF001
        return f"{iface.url} ({iface.protocol_version}) via {transport}, a2a-sdk {SDK_VERSION}"

    async def close(self) -> None:
        for c in (self.client, self.stream_client):
            if c is not None:
                try:
                    await asyncio.wait_for(c.close(), 5)
                except Exception:  # noqa: BLE001
                    pass
        if self.http is not None:
            await self.http.aclose()

    def _need_client(self):
        if self.client is None:
            raise CheckFailed("skipped: no client (card check failed)")
        return self.client

    # -- helpers ------------------------------------------------------------

    async def send_one(self, message: Message) -> StreamResponse:
        """SendMessage (non-streaming); the single reply."""
        replies = [
            r async for r in self._need_client().send_message(
                SendMessageRequest(message=message)
            )
        ]
        if len(replies) != 1:
            raise CheckFailed(f"expected 1 reply, got {len(replies)}")
        return replies[0]

    async def send_task(self, text: str, task_id: str = "", context_id: str = "") -> Task:
        return await self.send_one_task(user_message(text, task_id, context_id))

    async def send_one_task(self, message: Message) -> Task:
        reply = await self.send_one(message)
        if not reply.HasField("task"):
            raise CheckFailed(
                f"expected a Task, got {reply.WhichOneof('payload')}: {reply}"
            )
        return reply.task

    def any_task_id(self) -> str:
        if not self.task_ids:
            raise CheckFailed("skipped: no completed task to use (send/stream/input_required all failed)")
        return self.task_ids[0]

    # -- checks -------------------------------------------------------------

    async def check_send(self) -> str:
        task = await self.send_task("hello")
        state = state_name(task.status.state)
        text = artifact_text(task)
        if task.status.state != TaskState.TASK_STATE_COMPLETED:
            raise CheckFailed(f"state {state}, expected TASK_STATE_COMPLETED")
        self.task_ids.insert(0, task.id)
        if text != "hello":
            raise CheckFailed(f"artifact text {text!r}, expected 'hello' ({len(task.artifacts)} artifacts)")
        return f"task {task.id} {state}, artifact {text!r}"

    async def check_get(self) -> str:
        tid = self.any_task_id()
        task = await self._need_client().get_task(GetTaskRequest(id=tid))
        if task.id != tid:
            raise CheckFailed(f"asked for {tid}, got task {task.id!r}")
        if task.status.state != TaskState.TASK_STATE_COMPLETED:
            raise CheckFailed(f"state {state_name(task.status.state)}, expected TASK_STATE_COMPLETED")
        return f"task {tid} {state_name(task.status.state)}, artifact {artifact_text(task)!r}"

    async def check_stream(self) -> str:
        if self.stream_client is None:
            raise CheckFailed("skipped: no client (card check failed)")
        events: list[StreamResponse] = []
        async for ev in self.stream_client.send_message(
            SendMessageRequest(message=user_message("slow"))
        ):
            events.append(ev)
        kinds = [ev.WhichOneof("payload") for ev in events]
        chunks = [ev.artifact_update for ev in events if ev.HasField("artifact_update")]
        problems = []
        task_id = ""
        final_state = None
        for ev in events:
            if ev.HasField("task"):
                task_id = ev.task.id
                final_state = ev.task.status.state
            elif ev.HasField("status_update"):
                task_id = task_id or ev.status_update.task_id
                final_state = ev.status_update.status.state
        if len(chunks) != 3:
            problems.append(f"{len(chunks)} artifact updates, expected 3")
        appends = [c.append for c in chunks]
        if appends != [False, True, True][: len(chunks)] or len(chunks) != 3:
            problems.append(f"append flags {appends}, expected [False, True, True]")
        if chunks and not chunks[-1].last_chunk:
            problems.append("last artifact update lacks lastChunk=true")
        ids = {c.artifact.artifact_id for c in chunks}
        if ids and ids != {"slow"}:
            problems.append(f"artifact ids {sorted(ids)}, expected ['slow']")
        text = "".join(p.text for c in chunks for p in c.artifact.parts if p.HasField("text"))
        if text != "one two three":
            problems.append(f"assembled text {text!r}, expected 'one two three'")
        if final_state != TaskState.TASK_STATE_COMPLETED:
            problems.append(
                f"final state {state_name(final_state) if final_state is not None else None}, "
                "expected TASK_STATE_COMPLETED"
            )
        if final_state == TaskState.TASK_STATE_COMPLETED and task_id:
            self.task_ids.append(task_id)
        summary = f"events {kinds}"
        if problems:
            raise CheckFailed("; ".join(problems) + f" ({summary})")
        return f"task {task_id}: {summary}, text {text!r}"

    async def check_input_required(self) -> str:
        first = await self.send_task("need-input")
        if first.status.state != TaskState.TASK_STATE_INPUT_REQUIRED:
            raise CheckFailed(
                f"first reply state {state_name(first.status.state)}, expected TASK_STATE_INPUT_REQUIRED"
            )
        second = await self.send_task("x", task_id=first.id, context_id=first.context_id)
        if second.id != first.id:
            raise CheckFailed(f"follow-up answered with task {second.id}, expected {first.id}")
        if second.status.state != TaskState.TASK_STATE_COMPLETED:
            raise CheckFailed(
                f"follow-up state {state_name(second.status.state)}, expected TASK_STATE_COMPLETED"
            )
        self.task_ids.append(second.id)
        return f"task {first.id}: INPUT_REQUIRED then COMPLETED, artifact {artifact_text(second)!r}"

    async def check_cancel_completed(self) -> str:
        tid = self.any_task_id()
        try:
            task = await self._need_client().cancel_task(CancelTaskRequest(id=tid))
        except TaskNotCancelableError as exc:
            return f"TaskNotCancelableError: {exc}"
        raise CheckFailed(
            f"cancel of completed task {tid} succeeded: state {state_name(task.status.state)}"
        )

    async def check_get_unknown(self) -> str:
        try:
            task = await self._need_client().get_task(GetTaskRequest(id="no-such-task"))
        except TaskNotFoundError as exc:
            return f"TaskNotFoundError: {exc}"
        raise CheckFailed(f"GetTask no-such-task returned task {task.id!r}")

    async def check_list(self) -> str:
        resp = await self._need_client().list_tasks(ListTasksRequest())
        listed = {t.id for t in resp.tasks}
        missing = [t for t in self.task_ids if t not in listed]
        if not resp.tasks:
            raise CheckFailed("ListTasks returned no tasks")
        if missing:
            raise CheckFailed(f"ListTasks ({len(listed)} tasks) lacks {missing}")
        return f"{len(resp.tasks)} tasks, includes all {len(self.task_ids)} made here"

    async def check_message_only(self) -> str:
        reply = await self.send_one(user_message("message-only"))
        if not reply.HasField("message"):
            raise CheckFailed(f"expected a Message, got {reply.WhichOneof('payload')}")
        text = "".join(p.text for p in reply.message.parts if p.HasField("text"))
        return f"Message role {Role.Name(reply.message.role)} text {text!r}"

    async def check_file(self) -> str:
        message = user_message("file")
        message.parts.append(Part(raw=FILE_BYTES, filename=FILE_NAME, media_type=FILE_MEDIA_TYPE))
        task = await self.send_one_task(message)
        if task.status.state != TaskState.TASK_STATE_COMPLETED:
            raise CheckFailed(f"state {state_name(task.status.state)}, expected TASK_STATE_COMPLETED")
        arts = [a for a in task.artifacts if "file" in (a.artifact_id, a.name)]
        if not arts:
            raise CheckFailed(
                f"no artifact 'file'; artifacts {[a.artifact_id for a in task.artifacts]}, "
                f"text {artifact_text(task)!r}"
            )
        parts = [p for a in arts for p in a.parts]
        said = "".join(p.text for p in parts if p.HasField("text"))
        expected = f"received {len(FILE_BYTES)} bytes sha256 {hashlib.sha256(FILE_BYTES).hexdigest()}"
        files = [p for p in parts if p.HasField("raw")]
        problems = []
        if said != expected:
            problems.append(f"agent said {said!r}, expected {expected!r}")
        if not files:
            kinds = [p.WhichOneof("content") for p in parts]
            problems.append(f"no file part with bytes in artifact 'file' (parts {kinds})")
        elif files[0].raw != FILE_BYTES:
            got = files[0].raw
            problems.append(
                f"file part bytes differ: {len(got)} bytes {got[:48]!r}, expected {len(FILE_BYTES)} bytes"
            )
        if problems:
            raise CheckFailed("; ".join(problems))
        f = files[0]
        return (f"task {task.id}: {said!r}; file part {len(f.raw)} bytes back, "
                f"name {f.filename!r}, media type {f.media_type!r}")

    async def check_push(self) -> str:
        client = self._need_client()
        hook = Webhook()
        url = await hook.start()
        token = f"push-token-{uuid.uuid4()}"
        try:
            request = SendMessageRequest(
                message=user_message("slow"),
                configuration=SendMessageConfiguration(
                    return_immediately=True,
                    task_push_notification_config=TaskPushNotificationConfig(url=url, token=token),
                ),
            )
            replies = [r async for r in client.send_message(request)]
            if len(replies) != 1 or not replies[0].HasField("task"):
                raise CheckFailed(f"expected one Task reply, got {[r.WhichOneof('payload') for r in replies]}")
            task_id = replies[0].task.id
            first_state = state_name(replies[0].task.status.state)
            seen = 0
            deadline = time.monotonic() + max(self.timeout - 1, 1)  # before run()'s own limit
            while True:
                for headers, body in hook.posts[seen:]:
                    seen += 1
                    if token_of(headers, self.version) != token:
                        continue
                    try:
                        obj = json.loads(body)
                    except ValueError:
                        continue
                    if self.args.verbose:
                        print(f"push POST {headers}\n  {body.decode(errors='replace')}", file=sys.stderr)
                    shapes = [push_summary(b) for _, b in hook.posts[:seen]]
                    if push_names_completed(obj, task_id, self.version):
                        return (f"task {task_id} (send answered {first_state}); {len(hook.posts)} POSTs "
                                f"to {url}, token ok; bodies {shapes}")
                    other = "1.0" if self.version == "0.3" else "0.3"
                    if push_names_completed(obj, task_id, other):
                        raise CheckFailed(
                            f"task {task_id} completed, but notified in the v{other} shape, not v{self.version}: "
                            f"POSTs so far {shapes}"
                        )
                hook.arrived.clear()
                try:
                    await asyncio.wait_for(hook.arrived.wait(), max(deadline - time.monotonic(), 0.01))
                except asyncio.TimeoutError:
                    shapes = [
                        f"{push_summary(b)} token="
                        + ("ok" if token_of(h, self.version) == token
                           else repr(token_of(h, self.version)))
                        for h, b in hook.posts
                    ]
                    want = ('the v0.3 Task with state "completed"' if self.version == "0.3"
                            else "a StreamResponse/Task with TASK_STATE_COMPLETED")
                    raise CheckFailed(
                        f"no POST with the token and {want} for task {task_id} "
                        f"(send answered {first_state}); {len(hook.posts)} POSTs: {shapes}"
                    ) from None
        finally:
            await hook.stop()

    async def check_resubscribe(self) -> str:
        if self.stream_client is None:
            raise CheckFailed("skipped: no client (card check failed)")
        first_stream = self.stream_client.send_message(SendMessageRequest(message=user_message("slow")))
        try:
            first = await first_stream.__anext__()
        finally:
            await first_stream.aclose()  # drops the SSE response / cancels the gRPC call
        kind = first.WhichOneof("payload")
        task_id = {
            "task": first.task.id,
            "status_update": first.status_update.task_id,
            "artifact_update": first.artifact_update.task_id,
        }.get(kind, "")
        if not task_id:
            raise CheckFailed(f"first event {kind} names no task")
        events: list[StreamResponse] = [
            ev async for ev in self.stream_client.subscribe(SubscribeToTaskRequest(id=task_id))
        ]
        kinds = [ev.WhichOneof("payload") for ev in events]
        final_state = None
        three = False
        for ev in events:
            if ev.HasField("task"):
                final_state = ev.task.status.state
                three = three or artifact_text(ev.task).endswith("three")
            elif ev.HasField("status_update"):
                final_state = ev.status_update.status.state
            elif ev.HasField("artifact_update"):
                text = "".join(p.text for p in ev.artifact_update.artifact.parts if p.HasField("text"))
                three = three or text == "three"
        problems = []
        if final_state != TaskState.TASK_STATE_COMPLETED:
            problems.append(
                f"second stream ended in {state_name(final_state) if final_state is not None else None}, "
                "expected TASK_STATE_COMPLETED"
            )
        if not three:
            problems.append("chunk 'three' not seen on the second stream")
        if problems:
            raise CheckFailed("; ".join(problems) + f" (first event {kind}; second stream {kinds})")
        return f"task {task_id}: first event {kind}, dropped; resubscribed: {kinds}"

    async def run_all(self) -> None:
        try:
            await self.run("card", self.check_card)
            await self.run("send", self.check_send)
            await self.run("stream", self.check_stream)
            await self.run("input_required", self.check_input_required)
            await self.run("get", self.check_get)
            await self.run("cancel_completed", self.check_cancel_completed)
            await self.run("get_unknown", self.check_get_unknown)
            if self.version == "1.0":
                await self.run("list", self.check_list)
            await self.run("message_only", self.check_message_only)
            await self.run("file", self.check_file)
            await self.run("push", self.check_push)
            await self.run("resubscribe", self.check_resubscribe)
        finally:
            await self.close()


def verify(args: argparse.Namespace) -> ssl.SSLContext | bool:
    """What httpx verifies https:// against: the --ca-file CA only, or its defaults."""
    return ssl.create_default_context(cafile=args.ca_file) if args.ca_file else True


async def fetch_card(url: str, timeout: float, args: argparse.Namespace) -> tuple[AgentCard | None, str | None]:
    try:
        async with httpx.AsyncClient(timeout=timeout, verify=verify(args)) as http:
            card = await asyncio.wait_for(
                A2ACardResolver(http, url).get_agent_card(), timeout
            )
        return card, None
    except Exception as exc:  # noqa: BLE001
        return None, describe(exc)


async def main_async(args: argparse.Namespace) -> None:
    card, card_error = await fetch_card(args.url.rstrip("/"), args.timeout, args)
    bindings = args.binding or BINDINGS
    versions = args.version or VERSIONS
    for binding in bindings:
        for version in versions:
            await Combo(args, card, card_error, binding, version).run_all()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--url", required=True, help="base URL of the agent (its card is at /.well-known/agent-card.json)")
    ap.add_argument("--timeout", type=float, default=20.0, help="seconds allowed for each check")
    ap.add_argument("--server", default="a2a-wire", help="value of the 'server' field in the output")
    ap.add_argument("--binding", action="append", choices=BINDINGS, help="only this binding (repeatable)")
    ap.add_argument("--version", action="append", choices=VERSIONS, help="only this version (repeatable)")
    ap.add_argument("--verbose", action="store_true", help="tracebacks on stderr")
    ap.add_argument("--ca-file", help="PEM CA that https:// agents are verified against (TLS rows)")
    args = ap.parse_args()
    try:
        asyncio.run(main_async(args))
    except Exception:  # noqa: BLE001 - never fail the run: the caller judges
        traceback.print_exc(file=sys.stderr)
    sys.exit(0)


if __name__ == "__main__":
    main()
