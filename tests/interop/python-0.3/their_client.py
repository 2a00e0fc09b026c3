#!/usr/bin/env python3
"""Drive an A2A server with the official Python SDK client, v0.3 line (a2a-sdk 0.3.24).

    target/interop-py-0.3-venv/bin/python tests/interop/python-0.3/their_client.py --url http://127.0.0.1:PORT
        [--binding JSONRPC|HTTP+JSON|GRPC]... [--version 0.3]... [--timeout 20] [--server NAME] [--verbose]

Runs every check of tests/interop/CHECKS.md on each binding the card lists, protocol 0.3
only (0.3.24 has no 1.0 client; `--version 1.0` prints one failing `card` row saying so),
and prints one JSON object per check:

  {"sdk":"python-0.3","client":"python-0.3","server":"a2a-wire","binding":"JSONRPC",
   "version":"0.3","check":"send","ok":true,"detail":"..."}

Exit 0 whatever the results.

How the SDK is steered to one interface: 0.3.24's ClientFactory.create() builds a table
{card.preferredTransport: card.url} + {i.transport: i.url for additionalInterfaces} and takes
the first entry (server order) whose transport is in ClientConfig.supported_transports.  Each
client is made from a copy of the card whose `url`/`preferredTransport` is the interface under
test and whose additionalInterfaces lists only it, with supported_transports=[binding].

What 0.3.24's client does not do, so the checks do it (the detail says which applies):
- Errors are only typed on JSON-RPC (A2AClientJSONRPCError with the JSON-RPC code). The
  HTTP+JSON transport raises A2AClientHTTPError(status) without reading the body, the gRPC
  transport lets grpc.aio.AioRpcError through. `cancel_completed`/`get_unknown` therefore
  judge the raw error by 0.3.24's own server mapping (a2a.utils.error_handlers for HTTP:
  TaskNotFound 404, TaskNotCancelable 409; a2a GrpcHandler for gRPC: NOT_FOUND with details
  `TaskNotFoundError: ...`, and details `TaskNotCancelableError: ...` (status UNIMPLEMENTED)).
- The gRPC address of the card goes unchanged to ClientConfig.grpc_channel_factory; the one
  here takes the bare `host:port` that 0.3.24's samples publish (and strips an `http://`).
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import hashlib
import json
import socket
import sys
import time
import traceback
import uuid
from collections.abc import Awaitable, Callable

import grpc
import grpc.aio
import httpx
import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from a2a.client import A2ACardResolver, ClientConfig, ClientFactory
from a2a.client.errors import A2AClientHTTPError, A2AClientJSONRPCError
from a2a.types import (
    AgentCard,
    AgentInterface,
    FilePart,
    FileWithBytes,
    Message,
    Part,
    PushNotificationConfig,
    Role,
    Task,
    TaskArtifactUpdateEvent,
    TaskIdParams,
    TaskQueryParams,
    TaskState,
    TaskStatusUpdateEvent,
    TextPart,
)

BINDINGS = ("JSONRPC", "HTTP+JSON", "GRPC")
VERSIONS = ("0.3",)
FILE_BYTES = b"a2a-wire \x00\x01\x02\xfe\xff file bytes \x89PNG\r\n"
FILE_SUMMARY = f"received {len(FILE_BYTES)} bytes sha256 {hashlib.sha256(FILE_BYTES).hexdigest()}"

# 0.3.24's own server mapping of the two errors (see the module docstring).
TASK_NOT_FOUND = {"JSONRPC": -32001, "HTTP+JSON": 404, "GRPC": (grpc.StatusCode.NOT_FOUND, "TaskNotFoundError")}
TASK_NOT_CANCELABLE = {"JSONRPC": -32002, "HTTP+JSON": 409, "GRPC": (None, "TaskNotCancelableError")}


class CheckFailed(Exception):
    """A check ran to the end but the answer was wrong."""


def describe(exc: BaseException) -> str:
    if isinstance(exc, CheckFailed):
        return str(exc)
    if isinstance(exc, asyncio.TimeoutError):
        return "TimeoutError: no answer within the time limit"
    if isinstance(exc, grpc.aio.AioRpcError):
        return f"AioRpcError: {exc.code().name}: {exc.details()}"
    text = f"{type(exc).__name__}: {exc}"
    if exc.__cause__ is not None:
        text += f" (caused by {type(exc.__cause__).__name__}: {exc.__cause__})"
    return text


def text_of(parts: list[Part]) -> str:
    return "".join(p.root.text for p in parts if isinstance(p.root, TextPart))


def artifact_text(task: Task) -> str:
    return "".join(text_of(a.parts) for a in task.artifacts or [])


def user_message(parts: list[Part] | str, task_id: str | None = None, context_id: str | None = None) -> Message:
    if isinstance(parts, str):
        parts = [Part(root=TextPart(text=parts))]
    return Message(message_id=f"py03-{uuid.uuid4()}", role=Role.user, parts=parts,
                   task_id=task_id, context_id=context_id)


def free_port() -> int:
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def grpc_channel(url: str) -> grpc.aio.Channel:
    return grpc.aio.insecure_channel(url.removeprefix("http://").split("/")[0])


class Webhook:
    """A POST listener on 127.0.0.1:<free port>/webhook (uvicorn + Starlette) for `push`."""

    def __init__(self) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/webhook"
        self.posts: list[tuple[dict[str, str], bytes]] = []
        self.arrived = asyncio.Event()

        async def webhook(request: Request) -> Response:
            self.posts.append((dict(request.headers), await request.body()))
            self.arrived.set()
            return Response(status_code=200)

        app = Starlette(routes=[Route("/webhook", webhook, methods=["POST"])])
        self.server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=self.port,
                                                    log_level="warning", lifespan="off"))
        self.task: asyncio.Task | None = None

    async def __aenter__(self) -> Webhook:
        self.task = asyncio.create_task(self.server.serve())
        deadline = time.monotonic() + 10
        while not self.server.started:
            if self.task.done() or time.monotonic() > deadline:
                raise CheckFailed(f"webhook listener on {self.port} did not start")
            await asyncio.sleep(0.05)
        return self

    async def __aexit__(self, *exc) -> None:
        self.server.should_exit = True
        if self.task is not None:
            try:
                await asyncio.wait_for(self.task, 5)
            except Exception:  # noqa: BLE001
                self.task.cancel()


class Combo:
    """One binding (protocol 0.3): its clients and what the checks learnt."""

    def __init__(self, args: argparse.Namespace, card: AgentCard | None, card_error: str | None,
                 binding: str, version: str):
        self.args = args
        self.card = card
        self.card_error = card_error
        self.binding = binding
        self.version = version
        self.timeout = args.timeout
        self.sub_card: AgentCard | None = None
        self.http: httpx.AsyncClient | None = None
        self.client = None
        self.stream_client = None
        self.task_ids: list[str] = []

    def emit(self, check: str, ok: bool, detail: str) -> None:
        rec = {"sdk": "python-0.3", "client": "python-0.3", "server": self.args.server,
               "binding": self.binding, "version": self.version, "check": check, "ok": ok, "detail": detail}
        print(json.dumps(rec, separators=(",", ":")), flush=True)

    async def run(self, check: str, fn: Callable[[], Awaitable[str]]) -> None:
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

    def _make_client(self, streaming: bool):
        config = ClientConfig(streaming=streaming, httpx_client=self.http,
                              supported_transports=[self.binding], grpc_channel_factory=grpc_channel)
        return ClientFactory(config).create(self.sub_card)

    async def check_card(self) -> str:
        if self.version != "0.3":
            raise CheckFailed(f"a2a-sdk 0.3.24 speaks protocol 0.3 only, not {self.version}")
        if self.card is None:
            raise CheckFailed(f"agent card not fetched: {self.card_error}")
        listed = {self.card.preferred_transport or "JSONRPC": self.card.url}
        for i in self.card.additional_interfaces or []:
            listed.setdefault(i.transport, i.url)
        if self.binding not in listed:
            raise CheckFailed(f"no {self.binding} interface in card; listed: {listed}")
        url = listed[self.binding]
        self.sub_card = self.card.model_copy(update={
            "url": url, "preferred_transport": self.binding,
            "additional_interfaces": [AgentInterface(transport=self.binding, url=url)],
        })
        self.http = httpx.AsyncClient(timeout=self.timeout)
        self.client = self._make_client(streaming=False)
        self.stream_client = self._make_client(streaming=True)
        transport = type(self.client._transport).__name__  # noqa: SLF001
        return f"{url} (protocolVersion {self.card.protocol_version}) via {transport}"

    async def close(self) -> None:
        for c in (self.client, self.stream_client):
            if c is not None and self.binding == "GRPC":
                try:
                    await asyncio.wait_for(c.close(), 5)
                except Exception:  # noqa: BLE001
                    pass
        if self.http is not None:
            await self.http.aclose()

    def _need(self, client):
        if client is None:
            raise CheckFailed("skipped: no client (card check failed)")
        return client

    # -- helpers ------------------------------------------------------------

    async def send_one(self, message: Message):
        """message/send (non-streaming); the Task or Message of the single reply."""
        replies = [r async for r in self._need(self.client).send_message(message)]
        if len(replies) != 1:
            raise CheckFailed(f"expected 1 reply, got {len(replies)}")
        reply = replies[0]
        return reply[0] if isinstance(reply, tuple) else reply

    async def send_task(self, message: Message | str) -> Task:
        reply = await self.send_one(user_message(message) if isinstance(message, str) else message)
        if not isinstance(reply, Task):
            raise CheckFailed(f"expected a Task, got {type(reply).__name__}: {reply}")
        return reply

    def any_task_id(self) -> str:
        if not self.task_ids:
            raise CheckFailed("skipped: no completed task to use (send/stream/input_required all failed)")
        return self.task_ids[0]

    def expect_error(self, exc: Exception, table: dict, name: str) -> str:
        """Passes (returns a detail) when `exc` is the A2A error `name` as this binding carries it."""
        want = table[self.binding]
        if self.binding == "JSONRPC" and isinstance(exc, A2AClientJSONRPCError):
            if exc.error.code == want:
                return f"JSON-RPC error {exc.error.code}: {exc.error.message}"
            raise CheckFailed(f"JSON-RPC error {exc.error.code} ({exc.error.message}), expected {want} {name}")
        if self.binding == "HTTP+JSON" and isinstance(exc, A2AClientHTTPError):
            said = exc.message.splitlines()[0]
            if exc.status_code == want:
                return f"HTTP {exc.status_code} ({name} per 0.3.24's mapping): {said}"
            raise CheckFailed(f"HTTP {exc.status_code} ({said}), expected {want} for {name}")
        if self.binding == "GRPC" and isinstance(exc, grpc.aio.AioRpcError):
            code, prefix = want
            details = exc.details() or ""
            if details.startswith(prefix) and (code is None or exc.code() == code):
                return f"gRPC {exc.code().name}: {details}"
            raise CheckFailed(f"gRPC {exc.code().name}: {details!r}, expected details '{prefix}: ...'"
                              + (f" with {code.name}" if code else ""))
        raise exc

    # -- checks -------------------------------------------------------------

    async def check_send(self) -> str:
        task = await self.send_task("hello")
        if task.status.state != TaskState.completed:
            raise CheckFailed(f"state {task.status.state.value}, expected completed")
        self.task_ids.insert(0, task.id)
        if artifact_text(task) != "hello":
            raise CheckFailed(f"artifact text {artifact_text(task)!r}, expected 'hello'")
        return f"task {task.id} completed, artifact 'hello'"

    async def check_get(self) -> str:
        tid = self.any_task_id()
        task = await self._need(self.client).get_task(TaskQueryParams(id=tid))
        if task.id != tid:
            raise CheckFailed(f"asked for {tid}, got task {task.id!r}")
        if task.status.state != TaskState.completed:
            raise CheckFailed(f"state {task.status.state.value}, expected completed")
        return f"task {tid} completed, artifact {artifact_text(task)!r}"

    @staticmethod
    def judge_slow(updates: list, final_state: TaskState | None) -> tuple[list[str], str]:
        chunks = [u for u in updates if isinstance(u, TaskArtifactUpdateEvent)]
        text = "".join(text_of(c.artifact.parts) for c in chunks)
        problems = []
        if text != "one two three":
            problems.append(f"assembled text {text!r}, expected 'one two three'")
        if [bool(c.append) for c in chunks] != [False, True, True]:
            problems.append(f"append flags {[c.append for c in chunks]}, expected [False, True, True]")
        if chunks and not chunks[-1].last_chunk:
            problems.append("last artifact update lacks lastChunk")
        if final_state != TaskState.completed:
            problems.append(f"final state {final_state.value if final_state else None}, expected completed")
        return problems, text

    async def check_stream(self) -> str:
        task, updates = None, []
        msg = user_message("slow")
        async for ev in self._need(self.stream_client).send_message(msg):
            if isinstance(ev, Message):
                raise CheckFailed(f"got a Message: {ev}")
            task, update = ev
            # Copied now: the SDK's ClientTaskManager appends later chunks into the first
            # chunk's artifact object (the event it yielded), so it would read "one two three".
            updates.append((update if update is not None else task).model_copy(deep=True))
        kinds = [type(u).__name__ for u in updates]
        final_state = task.status.state if task else None
        problems, text = self.judge_slow(updates, final_state)
        if problems:
            raise CheckFailed("; ".join(problems) + f" (events {kinds})")
        self.task_ids.append(task.id)
        return f"task {task.id}: events {kinds}, text {text!r}"

    async def check_input_required(self) -> str:
        first = await self.send_task("need-input")
        if first.status.state != TaskState.input_required:
            raise CheckFailed(f"first reply state {first.status.state.value}, expected input-required")
        second = await self.send_task(user_message("answer", task_id=first.id, context_id=first.context_id))
        if second.id != first.id:
            raise CheckFailed(f"follow-up answered with task {second.id}, expected {first.id}")
        if second.status.state != TaskState.completed:
            raise CheckFailed(f"follow-up state {second.status.state.value}, expected completed")
        if "answer" not in artifact_text(second):
            raise CheckFailed(f"follow-up artifact {artifact_text(second)!r}, expected 'answer'")
        self.task_ids.append(second.id)
        return f"task {first.id}: input-required then completed, artifact {artifact_text(second)!r}"

    async def check_cancel_completed(self) -> str:
        tid = self.any_task_id()
        try:
            task = await self._need(self.client).cancel_task(TaskIdParams(id=tid))
        except Exception as exc:  # noqa: BLE001
            return self.expect_error(exc, TASK_NOT_CANCELABLE, "TaskNotCancelableError")
        raise CheckFailed(f"cancel of completed task {tid} succeeded: state {task.status.state.value}")

    async def check_get_unknown(self) -> str:
        try:
            task = await self._need(self.client).get_task(TaskQueryParams(id="no-such-task"))
        except Exception as exc:  # noqa: BLE001
            return self.expect_error(exc, TASK_NOT_FOUND, "TaskNotFoundError")
        raise CheckFailed(f"tasks/get no-such-task returned task {task.id!r}")

    async def check_message_only(self) -> str:
        reply = await self.send_one(user_message("message-only"))
        if not isinstance(reply, Message):
            raise CheckFailed(f"expected a Message, got {type(reply).__name__}")
        return f"Message role {reply.role.value} text {text_of(reply.parts)!r}"

    async def check_file(self) -> str:
        # A v0.3 FileWithBytes carries base64 text; the transport does the rest.
        sent = FileWithBytes(bytes=base64.b64encode(FILE_BYTES).decode("ascii"),
                             name="hello.bin", mime_type="application/octet-stream")
        task = await self.send_task(user_message([Part(root=TextPart(text="file")), Part(root=FilePart(file=sent))]))
        if task.status.state != TaskState.completed:
            raise CheckFailed(f"state {task.status.state.value}, expected completed")
        arts = [a for a in task.artifacts or [] if a.artifact_id == "file" or a.name == "file"]
        if not arts:
            raise CheckFailed(f"no artifact 'file'; artifacts {[a.artifact_id for a in task.artifacts or []]}"
                              f", text {artifact_text(task)!r}")
        parts = arts[0].parts
        said = text_of(parts)
        files = [p.root.file for p in parts if isinstance(p.root, FilePart)]
        problems = []
        if said != FILE_SUMMARY:
            problems.append(f"agent said {said!r}, expected {FILE_SUMMARY!r}")
        if not files or not isinstance(files[0], FileWithBytes):
            problems.append(f"no file part with bytes in the artifact ({files})")
        else:
            try:
                got = base64.b64decode(files[0].bytes, validate=True)
            except ValueError as exc:
                got = None
                problems.append(f"file bytes not base64 ({exc}): {files[0].bytes[:60]!r}")
            if got is not None and got != FILE_BYTES:
                problems.append(f"file bytes back {got[:48]!r} ({len(got)} bytes), expected FILE_BYTES")
            # The v0.3 proto's FilePart has no name: gRPC and HTTP+JSON drop it (CHECKS.md
            # judges the bytes); the media type survives every binding.
            if files[0].mime_type != "application/octet-stream":
                problems.append(f"mediaType back {files[0].mime_type!r}")
        if problems:
            raise CheckFailed("; ".join(problems))
        return f"task {task.id}: {said}, 32 bytes back"

    async def check_push(self) -> str:
        token = f"push-token-{uuid.uuid4()}"
        async with Webhook() as hook:
            # The config goes in the send configuration through ClientConfig (polling=True makes
            # it blocking=false): a per-call MessageSendConfiguration with a push config breaks
            # 0.3.24's HTTP+JSON and gRPC transports (BaseClient merges it with model_dump +
            # model_copy, leaving a dict that ToProto.push_notification_config cannot read:
            # "AttributeError: 'dict' object has no attribute 'authentication'").
            config = ClientConfig(streaming=False, polling=True, httpx_client=self.http,
                                  supported_transports=[self.binding], grpc_channel_factory=grpc_channel,
                                  push_notification_configs=[PushNotificationConfig(url=hook.url, token=token)])
            client = ClientFactory(config).create(self._need(self.sub_card))
            try:
                replies = [r async for r in client.send_message(user_message("slow"))]
            finally:
                if self.binding == "GRPC":
                    await client.close()
            task = replies[0][0] if replies and isinstance(replies[0], tuple) else None
            if task is None:
                raise CheckFailed(f"expected a Task, got {replies}")
            seen = []
            while True:
                for headers, body in hook.posts[len(seen):]:
                    seen.append((headers, body))
                    try:
                        doc = json.loads(body)
                    except ValueError:
                        continue
                    state = (doc.get("status") or {}).get("state")
                    if headers.get("x-a2a-notification-token") == token and doc.get("id") == task.id \
                            and state == "completed":
                        heads = {k: v for k, v in headers.items() if k in ("content-type", "x-a2a-notification-token", "user-agent")}
                        return (f"{len(seen)} POST(s); completed one: headers {heads}, body keys {sorted(doc)}"
                                f" kind={doc.get('kind')!r} state={state!r}")
                hook.arrived.clear()
                try:
                    await asyncio.wait_for(hook.arrived.wait(), max(self.timeout - 1, 1))
                except asyncio.TimeoutError:
                    last = seen[-1] if seen else None
                    raise CheckFailed(f"no completed POST for task {task.id} with the token; {len(seen)} POST(s)"
                                      + (f", last headers {last[0]} body {last[1][:300]!r}" if last else "")) from None

    async def check_resubscribe(self) -> str:
        stream = self._need(self.stream_client).send_message(user_message("slow"))
        first = await anext(stream)
        await stream.aclose()  # drops the stream (closes the SSE response / the gRPC call)
        if isinstance(first, Message):
            raise CheckFailed(f"first event is a Message: {first}")
        tid = first[0].id
        updates, task = [], None
        async for ev in self._need(self.stream_client).resubscribe(TaskIdParams(id=tid)):
            task, update = ev
            updates.append((update if update is not None else task).model_copy(deep=True))
        kinds = [type(u).__name__ for u in updates]
        chunks = [u for u in updates if isinstance(u, TaskArtifactUpdateEvent)]
        final = task.status.state if task else None
        for u in reversed(updates):
            if isinstance(u, TaskStatusUpdateEvent) or isinstance(u, Task):
                final = u.status.state
                break
        problems = []
        if not chunks or text_of(chunks[-1].artifact.parts) != "three":
            problems.append(f"last chunk {text_of(chunks[-1].artifact.parts) if chunks else None!r}, expected 'three'")
        if final != TaskState.completed:
            problems.append(f"final state {final.value if final else None}, expected completed")
        if problems:
            raise CheckFailed("; ".join(problems) + f" (second stream events {kinds})")
        return f"task {tid}: dropped after {type(first[1] or first[0]).__name__}; second stream {kinds}"

    async def run_all(self) -> None:
        try:
            await self.run("card", self.check_card)
            if self.version != "0.3":
                return
            await self.run("send", self.check_send)
            await self.run("stream", self.check_stream)
            await self.run("input_required", self.check_input_required)
            await self.run("get", self.check_get)
            await self.run("cancel_completed", self.check_cancel_completed)
            await self.run("get_unknown", self.check_get_unknown)
            await self.run("message_only", self.check_message_only)
            await self.run("file", self.check_file)
            await self.run("push", self.check_push)
            await self.run("resubscribe", self.check_resubscribe)
        finally:
            await self.close()


async def fetch_card(url: str, timeout: float) -> tuple[AgentCard | None, str | None]:
    try:
        async with httpx.AsyncClient(timeout=timeout) as http:
            return await asyncio.wait_for(A2ACardResolver(http, url).get_agent_card(), timeout), None
    except Exception as exc:  # noqa: BLE001
        return None, describe(exc)


async def main_async(args: argparse.Namespace) -> None:
    card, card_error = await fetch_card(args.url.rstrip("/"), args.timeout)
    for binding in args.binding or BINDINGS:
        for version in args.version or VERSIONS:
            await Combo(args, card, card_error, binding, version).run_all()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--url", required=True, help="base URL of the agent (card at /.well-known/agent-card.json)")
    ap.add_argument("--timeout", type=float, default=20.0, help="seconds allowed for each check")
    ap.add_argument("--server", default="a2a-wire", help="value of the 'server' field in the output")
    ap.add_argument("--binding", action="append", choices=BINDINGS, help="only this binding (repeatable)")
    ap.add_argument("--version", action="append", choices=("1.0", "0.3"), help="only this version (repeatable)")
    ap.add_argument("--verbose", action="store_true", help="tracebacks on stderr")
    args = ap.parse_args()
    try:
        asyncio.run(main_async(args))
    except Exception:  # noqa: BLE001 - never fail the run: the caller judges
        traceback.print_exc(file=sys.stderr)
    sys.exit(0)


if __name__ == "__main__":
    main()
