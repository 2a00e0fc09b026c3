#!/usr/bin/env python3
"""The demo echo agent, served by the official Python A2A SDK, v0.3 line (a2a-sdk 0.3.24).

Interop counterpart of `a2a-wire serve` (tests/interop/CHECKS.md, "Their server"): the same
agent, every byte on the wire made by a2a-sdk 0.3.24, which speaks protocol 0.3 only.

    target/interop-py-0.3-venv/bin/python tests/interop/python-0.3/their_server.py --port P [--host 127.0.0.1]

Serves, on 127.0.0.1 only:
  http://HOST:P/.well-known/agent-card.json   the Agent Card (v0.3 JSON, protocolVersion 0.3.0)
  http://HOST:P/a2a/jsonrpc                   JSON-RPC        (card `url`, preferredTransport)
  http://HOST:P/a2a/rest                      HTTP+JSON       (the SDK's /v1/... routes under it)
  HOST:P+1                                    gRPC, a2a.v1.A2AService (the v0.3 proto)

A v0.3 card names one interface in `url` + `preferredTransport` and the others in
`additionalInterfaces` ({url, transport}); the JSON-RPC one is listed in both, as v0.3 §5.6
recommends. The gRPC address is a bare `host:port`, as the SDK's own gRPC samples and tests
publish it (a2a-samples dice_agent_grpc: `url=f'{host}:{port}'`; a2a-python
tests/integration: `AgentInterface(transport=GRPC, url='localhost:50051')`): 0.3.24's client
hands that string unchanged to the caller's `grpc_channel_factory`.

Push notifications: the SDK's InMemoryPushNotificationConfigStore and its
BasePushNotificationSender (httpx, no URL filter), which POSTs the Task as JSON with
`X-A2A-Notification-Token: <token>` after every event of a task that has a config.

Prints READY on stdout once both listeners accept connections.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import hashlib
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

from a2a.grpc import a2a_pb2_grpc
from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.apps import A2AStarletteApplication
from a2a.server.apps.rest.rest_adapter import RESTAdapter
from a2a.server.events import EventQueue
from a2a.server.request_handlers import DefaultRequestHandler, GrpcHandler
from a2a.server.tasks import (
    BasePushNotificationSender,
    InMemoryPushNotificationConfigStore,
    InMemoryTaskStore,
    TaskUpdater,
)
from a2a.types import (
    AgentCapabilities,
    AgentCard,
    AgentInterface,
    AgentSkill,
    FilePart,
    FileWithBytes,
    Message,
    Part,
    Role,
    TaskState,
    TextPart,
    TransportProtocol,
)
from a2a.utils import new_task

SLOW_CHUNKS = ("one ", "two ", "three")
CHUNK_GAP_S = 0.5


def _text_of(message: Message | None) -> str:
    if message is None:
        return ""
    return "".join(p.root.text for p in message.parts if isinstance(p.root, TextPart))


def _file_with_bytes(message: Message | None) -> FileWithBytes | None:
    for p in message.parts if message else []:
        if isinstance(p.root, FilePart) and isinstance(p.root.file, FileWithBytes):
            return p.root.file
    return None


class EchoAgent(AgentExecutor):
    """need-input / slow / message-only / file / echo, as in a2a-wire's demo agent."""

    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        text = _text_of(context.message)
        task = context.current_task

        if task is None and text == "message-only":
            await event_queue.enqueue_event(
                Message(
                    message_id=str(uuid.uuid4()),
                    context_id=context.context_id,
                    role=Role.agent,
                    parts=[Part(root=TextPart(text="message-only"))],
                )
            )
            return

        if task is None:
            # The first event of a task-mode run is the Task itself.
            task = new_task(context.message)
            await event_queue.enqueue_event(task)
            follow_up = False
        else:
            follow_up = task.status.state == TaskState.input_required
        updater = TaskUpdater(event_queue, task.id, task.context_id)

        # A follow-up on a task that asked for input finishes it, echoing the follow-up.
        if follow_up:
            await updater.add_artifact(
                [Part(root=TextPart(text=text))], artifact_id="echo", name="echo", last_chunk=True
            )
            await updater.complete()
            return

        file = _file_with_bytes(context.message)
        if file is not None:
            # v0.3 FileWithBytes.bytes is base64 text (the JSON model): decode it to the bytes.
            data = base64.b64decode(file.bytes)
            summary = f"received {len(data)} bytes sha256 {hashlib.sha256(data).hexdigest()}"
            await updater.add_artifact(
                [
                    Part(root=TextPart(text=summary)),
                    Part(root=FilePart(file=FileWithBytes(
                        bytes=base64.b64encode(data).decode("ascii"),
                        name=file.name,
                        mime_type=file.mime_type,
                    ))),
                ],
                artifact_id="file",
                name="file",
                last_chunk=True,
            )
            await updater.complete()
            return

        if text == "need-input":
            question = updater.new_agent_message([Part(root=TextPart(text="What should I echo?"))])
            await updater.requires_input(question, final=True)
            return

        if text == "slow":
            await updater.start_work()
            for i, chunk in enumerate(SLOW_CHUNKS):
                if i:
                    await asyncio.sleep(CHUNK_GAP_S)
                await updater.add_artifact(
                    [Part(root=TextPart(text=chunk))],
                    artifact_id="slow",
                    name="slow",
                    append=i > 0,
                    last_chunk=i == len(SLOW_CHUNKS) - 1,
                )
            await updater.complete()
            return

        await updater.add_artifact(
            [Part(root=TextPart(text=text))], artifact_id="echo", name="echo", last_chunk=True
        )
        await updater.complete()

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        task = context.current_task
        task_id = task.id if task else context.task_id
        context_id = task.context_id if task else context.context_id
        await TaskUpdater(event_queue, task_id, context_id).cancel()


