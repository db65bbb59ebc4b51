"""Every benchmark script imports: a module moved in the code must not break `make bench`
silently (bench/serve_api.py imported `agentchat.core.lifecycle` after it moved)."""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench"
SCRIPTS = sorted(p.stem for p in BENCH.glob("*.py") if p.stem != "__init__")


@pytest.mark.parametrize("name", SCRIPTS)
def test_bench_script_imports(name: str) -> None:
    module = importlib.import_module(f"bench.{name}")
    assert module.__file__ is not None and Path(module.__file__).parent == BENCH
