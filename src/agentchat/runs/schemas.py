"""Request and response bodies of the run endpoints."""

from __future__ import annotations

from pydantic import Field, RootModel, StrictBool

from agentchat.attachments.kinds import Delivery
from agentchat.chat.enums import MessageStatus
from agentchat.events.log_lines import StoredMeta
from agentchat.protocol.camel import CamelModel
from agentchat.protocol.events import NodeKind, PageEvent
from agentchat.runs.views.usage import ContextWindow, UsageTotals

MAX_MESSAGE_CHARS = 100_000


class RunStart(CamelModel):
    message: str = Field(default="", max_length=MAX_MESSAGE_CHARS)
    model_id: int | None = Field(default=None, ge=1)
    skill_folder: str | None = Field(default=None, max_length=255)
    max_iterations: int | None = Field(default=None, ge=1, le=200)
    parent_message_id: int | None = Field(default=None, ge=1)
    # Narrows the server's toolsets (AGENTCHAT_AGENT_TOOLSETS) for this run; never widens them.
    toolsets: list[str] | None = Field(default=None, max_length=32)
    # Narrows the chat's MCP servers (those switched on that it did not turn off) for this run.
    mcp_servers: list[str] | None = Field(default=None, max_length=100)
    # Attachments of the chat the new question carries, in order (uploaded before); a
    # question with attachments may have no text.
    attachment_ids: list[int] | None = Field(default=None, max_length=100)


class RunStarted(CamelModel):
    run_id: str
    message_id: int
    user_message_id: int
    # How each attachment of the question reaches the agent, in the order they were sent
    deliveries: list[Delivery] = Field(default_factory=list)


class Regenerated(CamelModel):
    run_id: str
    new_message_id: int


class ClarifyAnswer(CamelModel):
    clarify_id: str = Field(min_length=1, max_length=128)
    answer: str = Field(max_length=20_000)


class PendingClarify(CamelModel):
    clarify_id: str
    question: str
    choices: list[str]


class RunLog(CamelModel):
    """One log line of a run: a node event of the contract (answer deltas aside) and its
    place. `meta` is a plain object only for lines stored before the contract was typed."""

    seq: int
    kind: NodeKind
    content: str | None
    tool_name: str | None = None
    meta: StoredMeta | None = None


class RunSnapshot(CamelModel):
    """A run seen at one moment (`/state`): for a client that lost its stream."""

    run_id: str
    session_id: int
    message_id: int
    status: MessageStatus
    event_count: int
    pending_clarify: PendingClarify | None
    final_text: str | None = None
    error: str | None = None
    logs: list[RunLog]


class RunStreamEvent(RootModel[PageEvent]):
    """The `data` of one event of a run's SSE stream (the events contract). The SSE `event:`
    name is `node_stream` for the node events (told apart by `kind`), else `context_compacted`,
    `workflow_complete` or `workflow_error`; the multiplexed stream adds `run_unknown` and
    `stream_interrupted` (`{runId}`)."""


class SteerRequest(CamelModel):
    message: str = Field(min_length=1, max_length=20_000)


class Accepted(CamelModel):
    ok: bool = True


class ResetRequest(CamelModel):
    keep_history: StrictBool = True  # "no" is an error, not False


class ResetResult(CamelModel):
    hermes_session: str
    divider_message_id: int


class MemoryUpdate(CamelModel):
    memory: str | None = Field(default=None, max_length=100_000)
    user: str | None = Field(default=None, max_length=100_000)


class SessionStats(CamelModel):
    """`usage`: the tokens every turn of the chat used (all branches, failed and stopped turns
    too); `context`: the window after the latest turn of the active branch, null before one."""

    messages: int
    active_branch_messages: int
    usage: UsageTotals
    context: ContextWindow | None
    compressions: int
    last_compression_at: str | None
    runs: int
    tool_calls: int
