"""The demo agent on a2a-wire's ready server (Rust transport: JSON-RPC, HTTP+JSON and gRPC,
each in v1.0 and v0.3, on one port).

    python examples/python/agent.py 127.0.0.1:8000

Stops cleanly on SIGTERM or Ctrl-C.
"""

from __future__ import annotations

import asyncio
import signal
import sys

from demo_agent import demo_agent

from a2a_wire import AgentCapabilities, AgentCard
from a2a_wire.server import AgentServer

CARD = AgentCard(
    name="a2a-wire Python echo",
    description="Echoes what it is sent (need-input, slow, message-only do more).",
    version="1.0.0",
    capabilities=AgentCapabilities(streaming=True),
    default_input_modes=["text/plain"],
    default_output_modes=["text/plain"],
)


async def main(addr: str) -> None:
    host, _, port = addr.rpartition(":")
    # No supported_interfaces in the card: the server lists its standard six.
    async with AgentServer(demo_agent, card=CARD, host=host, port=int(port)) as server:
        print(f"serving {server.url} (card at {server.url}/.well-known/agent-card.json)", flush=True)
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, stop.set)
        await stop.wait()


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1] if len(sys.argv) > 1 else "127.0.0.1:8000"))
