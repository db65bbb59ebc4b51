"""Tokens of the attempts a provider cut off mid-stream, estimated.

A provider sends a stream's usage in its last chunk, so an attempt that stalls reports none and
hermes counts nothing for it, although the provider read the whole prompt and wrote the partial
answer. Such an attempt is the partial assistant message before each continuation nudge
(`continuations`). Its prompt (system prompt, tool schemas, the messages before the partial) and
its partial answer are estimated with hermes' own rough estimator, added to the turn's totals and
reported apart as `estimatedPromptTokens` / `estimatedCompletionTokens`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from agentchat.bridge.hermes.continuations import is_nudge
from agentchat.protocol.usage import Usage

# (messages sent, system prompt, tool schemas) -> tokens of that request; text -> tokens
RequestTokens = Callable[[list[dict[str, Any]], str, list[dict[str, Any]] | None], int]
TextTokens = Callable[[str], int]


def cut_attempts(messages: list[dict[str, Any]]) -> list[tuple[list[dict[str, Any]], str]]:
    """(the messages the cut-off attempt was sent, its partial text) for every nudge."""
    attempts = []
    for index, message in enumerate(messages):
        if not is_nudge(message):
            continue
        before = messages[index - 1] if index else {}
        if before.get("role") == "assistant" and not before.get("tool_calls"):
            content = before.get("content")
            attempts.append((messages[: index - 1], content if isinstance(content, str) else ""))
        else:
            attempts.append((messages[:index], ""))
    return attempts


def with_estimates(
    usage: Usage,
    messages: list[dict[str, Any]],
    system_prompt: str,
    tools: list[dict[str, Any]] | None,
    request_tokens: RequestTokens,
    text_tokens: TextTokens,
) -> Usage:
    """`usage` with the cut-off attempts of `messages` (the whole conversation hermes
    returned) estimated and counted."""
    attempts = cut_attempts(messages)
    if not attempts:
        return usage
    prompt = sum(request_tokens(sent, system_prompt, tools) for sent, _ in attempts)
    completion = sum(text_tokens(partial) for _, partial in attempts)
    return usage.counted(prompt=prompt, completion=completion).model_copy(
        update={"estimated_prompt_tokens": prompt, "estimated_completion_tokens": completion}
    )