def build_card(host: str, port: int) -> AgentCard:
    base = f"http://{host}:{port}"
    jsonrpc = f"{base}/a2a/jsonrpc"
    return AgentCard(
        name="a2a-sdk 0.3 python echo",
        description=(
            "Echoes text back: need-input asks a question, slow streams three "
            "chunks, message-only replies with a message, a file part is echoed."
        ),
        version="0.1.0",
        protocol_version="0.3.0",
        url=jsonrpc,
        preferred_transport=TransportProtocol.jsonrpc,
        additional_interfaces=[
            AgentInterface(transport=TransportProtocol.jsonrpc, url=jsonrpc),
            AgentInterface(transport=TransportProtocol.http_json, url=f"{base}/a2a/rest"),
            AgentInterface(transport=TransportProtocol.grpc, url=f"{host}:{port + 1}"),
        ],
        capabilities=AgentCapabilities(streaming=True, push_notifications=True),
        default_input_modes=["text/plain"],
        default_output_modes=["text/plain"],
        skills=[
            AgentSkill(
                id="echo",
                name="Echo",
                description="Echoes the text of a message as an artifact.",
                tags=["echo", "demo"],
                examples=["hello", "need-input", "slow", "message-only"],
            )
        ],
    )


def build_app(card: AgentCard, handler: DefaultRequestHandler) -> Starlette:
    # JSON-RPC at /a2a/jsonrpc, plus the card at /.well-known/agent-card.json.
    routes = A2AStarletteApplication(agent_card=card, http_handler=handler).routes(rpc_url="/a2a/jsonrpc")
    # HTTP+JSON: the SDK's RESTAdapter routes (/v1/message:send, ...) under /a2a/rest.
    for (path, method), endpoint in RESTAdapter(agent_card=card, http_handler=handler).routes().items():
        routes.append(Route(f"/a2a/rest{path}", endpoint=endpoint, methods=[method]))
    return Starlette(routes=routes)


async def serve(host: str, port: int) -> None:
    card = build_card(host, port)
    push_store = InMemoryPushNotificationConfigStore()
    push_http = httpx.AsyncClient(timeout=10)
    handler = DefaultRequestHandler(
        agent_executor=EchoAgent(),
        task_store=InMemoryTaskStore(),
        push_config_store=push_store,
        push_sender=BasePushNotificationSender(push_http, push_store),
    )

    grpc_server = grpc.aio.server()
    a2a_pb2_grpc.add_A2AServiceServicer_to_server(GrpcHandler(card, handler), grpc_server)
    if grpc_server.add_insecure_port(f"{host}:{port + 1}") == 0:
        raise SystemExit(f"cannot bind gRPC port {host}:{port + 1}")
    await grpc_server.start()

    config = uvicorn.Config(build_app(card, handler), host=host, port=port, log_level="warning", lifespan="off")
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
    args = ap.parse_args()
    if args.host not in ("127.0.0.1", "localhost", "::1"):
        raise SystemExit("--host must be a loopback address")
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    asyncio.run(serve(args.host, args.port))


if __name__ == "__main__":
    main()
