#!/usr/bin/env python3
"""Drive an A2A server with the official Python SDK client (a2a-sdk 1.3.0).

    their_client.py --url http://127.0.0.1:PORT [--timeout 20] [--server a2a-wire]

For every binding (JSONRPC, HTTP+JSON, GRPC) x protocol version (1.0, 0.3)
the SDK client supports, runs each check on its own and prints one JSON
object per line:

  {"sdk":"python","client":"python","server":"a2a-wire","binding":"JSONRPC",
   "version":"1.0","check":"send","ok":true,"detail":"..."}

Checks: card, send, get, stream, input_required, cancel_completed,
get_unknown, list (1.0 only), message_only.  A failing check never stops the
others; the exit status is 0 whatever the results (the caller judges).

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
import json
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
    SendMessageRequest,
    StreamResponse,
    Task,
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
)


class CheckFailed(Exception):
    """A check ran to the end but the answer was wrong."""


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
        return f"{iface.url} ({iface.protocol_version}) via {transport}"

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
        reply = await self.send_one(user_message(text, task_id, context_id))
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
