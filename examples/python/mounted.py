"""The demo agent mounted as an ASGI app in a FastAPI application, under uvicorn: the app's
own route (`/hello`) beside the A2A service (JSON-RPC and HTTP+JSON, each in v1.0 and v0.3;
the card at `/.well-known/agent-card.json`).

    python examples/python/mounted.py 127.0.0.1:8000
"""

from __future__ import annotations

import signal
import sys
from types import FrameType

import uvicorn
from demo_agent import demo_agent
from fastapi import FastAPI

from a2a_wire import AgentCapabilities, AgentCard, AgentInterface
from a2a_wire.asgi import A2AApp


def make_app(base: str) -> FastAPI:
    card = AgentCard(
        name="a2a-wire Python echo (mounted)",
        description="Echoes what it is sent (need-input, slow, message-only do more).",
        version="1.0.0",
        capabilities=AgentCapabilities(streaming=True),
        default_input_modes=["text/plain"],
        default_output_modes=["text/plain"],
        supported_interfaces=[
            AgentInterface(url=f"{base}/a2a/jsonrpc", protocol_binding="JSONRPC", protocol_version="1.0"),
            AgentInterface(url=f"{base}/a2a/rest", protocol_binding="HTTP+JSON", protocol_version="1.0"),
            AgentInterface(url=f"{base}/a2a/v03/jsonrpc", protocol_binding="JSONRPC", protocol_version="0.3"),
            AgentInterface(url=f"{base}/a2a/v03/rest", protocol_binding="HTTP+JSON", protocol_version="0.3"),
        ],
    )
    a2a = A2AApp(demo_agent, card)
    # Mounted apps get no lifespan events: the enclosing app runs the service's lifespan.
    app = FastAPI(lifespan=a2a.lifespan)

    @app.get("/hello")
    def hello() -> dict[str, str]:
        return {"hello": "from the app's own route"}

    # Last: every path the app's own routes do not take goes to the A2A service.
    app.mount("/", a2a)
    return app


def exit_cleanly(sig: int, frame: FrameType | None) -> None:
    raise SystemExit(0)


if __name__ == "__main__":
    # uvicorn shuts down gracefully on SIGTERM, then raises the signal again; this handler
    # (restored by uvicorn before it does) turns that into exit status 0.
    signal.signal(signal.SIGTERM, exit_cleanly)
    addr = sys.argv[1] if len(sys.argv) > 1 else "127.0.0.1:8000"
    host, _, port = addr.rpartition(":")
    uvicorn.run(make_app(f"http://{addr}"), host=host, port=int(port), log_level="warning")
