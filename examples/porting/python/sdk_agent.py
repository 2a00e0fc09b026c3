"""The "shout" agent on the official Python SDK (a2a-sdk 1.3.0): JSON-RPC and HTTP+JSON in
v1.0 on Starlette and uvicorn. It answers a message with its text in capitals as an
artifact; "wait" works until the task is canceled.

    python sdk_agent.py PORT
"""

import asyncio
import sys

import uvicorn
from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events import EventQueue
from a2a.server.request_handlers import DefaultRequestHandler
from a2a.server.routes import create_agent_card_routes, create_jsonrpc_routes, create_rest_routes
from a2a.server.tasks import InMemoryTaskStore, TaskUpdater
from a2a.types.a2a_pb2 import AgentCapabilities, AgentCard, AgentInterface, AgentSkill, Part, Task, TaskState, TaskStatus
from starlette.applications import Starlette


class Shout(AgentExecutor):
    def __init__(self) -> None:
        self.canceled: dict[str, asyncio.Event] = {}

    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        text = "".join(p.text for p in context.message.parts if p.HasField("text"))
        await event_queue.enqueue_event(
            Task(id=context.task_id, context_id=context.context_id, status=TaskStatus(state=TaskState.TASK_STATE_SUBMITTED), history=[context.message])
        )
        updater = TaskUpdater(event_queue, context.task_id, context.context_id)
        await updater.start_work()
        if text == "wait":
            canceled = self.canceled.setdefault(context.task_id, asyncio.Event())
            await asyncio.wait_for(canceled.wait(), 60)
            return
        await updater.add_artifact([Part(text=text.upper())], name="shout", last_chunk=True)
        await updater.complete()

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        await TaskUpdater(event_queue, context.task_id, context.context_id).cancel()
        self.canceled.setdefault(context.task_id, asyncio.Event()).set()


port = int(sys.argv[1])
base = f"http://127.0.0.1:{port}"
card = AgentCard(
    name="shout", description="Answers in capitals", version="1.0", capabilities=AgentCapabilities(streaming=True),
    default_input_modes=["text/plain"], default_output_modes=["text/plain"],
    skills=[AgentSkill(id="shout", name="Shout", description="Repeats the text in capitals", tags=["demo"])],
    supported_interfaces=[
        AgentInterface(url=f"{base}/a2a/jsonrpc", protocol_binding="JSONRPC", protocol_version="1.0"),
        AgentInterface(url=f"{base}/a2a/rest", protocol_binding="HTTP+JSON", protocol_version="1.0"),
    ],
)
handler = DefaultRequestHandler(agent_executor=Shout(), task_store=InMemoryTaskStore(), agent_card=card)
routes = create_agent_card_routes(card) + create_jsonrpc_routes(handler, "/a2a/jsonrpc") + create_rest_routes(handler, path_prefix="/a2a/rest")
uvicorn.run(Starlette(routes=routes), host="127.0.0.1", port=port, log_level="warning")
