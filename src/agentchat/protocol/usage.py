"""A turn's token usage, as the bridge reports it in `run_end.usage`, the page receives it in
`workflow_complete.usage` and an answer stores it (`chat_message.usage_json`).

It counts every model call hermes made for the turn: tool rounds, retried attempts, the
compaction summariser (`summary*Tokens`, also in the totals) and attempts a provider cut off
mid-stream, which report no usage: the bridge estimates those (`estimated*Tokens`, also in the
totals). `contextTokens` / `contextLength`: the model's window after the turn and its size.

Every counter is a whole number, 0 when not reported; JSON leaves the zeros out (an answer has
about a dozen counters, most of them 0), and a value that is no count reads as 0.
"""

from __future__ import annotations

import json
from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, ValidationError
from pydantic.alias_generators import to_camel


def _count(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return 0
    return max(int(value), 0)


# A counter: read leniently, left out of JSON when 0.
Count = Annotated[int, BeforeValidator(_count), Field(exclude_if=lambda value: not value)]


class Usage(BaseModel):
    model_config = ConfigDict(
        alias_generator=to_camel, populate_by_name=True, extra="ignore", frozen=True
    )

    prompt_tokens: Count = 0
    completion_tokens: Count = 0
    total_tokens: Count = 0
    input_tokens: Count = 0
    output_tokens: Count = 0
    reasoning_tokens: Count = 0
    cache_read_tokens: Count = 0
    cache_write_tokens: Count = 0
    api_calls: Count = 0
    summary_prompt_tokens: Count = 0
    summary_completion_tokens: Count = 0
    estimated_prompt_tokens: Count = 0
    estimated_completion_tokens: Count = 0
    context_tokens: Count = 0
    context_length: Count = 0

    def __bool__(self) -> bool:
        """False when nothing was reported (every counter 0), like the empty object it sends."""
        return any(getattr(self, name) for name in type(self).model_fields)

    def counted(self, *, prompt: int = 0, completion: int = 0, calls: int = 0) -> Usage:
        """This usage with more model calls' tokens added to the totals."""
        return self.model_copy(
            update={
                "prompt_tokens": self.prompt_tokens + prompt,
                "input_tokens": self.input_tokens + prompt,
                "completion_tokens": self.completion_tokens + completion,
                "output_tokens": self.output_tokens + completion,
                "total_tokens": self.total_tokens + prompt + completion,
                "api_calls": self.api_calls + calls,
            }
        )

    def since(self, before: Usage) -> Usage:
        """The counters' growth from `before` to this (never below 0)."""
        return Usage.model_validate(
            {name: getattr(self, name) - getattr(before, name) for name in type(self).model_fields}
        )


def usage_json(usage: Usage | None) -> str | None:
    """A turn's usage as an answer stores it: compact JSON without zeros; None when empty."""
    if not usage:
        return None
    return json.dumps(usage.model_dump(by_alias=True), separators=(",", ":"))


def usage_from_json(raw: str | None) -> Usage | None:
    """A stored usage; None for none, or for a value that is no JSON object."""
    if not raw:
        return None
    try:
        return Usage.model_validate_json(raw)
    except ValidationError:
        return None
