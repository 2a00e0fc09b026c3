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
