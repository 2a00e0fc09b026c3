"""Sends one message to an A2A agent and prints what comes back.

    python examples/python/client.py http://127.0.0.1:8000 hello
    python examples/python/client.py http://127.0.0.1:8000 slow --stream
"""

from __future__ import annotations

import asyncio
import sys

from a2a_wire import Message, Task
from a2a_wire.client import Client


def text_of(reply: Task | Message) -> str:
    if isinstance(reply, Message):
        return "".join(p.text or "" for p in reply.parts)
    return "".join(p.text or "" for a in reply.artifacts for p in a.parts)


async def main(url: str, text: str, stream: bool) -> None:
    async with Client.connect(url) as client:
        print(f"{client.interface.binding} {client.interface.version} at {client.interface.url}")
        if stream:
            async for event in client.send_streaming_message(text):
                print(event.to_json())
            return
        reply = await client.send_message(text)
        state = reply.status.state.name if isinstance(reply, Task) and reply.status else "message"
        print(f"{state}: {text_of(reply)}")


if __name__ == "__main__":
    if len(sys.argv) < 3:
        sys.exit("usage: client.py URL TEXT [--stream]")
    asyncio.run(main(sys.argv[1], sys.argv[2], "--stream" in sys.argv[3:]))
