#!/usr/bin/env python3
"""The middle agent of the two-hop chains: an agent built on a2a-wire's Python package that
hands every message on to another agent and relays what comes back.

    chain_agent.py --port P --downstream URL

Serves the ready server (JSON-RPC, HTTP+JSON and gRPC, each in 1.0 and 0.3, on
127.0.0.1:P) and prints READY. Each message's parts (text and files) go to the downstream
agent as a streaming message over the first interface of its card that a2a-wire speaks;
its artifacts (chunks, append and lastChunk kept) become this agent's artifacts, its
final state this task's state, a direct reply this agent's reply. So an SDK's client sent
through the chain (their client -> this agent -> their agent) sees the behaviour of
tests/interop/CHECKS.md for `send`, `stream` and `file`, with every byte across both hops
made by a2a-wire on one side and the SDK on the other (tests/interop/run.py --chains).
"""

from __future__ import annotations

import argparse
import asyncio
import signal
import uuid

from a2a_wire import AgentCapabilities, AgentCard, Message, Role, SendMessageRequest, TaskState
from a2a_wire.client import Client
from a2a_wire.server import AgentServer, Events, RequestContext

CARD = AgentCard(
    name="a2a-wire chain",
    description="Hands each message on to another agent and relays its answer.",
    version="1.0.0",
    capabilities=AgentCapabilities(streaming=True),
    default_input_modes=["text/plain"],
    default_output_modes=["text/plain"],
)
TERMINAL = {TaskState.COMPLETED, TaskState.FAILED, TaskState.CANCELED, TaskState.REJECTED}


def chain(downstream: Client):
    async def agent(ctx: RequestContext, events: Events) -> None:
        onward = Message(message_id=f"chain-{uuid.uuid4()}", role=Role.USER, parts=list(ctx.message.parts))
        final = TaskState.COMPLETED
        async for ev in downstream.send_streaming_message(SendMessageRequest(message=onward)):
            if ev.message is not None:
                events.message(Message(message_id=f"chain-{uuid.uuid4()}", role=Role.AGENT, parts=list(ev.message.parts)))
                return
            if ev.artifact_update is not None and ev.artifact_update.artifact is not None:
                u = ev.artifact_update
                events.artifact(u.artifact, append=u.append, last_chunk=u.last_chunk)
            task = ev.task
            if task is not None:
                # A Task event: its artifacts so far (a non-streaming peer sends the whole
                # task at the end).
                for a in task.artifacts:
                    events.artifact(a, last_chunk=True)
            status = ev.status_update.status if ev.status_update is not None else (task.status if task is not None else None)
            if status is not None and status.state in TERMINAL:
                final = status.state
                break
        events.status(final)

    return agent


async def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--downstream", required=True)
    args = ap.parse_args()
    downstream = await Client.connect(args.downstream, timeout=30.0)
    try:
        async with AgentServer(chain(downstream), card=CARD, host="127.0.0.1", port=args.port):
            print("READY", flush=True)
            stop = asyncio.Event()
            loop = asyncio.get_running_loop()
            for sig in (signal.SIGTERM, signal.SIGINT):
                loop.add_signal_handler(sig, stop.set)
            await stop.wait()
    finally:
        await downstream.aclose()


if __name__ == "__main__":
    asyncio.run(main())
