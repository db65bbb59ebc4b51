"""Tokens of hermes' compaction summariser, which hermes leaves out of the agent's counters.

The summariser calls `agent.context_compressor.call_llm` on the thread that runs the turn, so
one wrapper (installed once per process) adds each response's usage to the meter that thread
has open. Imported by the bridge only, after hermes-agent.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from agentchat.protocol.usage import Usage

_local = threading.local()
_install_lock = threading.Lock()


@dataclass
class SummaryUsage:
    prompt_tokens: int = 0
    completion_tokens: int = 0
    calls: int = 0

    def add(self, usage: Any) -> None:
        self.calls += 1
        self.prompt_tokens += _tokens(usage, "prompt_tokens", "input_tokens")
        self.completion_tokens += _tokens(usage, "completion_tokens", "output_tokens")


def install() -> None:
    """Wrap the compressor's `call_llm` (idempotent)."""
    from agent import context_compressor

    with _install_lock:
        original = context_compressor.call_llm
        if getattr(original, "_agentchat_metered", False):
            return

        @functools.wraps(original)
        def metered(*args: Any, **kwargs: Any) -> Any:
            response = original(*args, **kwargs)
            meter: SummaryUsage | None = getattr(_local, "meter", None)
            if meter is not None and not kwargs.get("stream"):
                meter.add(getattr(response, "usage", None))
            return response

        metered._agentchat_metered = True  # type: ignore[attr-defined]
        context_compressor.call_llm = metered


@contextmanager
def metering() -> Iterator[SummaryUsage]:
    """Count the summariser calls made on this thread until the block ends."""
    meter = SummaryUsage()
    _local.meter = meter
    try:
        yield meter
    finally:
        _local.meter = None


def _tokens(usage: Any, *names: str) -> int:
    for name in names:
        value = usage.get(name) if isinstance(usage, dict) else getattr(usage, name, None)
        if isinstance(value, int) and not isinstance(value, bool):
            return max(value, 0)
    return 0


def with_summary(usage: Usage, meter: SummaryUsage) -> Usage:
    """The turn's usage with the summariser's calls added to the totals and shown apart."""
    counted = usage.counted(
        prompt=meter.prompt_tokens, completion=meter.completion_tokens, calls=meter.calls
    )
    return counted.model_copy(
        update={
            "summary_prompt_tokens": meter.prompt_tokens,
            "summary_completion_tokens": meter.completion_tokens,
        }
    )
