#!/usr/bin/env python3
"""The demo echo agent, served by the official Python A2A SDK (a2a-sdk 1.3.0 or 1.0.3).

Interop counterpart of `a2a-wire serve`: same behaviour, but every byte on the
wire is produced by the SDK, so our client can be tested against it.

    their_server.py --port P [--host 127.0.0.1]

Serves, on 127.0.0.1 only:
  http://HOST:P/.well-known/agent-card.json   the Agent Card
  http://HOST:P/a2a/jsonrpc                   JSON-RPC, protocol 1.0
  http://HOST:P/a2a/v03/jsonrpc               JSON-RPC, protocol 0.3 (SDK compat layer)
  http://HOST:P/a2a/rest                      HTTP+JSON, protocol 1.0 (/message:send, ...)
  http://HOST:P/a2a/v03/rest                  HTTP+JSON, protocol 0.3 (/v1/message:send, ...)
  HOST:P+1                                    gRPC, both lf.a2a.v1.A2AService (1.0)
                                              and a2a.v1.A2AService (0.3)

Prints READY on stdout once both listeners accept connections.

The agent is the one of tests/interop/CHECKS.md: need-input, slow (three
chunks 0.5 s apart), message-only, a message with a file part with bytes
(answered with `received N bytes sha256 HEX` and the same file back), echo.
Push notifications are on: the SDK's InMemoryPushNotificationConfigStore and
BasePushNotificationSender (which POSTs to any URL, loopback included: no URL
validator is passed).

One program for both SDK releases: the public API used here is the same in
a2a-sdk 1.0.3 and 1.3.0 (both have the v0.3 compat layer for all three
bindings), so nothing is chosen by version; the venv that runs it decides.

How a2a-sdk 1.3.0 serves v0.3: the core types are v1.0 protos; v0.3 is a
translation layer in `a2a.compat.v0_3`.  JSON-RPC routes v0.3 by method name
(`message/send`, ...) on a dispatcher created with enable_v0_3_compat=True;
REST mounts REST03Adapter routes under `/v1/...`; gRPC registers a second
servicer (CompatGrpcHandler) for the old package name `a2a.v1`.  The HTTP v1.0
handlers insist on an `A2A-Version: 1.x` header (absent means 0.3), the v0.3
ones on its absence or `0.x`.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import importlib.metadata
import logging
import signal
import sys
import uuid

import grpc
import grpc.aio
import httpx
import uvicorn
from starlette.applications import Starlette
from starlette.routing import Route

# a2a.server.routes must be imported before a2a.compat.v0_3.rest_adapter:
# importing the adapter first trips a circular import inside the SDK.
from a2a.server.routes import (  # isort: skip
    create_agent_card_routes,
    create_jsonrpc_routes,
    create_rest_routes,
)
from a2a.compat.v0_3 import a2a_v0_3_pb2_grpc
from a2a.compat.v0_3.grpc_handler import CompatGrpcHandler
from a2a.compat.v0_3.rest_adapter import REST03Adapter
from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events import EventQueue
from a2a.server.request_handlers import DefaultRequestHandler, GrpcHandler
from a2a.server.tasks import (
    BasePushNotificationSender,
    InMemoryPushNotificationConfigStore,
    InMemoryTaskStore,
    TaskUpdater,
)
from a2a.types import a2a_pb2_grpc
from a2a.types.a2a_pb2 import (
    AgentCapabilities,
    AgentCard,
    AgentInterface,
    AgentSkill,
    Message,
    Part,
    Role,
    Task,
    TaskState,
    TaskStatus,
)

SDK_VERSION = importlib.metadata.version("a2a-sdk")
SLOW_CHUNKS = ("one ", "two ", "three")
CHUNK_GAP_S = 0.5


def _text_of(message: Message | None) -> str:
    if message is None:
        return ""
    return "".join(p.text for p in message.parts if p.HasField("text"))


def _file_part_of(message: Message | None) -> Part | None:
    """The first part carrying file bytes (v1.0 Part.raw; the v0.3 layer maps FileWithBytes to it)."""
    if message is None:
        return None
    return next((p for p in message.parts if p.HasField("raw")), None)


class EchoAgent(AgentExecutor):
    """need-input / slow / message-only / echo, as in a2a-wire's demo agent."""

    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        text = _text_of(context.message)
        task = context.current_task

        # A follow-up on a task that asked for input finishes it.
        if task is not None and task.status.state == TaskState.TASK_STATE_INPUT_REQUIRED:
            updater = TaskUpdater(event_queue, task.id, task.context_id)
            await updater.add_artifact(
                [Part(text=text)], artifact_id="echo", name="echo", last_chunk=True
            )
            await updater.complete()
            return

        file_part = _file_part_of(context.message)

        if task is None and text == "message-only" and file_part is None:
            await event_queue.enqueue_event(
                Message(
                    message_id=str(uuid.uuid4()),
                    context_id=context.context_id,
                    role=Role.ROLE_AGENT,
                    parts=[Part(text="message-only")],
                )
            )
            return

        if task is None:
            # The first event of a task-mode run must be the Task itself.
            await event_queue.enqueue_event(
                Task(
                    id=context.task_id,
                    context_id=context.context_id,
                    status=TaskStatus(state=TaskState.TASK_STATE_SUBMITTED),
                    history=[context.message] if context.message else [],
                )
            )
        task_id = context.task_id
        context_id = context.context_id
        updater = TaskUpdater(event_queue, task_id, context_id)

        if file_part is not None:
            data = file_part.raw
            summary = f"received {len(data)} bytes sha256 {hashlib.sha256(data).hexdigest()}"
            echoed = Part(raw=data)
            if file_part.filename:
                echoed.filename = file_part.filename
            if file_part.media_type:
                echoed.media_type = file_part.media_type
            await updater.add_artifact(
                [Part(text=summary), echoed], artifact_id="file", name="file", last_chunk=True
            )
            await updater.complete()
            return

        if text == "need-input":
            question = updater.new_agent_message([Part(text="What should I echo?")])
            await updater.requires_input(question)
            return

        if text == "slow":
            await updater.start_work()
            for i, chunk in enumerate(SLOW_CHUNKS):
                if i:
                    await asyncio.sleep(CHUNK_GAP_S)
                await updater.add_artifact(
                    [Part(text=chunk)],
                    artifact_id="slow",
                    name="slow",
                    append=i > 0,
                    last_chunk=i == len(SLOW_CHUNKS) - 1,
                )
            await updater.complete()
            return

        await updater.add_artifact(
            [Part(text=text)], artifact_id="echo", name="echo", last_chunk=True
        )
        await updater.complete()

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        task = context.current_task
        task_id = task.id if task else context.task_id
        context_id = task.context_id if task else context.context_id
        await TaskUpdater(event_queue, task_id, context_id).cancel()


