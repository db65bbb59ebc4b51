"""Token usage as the bridge reports it per turn (`protocol.usage.Usage`), summed over a chat."""

from __future__ import annotations

from collections.abc import Iterable

from agentchat.protocol.camel import CamelModel
from agentchat.protocol.usage import Usage


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


_SUMMED = tuple(name for name in UsageTotals.model_fields if name != "turns")


class ContextWindow(CamelModel):
    """Tokens in the model's window after the latest turn, as hermes counts them (the prompt
    of its last call), and the window's size."""

    tokens: int
    length: int


def total_usage(usages: Iterable[Usage | None]) -> UsageTotals:
    totals = UsageTotals()
    for usage in usages:
        if not usage:
            continue
        totals.turns += 1
        for name in _SUMMED:
            setattr(totals, name, getattr(totals, name) + getattr(usage, name))
    return totals


def context_window(usage: Usage | None) -> ContextWindow | None:
    if not usage or not usage.context_length:
        return None
    return ContextWindow(tokens=usage.context_tokens, length=usage.context_length)
