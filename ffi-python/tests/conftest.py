"""Shared fixtures of the a2a_wire tests: the golden vectors of the repository."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

VECTORS = Path(os.environ.get("A2A_WIRE_VECTORS", Path(__file__).resolve().parents[2] / "tests" / "vectors"))
REPO = VECTORS.parents[1]


def load_vectors(sub: str) -> list[tuple[str, dict[str, Any]]]:
    out = []
    for p in sorted((VECTORS / sub).rglob("*.json")):
        out.append((str(p.relative_to(VECTORS)), json.loads(p.read_text())))
    return out


@pytest.fixture(scope="session")
def sample_task_json() -> str:
    return json.dumps(json.loads((VECTORS / "bench" / "sample_task.json").read_text())["wire"], separators=(",", ":"))


@pytest.hookimpl(tryfirst=True)
def pytest_pyfunc_call(pyfuncitem: pytest.Function) -> bool | None:
    """Runs ``async def`` tests on a fresh event loop each (no plugin needed), bounded."""
    import asyncio
    import inspect

    fn = pyfuncitem.obj
    if not inspect.iscoroutinefunction(fn):
        return None
    kwargs = {name: pyfuncitem.funcargs[name] for name in pyfuncitem._fixtureinfo.argnames}

    async def bounded() -> None:
        await asyncio.wait_for(fn(**kwargs), ASYNC_TEST_TIMEOUT)

    asyncio.run(bounded())
    return True


#: No async test may run longer than this (seconds).
ASYNC_TEST_TIMEOUT = 120