def build_card(host: str, port: int, tls: bool = False) -> AgentCard:
    base = f"{'https' if tls else 'http'}://{host}:{port}"
    # Over TLS the gRPC interface is an https:// URL (as the specification's examples write
    # it); in cleartext the bare host:port.
    grpc_addr = f"https://{host}:{port + 1}" if tls else f"{host}:{port + 1}"
    interfaces = [
        ("JSONRPC", "1.0", f"{base}/a2a/jsonrpc"),
        ("HTTP+JSON", "1.0", f"{base}/a2a/rest"),
        ("GRPC", "1.0", grpc_addr),
        ("JSONRPC", "0.3", f"{base}/a2a/v03/jsonrpc"),
        ("HTTP+JSON", "0.3", f"{base}/a2a/v03/rest"),
        ("GRPC", "0.3", grpc_addr),
    ]
    return AgentCard(
        name=f"a2a-sdk {SDK_VERSION} python echo",
        description=(
            "Echoes text back: need-input asks a question, slow streams three "
            "chunks, message-only replies with a message, a file is answered "
            "with its size and sha256 and sent back."
        ),
        version="0.1.0",
        supported_interfaces=[
            AgentInterface(url=u, protocol_binding=b, protocol_version=v)
            for b, v, u in interfaces
        ],
        capabilities=AgentCapabilities(streaming=True, push_notifications=True),
        default_input_modes=["text/plain", "application/octet-stream"],
        default_output_modes=["text/plain", "application/octet-stream"],
        skills=[
            AgentSkill(
                id="echo",
                name="Echo",
                description="Echoes the text of a message as an artifact.",
                tags=["echo", "demo"],
                examples=["hello", "need-input", "slow", "message-only", "file"],
            )
        ],
    )


