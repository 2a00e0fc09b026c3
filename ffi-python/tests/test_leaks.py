"""Leak tests: one million decode/encode calls and ten thousand served requests with flat RSS.

RSS is read from /proc/self/statm after a warm-up (allocator pools, caches and lazily made
classes are in place by then) and again at the end. The bounds are what a leak would break
and steady state does not: a leak of even 16 bytes per call would add 16 MB over a million
calls, and 1 KB per request 10 MB over ten thousand requests."""

from __future__ import annotations

import asyncio
import gc
import os

from hosts import ready

import a2a_wire as a
from a2a_wire import errors
from a2a_wire.client import Client
from a2a_wire.server import Events, RequestContext

#: Allowed RSS growth after the warm-up (bytes).
CODEC_BOUND = 8 * 1024 * 1024
SERVED_BOUND = 8 * 1024 * 1024


def rss() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def test_a_million_codec_calls_keep_rss_flat() -> None:
    text = a.Message(message_id="m-1", role=a.Role.USER, parts=[a.Part(text="hello"), a.Part(data={"k": [1, 2]})],
                     metadata={"trace": "x"}).to_json()
    bad = '{"messageId":"m","role":"ROLE_USER","parts":[{}]}'

    def rounds(n: int) -> None:
        for i in range(n):
            m = a.Message.from_json(text)
            m.to_json()
            if i % 100 == 0:
                # Errors and the other conversions too: they allocate exception objects and paths.
                try:
                    a.Message.from_json(bad)
                except errors.MissingFieldError:
                    pass
                a.Message.from_protobuf(m.to_protobuf()).to_dict()

    rounds(100_000)
    gc.collect()
    before = rss()
    rounds(900_000)
    gc.collect()
    grown = rss() - before
    print(f"codec: RSS grew {grown} bytes over 900,000 rounds")
    assert grown < CODEC_BOUND, f"RSS grew {grown} bytes over 900,000 decode/encode rounds"


async def agent(ctx: RequestContext, events: Events) -> None:
    # A direct reply: the server keeps no task, so whatever stays is a leak.
    events.message(ctx.text)


async def test_ten_thousand_served_requests_keep_rss_flat() -> None:
    async with ready(agent) as h, await Client.connect(h.url) as c:
        async def burst(n: int) -> None:
            for start in range(0, n, 50):
                await asyncio.gather(*[c.send_message(f"m{start + i}") for i in range(50)])

        await burst(2_000)
        gc.collect()
        before = rss()
        await burst(10_000)
        gc.collect()
        grown = rss() - before
    print(f"served: RSS grew {grown} bytes over 10,000 requests")
    assert grown < SERVED_BOUND, f"RSS grew {grown} bytes over 10,000 requests"
    assert h.runs_left() == 0
