"""The closed vocabularies of the chat: message roles and statuses, session and pause statuses.

StrEnums: they compare equal to the strings stored in the database, and the response schemas
that use them give the OpenAPI document (and the page's generated types) closed unions.
"""

from __future__ import annotations

from enum import StrEnum

from agentchat.protocol.status import RunStatus


class MessageRole(StrEnum):
    USER = "USER"
    ASSISTANT = "ASSISTANT"
    SYSTEM = "SYSTEM"


# An answer's statuses are the run's (`protocol.status.RunStatus`, the same values).
class MessageStatus(StrEnum):
    SENT = "SENT"  # a USER message
    RUNNING = "RUNNING"  # an ASSISTANT message: RUNNING, then one terminal status
    SUCCESS = "SUCCESS"
    FAILED = "FAILED"
    STOPPED = "STOPPED"
    INTERRUPTED = "INTERRUPTED"  # cut by a server restart or shutdown; its text is kept
    SUMMARY = "SUMMARY"  # a SYSTEM message: the compacted history
    RESET = "RESET"  # a SYSTEM message: the divider a reset puts in the branch


STATUSES_OF: dict[MessageRole, frozenset[MessageStatus]] = {
    MessageRole.USER: frozenset({MessageStatus.SENT}),
    MessageRole.ASSISTANT: frozenset(MessageStatus(status) for status in RunStatus),
    MessageRole.SYSTEM: frozenset({MessageStatus.SUMMARY, MessageStatus.RESET}),
}
FIRST_STATUS: dict[MessageRole, MessageStatus] = {
    MessageRole.USER: MessageStatus.SENT,
    MessageRole.ASSISTANT: MessageStatus.RUNNING,
    MessageRole.SYSTEM: MessageStatus.SUMMARY,
}


class SessionStatus(StrEnum):
    ACTIVE = "ACTIVE"
    ARCHIVED = "ARCHIVED"


class PauseStatus(StrEnum):
    """A clarify question's row: waiting, answered, or closed with its run."""

    PENDING = "PENDING"
    ANSWERED = "ANSWERED"
    CANCELLED = "CANCELLED"
    TIMED_OUT = "TIMED_OUT"  # nobody answered in time: the agent went on with its default
