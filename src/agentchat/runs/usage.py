"""Token usage as the bridge reports it per turn (docs/contracts.md, `run_end.usage`), summed.

A turn's usage counts every model call hermes made for it: tool rounds, retried attempts and the
compaction summariser (`summaryPromptTokens`/`summaryCompletionTokens`, also in the totals), and
attempts a provider cut off mid-stream, which report no usage: the bridge estimates those
(`estimatedPromptTokens`/`estimatedCompletionTokens`, also in the totals).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from agentchat.protocol.camel import CamelModel

_COUNTED = {
    "prompt_tokens": "promptTokens",
    "completion_tokens": "completionTokens",
    "reasoning_tokens": "reasoningTokens",
    "total_tokens": "totalTokens",
    "cache_read_tokens": "cacheReadTokens",
    "cache_write_tokens": "cacheWriteTokens",
    "summary_prompt_tokens": "summaryPromptTokens",
    "summary_completion_tokens": "summaryCompletionTokens",
    "estimated_prompt_tokens": "estimatedPromptTokens",
    "estimated_completion_tokens": "estimatedCompletionTokens",
    "api_calls": "apiCalls",
}


class UsageTotals(CamelModel):
    """Sums over the turns that reported usage; `turns` is how many did."""

    turns: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    reasoning_tokens: int = 0
    total_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    summary_prompt_tokens: int = 0
    summary_completion_tokens: int = 0
    estimated_prompt_tokens: int = 0
    estimated_completion_tokens: int = 0
    api_calls: int = 0


class ContextWindow(CamelModel):
    """Tokens in the model's window after the latest turn, as hermes counts them (the prompt
    of its last call), and the window's size."""

    tokens: int
    length: int


def stored_usage(usage: dict[str, Any] | None) -> str | None:
    """A turn's usage as stored: compact JSON without the counters that are 0 (every reader
    counts a missing key as 0; an answer has about a dozen counters, most of them 0)."""
    kept = {key: value for key, value in (usage or {}).items() if value}
    return json.dumps(kept, separators=(",", ":")) if kept else None


def parse_usage(raw: str | None) -> dict[str, Any] | None:
    if not raw:
        return None
    try:
        value = json.loads(raw)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def total_usage(usages: Iterable[dict[str, Any] | None]) -> UsageTotals:
    totals = UsageTotals()
    for usage in usages:
        if not usage:
            continue
        totals.turns += 1
        for field, key in _COUNTED.items():
            setattr(totals, field, getattr(totals, field) + _count(usage.get(key)))
    return totals


def context_window(usage: dict[str, Any] | None) -> ContextWindow | None:
    if not usage or not _count(usage.get("contextLength")):
        return None
    return ContextWindow(
        tokens=_count(usage.get("contextTokens")), length=_count(usage.get("contextLength"))
    )


def _count(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return 0
    return max(int(value), 0)
