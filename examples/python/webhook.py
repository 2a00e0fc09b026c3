"""Push notifications end to end on one machine: the demo agent on the ready server, a webhook
receiver under uvicorn, and a client that has a task's events pushed to that receiver.

    python examples/python/webhook.py [TEXT]

The agent delivers to 127.0.0.1 only because it is told to (``allow_webhooks``: its SSRF
guard refuses loopback otherwise). The receiver takes deliveries carrying its token and
about the task it expects, and hands each event to the application once.
"""

from __future__ import annotations

import asyncio
import secrets
import socket
import sys

import uvicorn
from demo_agent import demo_agent

from a2a_wire import AgentCapabilities, AgentCard, StreamResponse, Task, TaskPushNotificationConfig, TaskState
from a2a_wire.client import Client, user_message
from a2a_wire.server import AgentServer
from a2a_wire.webhook import WebhookEndpoint, WebhookReceiver

CARD = AgentCard(
    name="a2a-wire Python echo (push)",
    description="Echoes what it is sent, and pushes its tasks' events.",
    version="1.0.0",
    capabilities=AgentCapabilities(streaming=True, push_notifications=True),
    default_input_modes=["text/plain"],
    default_output_modes=["text/plain"],
)


async def main(text: str) -> None:
    token = secrets.token_urlsafe(24)  # handed to the agent in the push config; nobody else knows it
    receiver = WebhookReceiver(token)
    completed = asyncio.Event()

    async def on_event(task_id: str, event: StreamResponse) -> None:
        # Raising here answers 503: the agent delivers the event again.
        print(f"pushed for {task_id}: {event.to_json()}", flush=True)
        update = event.status_update
        if update is not None and update.status is not None and update.status.state is TaskState.COMPLETED:
            completed.set()

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    hook_url = f"http://127.0.0.1:{sock.getsockname()[1]}/a2a-hook"
    hook = uvicorn.Server(uvicorn.Config(WebhookEndpoint(receiver, on_event), log_level="warning"))
    serving = asyncio.create_task(hook.serve(sockets=[sock]))
    try:
        for _ in range(500):  # up to 10 s
            if hook.started or serving.done():
                break
            await asyncio.sleep(0.02)
        async with AgentServer(demo_agent, card=CARD, allow_webhooks=["127.0.0.1"]) as agent, Client.connect(agent.url) as client:
            # The demo agent asks a question first: the task exists before its work is done.
            task = await client.send_message("need-input")
            assert isinstance(task, Task)
            receiver.expect_task(task.id)
            await client.create_push_config(TaskPushNotificationConfig(task_id=task.id, url=hook_url, token=token))
            await client.send_message(user_message(text, task_id=task.id, context_id=task.context_id))
            await asyncio.wait_for(completed.wait(), 30)
    finally:
        hook.should_exit = True
        await serving


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1] if len(sys.argv) > 1 else "hello"))