def build_app(card: AgentCard, handler: DefaultRequestHandler) -> Starlette:
    routes = []
    routes += create_agent_card_routes(card)
    # JSON-RPC: v1.0 alone on one path; the v0.3 compat dispatcher (which
    # also answers v1.0 method names) on another, so each card entry has a
    # URL of its own.
    routes += create_jsonrpc_routes(handler, "/a2a/jsonrpc")
    routes += create_jsonrpc_routes(handler, "/a2a/v03/jsonrpc", enable_v0_3_compat=True)
    # HTTP+JSON v0.3: REST03Adapter's /v1/... routes under their own prefix.
    v03 = REST03Adapter(http_handler=handler)
    for (path, method), endpoint in v03.routes().items():
        routes.append(Route(f"/a2a/v03/rest{path}", endpoint=endpoint, methods=[method]))
    # HTTP+JSON v1.0 last: it ends with a catch-all /{tenant} mount.
    routes += create_rest_routes(handler, path_prefix="/a2a/rest")
    return Starlette(routes=routes)


async def serve(host: str, port: int, cert: str | None = None, key: str | None = None) -> None:
    card = build_card(host, port, tls=cert is not None)
    # Push notifications: the SDK's in-memory config store and its sender, which
    # POSTs each task event (as a v1.0 StreamResponse, JSON) to every URL set for
    # the task.  With no push_url_validator (1.3.0; 1.0.3 has none) 127.0.0.1 is fine.
    push_store = InMemoryPushNotificationConfigStore()
    push_http = httpx.AsyncClient(timeout=10)
    handler = DefaultRequestHandler(
        agent_executor=EchoAgent(),
        task_store=InMemoryTaskStore(),
        agent_card=card,
        push_config_store=push_store,
        push_sender=BasePushNotificationSender(push_http, push_store),
    )

    grpc_server = grpc.aio.server()
    a2a_pb2_grpc.add_A2AServiceServicer_to_server(GrpcHandler(handler), grpc_server)
    a2a_v0_3_pb2_grpc.add_A2AServiceServicer_to_server(CompatGrpcHandler(handler), grpc_server)
    if cert is not None and key is not None:
        with open(cert, "rb") as c, open(key, "rb") as k:
            creds = grpc.ssl_server_credentials([(k.read(), c.read())])
        bound = grpc_server.add_secure_port(f"{host}:{port + 1}", creds)
    else:
        bound = grpc_server.add_insecure_port(f"{host}:{port + 1}")
    if bound == 0:
        raise SystemExit(f"cannot bind gRPC port {host}:{port + 1}")
    await grpc_server.start()

    config = uvicorn.Config(
        build_app(card, handler), host=host, port=port, log_level="warning", lifespan="off",
        ssl_certfile=cert, ssl_keyfile=key,
    )
    http_server = uvicorn.Server(config)
    http_task = asyncio.create_task(http_server.serve())
    while not http_server.started:
        if http_task.done():
            await http_task
            raise SystemExit(f"HTTP server on {host}:{port} did not start")
        await asyncio.sleep(0.05)

    print("READY", flush=True)
    try:
        await http_task
    finally:
        await grpc_server.stop(grace=0.5)
        await push_http.aclose()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--tls-cert", help="serve HTTPS and gRPC over TLS with this PEM certificate")
    ap.add_argument("--tls-key", help="and this PEM key")
    args = ap.parse_args()
    if args.host not in ("127.0.0.1", "localhost", "::1"):
        raise SystemExit("--host must be a loopback address")
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr)
    # SIGTERM exits cleanly (uvicorn installs its own handlers while serving).
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    asyncio.run(serve(args.host, args.port, args.tls_cert, args.tls_key))


if __name__ == "__main__":
    main()
