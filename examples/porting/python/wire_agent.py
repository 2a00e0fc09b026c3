"""The "shout" agent ported to a2a-wire: the same card and behaviour, on the ready server
(which adds gRPC and the v0.3 interfaces on the same port).

    python wire_agent.py PORT
"""

import asyncio
import sys

from a2a_wire import AgentCapabilities, AgentCard, AgentSkill, TaskState
from a2a_wire.server import AgentServer, Events, RequestContext


async def shout(ctx: RequestContext, events: Events) -> None:
    events.status(TaskState.WORKING)
    if ctx.text == "wait":
        await ctx.wait_cancelled()
        return
    events.artifact(ctx.text.upper(), name="shout", last_chunk=True)
    events.complete()


card = AgentCard(name="shout", description="Answers in capitals", version="1.0", capabilities=AgentCapabilities(streaming=True),
                 default_input_modes=["text/plain"], default_output_modes=["text/plain"],
                 skills=[AgentSkill(id="shout", name="Shout", description="Repeats the text in capitals", tags=["demo"])])


async def main(port: int) -> None:
    async with AgentServer(shout, card=card, port=port) as server:
        await server.serve_forever()

asyncio.run(main(int(sys.argv[1])))
