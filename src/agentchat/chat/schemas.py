"""JSON shapes of the chat API (docs/contracts.md "Chat REST API")."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import Field, PlainSerializer, field_validator

from agentchat.attachments.schemas import MessageAttachmentPublic
from agentchat.chat.enums import MessageRole, MessageStatus, SessionStatus
from agentchat.core.clock import iso
from agentchat.events.log_lines import StoredMeta
from agentchat.protocol.camel import CamelModel
from agentchat.protocol.events import NodeKind
from agentchat.protocol.mcp import SERVER_NAME, SERVER_NAME_MAX
from agentchat.protocol.usage import Usage

MAX_CONTENT_CHARS = 100_000
MAX_TITLE_CHARS = 255
MAX_SKILL_FOLDER_CHARS = 255
MAX_QUERY_CHARS = 255
MAX_PAGE = 200
DEFAULT_PAGE = 50
PREVIEW_CHARS = 120

UtcDateTime = Annotated[datetime, PlainSerializer(iso, return_type=str)]
StatusFilter = Literal["ACTIVE", "ARCHIVED", "ALL"]
ExportFormat = Literal["md", "json"]
ExportBranch = Literal["active", "all"]

Title = Annotated[str, Field(min_length=1, max_length=MAX_TITLE_CHARS)]
SkillFolder = Annotated[str, Field(min_length=1, max_length=MAX_SKILL_FOLDER_CHARS)]
Content = Annotated[str, Field(min_length=1, max_length=MAX_CONTENT_CHARS)]
ToolsetName = Annotated[str, Field(min_length=1, max_length=64)]
# The chat's toolsets within the server's AGENTCHAT_AGENT_TOOLSETS (422 toolset_not_allowed for
# any other); null: all of the server's.
Toolsets = Annotated[list[ToolsetName], Field(max_length=32)]
# hermes' keys of the dangerous-command patterns allowed "for this chat" (the bridge keeps 200)
Approvals = Annotated[list[Annotated[str, Field(max_length=500)]], Field(max_length=200)]
# MCP servers (the Tools page) a chat turned off; a name no server has any more is harmless.
McpOff = Annotated[
    list[Annotated[str, Field(pattern=SERVER_NAME.pattern, max_length=SERVER_NAME_MAX)]],
    Field(max_length=100),
]


def _check_skill_folder(value: str | None) -> str | None:
    if value is not None and ("/" in value or "\\" in value or value.startswith(".")):
        raise ValueError("must be a skill folder name, not a path")
    return value


class SessionCreate(CamelModel):
    title: Title | None = None
    model_id: int | None = None
    skill_folder: SkillFolder | None = None
    toolsets: Toolsets | None = None

    _skill = field_validator("skill_folder")(_check_skill_folder)


class SessionUpdate(CamelModel):
    """Only the fields sent are changed; `null` clears title, modelId or skillFolder, and gives
    the chat all of the server's toolsets again. `approvals` can only shrink (take back what was
    allowed for this chat; `[]` or `null`: all of it): they are granted by answering a pause."""

    title: Title | None = None
    model_id: int | None = None
    skill_folder: SkillFolder | None = None
    status: SessionStatus | None = None
    toolsets: Toolsets | None = None
    approvals: Approvals | None = None
    # The MCP servers this chat does without (`[]` or null: it uses every one switched on).
    mcp_off: McpOff | None = None
    # The model that writes this chat's summaries (null: its own); it must be marked "can
    # write summaries" and have a context window at least as large as the chat's model.
    compression_model_id: int | None = Field(default=None, ge=1)

    _skill = field_validator("skill_folder")(_check_skill_folder)


class SessionPublic(CamelModel):
    id: int
    session_uuid: str
    title: str | None
    model_id: int | None
    skill_folder: str | None
    toolsets: list[str] | None = None
    approvals: list[str] = Field(
        default_factory=list,
        description='What was allowed "for this chat" (hermes\' dangerous-command patterns)',
    )
    mcp_off: list[str] = Field(default_factory=list)
    compression_model_id: int | None = None
    hermes_session: str | None
    status: SessionStatus
    created_at: UtcDateTime
    updated_at: UtcDateTime
    last_message_at: UtcDateTime | None
    last_summarized_at: UtcDateTime | None
    last_message_preview: str | None = None
    match: str | None = Field(
        default=None,
        description="With `q`: the words around the first hit in the chat's messages "
        "(null when the title holds the query, or without `q`)",
    )
    has_active_run: bool = False
    has_pending_clarify: bool = False
    active_run_id: str | None = None


class SessionCreated(CamelModel):
    session_id: int
    session_uuid: str
    session: SessionPublic


class SessionPage(CamelModel):
    items: list[SessionPublic]
    next_cursor: str | None
    has_more: bool


class LogPublic(CamelModel):
    seq: int
    kind: NodeKind
    content: str | None
    tool_name: str | None
    meta: StoredMeta | None = None
    created_at: UtcDateTime


class MessagePublic(CamelModel):
    id: int
    session_id: int
    parent_id: int | None
    role: MessageRole
    content: str
    status: MessageStatus
    is_active: bool
    branch_order: int
    sibling_count: int
    sibling_index: int
    run_id: str | None
    model_id: int | None
    skill_folder: str | None
    error: str | None
    created_at: UtcDateTime
    completed_at: UtcDateTime | None
    usage: Usage | None = None
    logs: list[LogPublic] = Field(default_factory=list)
    # A question's attachments, in order (images, files), and how each reached the agent
    attachments: list[MessageAttachmentPublic] = Field(default_factory=list)


class SessionDetail(CamelModel):
    session: SessionPublic
    messages: list[MessagePublic]
    has_more: bool


class MessagePage(CamelModel):
    messages: list[MessagePublic]
    has_more: bool


class VersionPublic(CamelModel):
    message_id: int
    branch_order: int
    is_active: bool
    role: MessageRole
    status: MessageStatus
    created_at: UtcDateTime
    preview: str


class ActivateResult(CamelModel):
    active_message_id: int


class MessageEdit(CamelModel):
    content: Content
    # The attachments the new version carries, in order (omitted: the edited one's)
    attachment_ids: list[int] | None = Field(default=None, max_length=100)


class EditResult(CamelModel):
    new_message_id: int


class ToolCallPublic(CamelModel):
    """One tool call of a recent answer with its result (the short-term memory view)."""

    message_id: int
    tool_call_id: str | None
    tool_name: str
    args: Any = None
    result: str | None
    result_chars: int
    is_error: bool
    duration_ms: int | None
    called_at: UtcDateTime | None
