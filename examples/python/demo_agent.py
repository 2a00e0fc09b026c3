"""The demo agent of the a2a-wire examples, in Python: the four behaviours of the Rust demo
agent (transport/src/demo.rs), so that the same interop checks pass against every binding.

| text           | what the agent does                                                      |
|----------------|--------------------------------------------------------------------------|
| `need-input`   | INPUT_REQUIRED with a question; a follow-up completes it, echoing the follow-up |
| `slow`         | WORKING, three appended chunks of one artifact 0.7 s apart, then COMPLETED |
| `message-only` | a direct Message (no task)                                               |
| anything else  | a COMPLETED task with one artifact echoing the text                      |
"""

from __future__ import annotations

import asyncio

from a2a_wire import TaskState
from a2a_wire.server import Events, RequestContext

SLOW = ["one ", "two ", "three"]


async def demo_agent(ctx: RequestContext, events: Events) -> None:
    text = ctx.text
    if ctx.follow_up:
        events.artifact(text, artifact_id="echo", name="echo", last_chunk=True)
        events.complete()
    elif text == "need-input":
        events.status(TaskState.INPUT_REQUIRED, "What should I echo?")
    elif text == "slow":
        events.status(TaskState.WORKING)
        for i, piece in enumerate(SLOW):
            await asyncio.sleep(0.7)
            events.artifact(piece, artifact_id="slow", name="echo", append=i > 0, last_chunk=i == len(SLOW) - 1)
        events.complete()
    elif text == "message-only":
        events.message(text)
    else:
        events.artifact(text, artifact_id="echo", name="echo", last_chunk=True)
        events.complete()
