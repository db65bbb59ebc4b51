"""A run's log lines (its node events but the answer deltas) as stored in `chat_message_log`
and read back for `/state` and for the replay of a message's logs: typed by the contract."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import PlainSerializer, ValidationError

from agentchat.protocol.events import (
    NODE_EVENT,
    ClarifyAnsweredMeta,
    EventModel,
    NodeEvent,
    Pause,
    StepMeta,
    ToolCallMeta,
    ToolResultMeta,
)

LogMeta = ToolCallMeta | ToolResultMeta | Pause | ClarifyAnsweredMeta | StepMeta


def _wire(meta: Any) -> Any:
    return meta.wire() if isinstance(meta, EventModel) else meta


# A plain object only for a line stored before tool calls carried their ids. Either way it is
# sent as its JSON body (no null fields added), and documented as the typed union.
StoredMeta = Annotated[
    LogMeta | dict[str, Any], PlainSerializer(_wire, return_type=LogMeta | dict[str, Any])
]


def line_fields(event: NodeEvent) -> dict[str, Any]:
    """`kind`, `content`, `tool_name` and typed `meta` of a node event."""
    return {
        "kind": event.kind,
        "content": event.content,
        "tool_name": getattr(event, "tool_name", None),
        "meta": getattr(event, "meta", None),
    }


def stored_line_fields(
    kind: str, content: str | None, tool_name: str | None, meta: Any
) -> dict[str, Any]:
    """The fields of a stored line, its meta typed when the line reads as a node event."""
    body = {"kind": kind, "content": content or "", "toolName": tool_name, "meta": meta}
    try:
        typed = line_fields(NODE_EVENT.validate_python(body))
    except ValidationError:
        return {"kind": kind, "content": content, "tool_name": tool_name, "meta": meta}
    return {**typed, "content": content}
