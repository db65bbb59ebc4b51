"""What the Hermes Bridge accepts and answers besides the event stream (docs/contracts.md,
"Hermes Bridge protocol"): a turn's request, a clarify answer, a steer, the memory files, the
runs it holds."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from agentchat.protocol.camel import CamelModel
from agentchat.protocol.mcp import McpSetup
from agentchat.protocol.status import HeldState
from agentchat.protocol.workspace_files import WorkspaceFile


class ModelConfig(CamelModel):
    """provider: openai-compatible | openai | anthropic | openrouter | ollama
    (bridge/hermes/providers.py); unset options keep hermes' own defaults."""

    base_url: str
    api_key: str = ""
    model_name: str
    provider: str | None = "openai-compatible"
    context_length: int | None = None
    max_output_tokens: int | None = Field(default=None, ge=1)
    temperature: float | None = Field(default=None, ge=0, le=2)
    reasoning_effort: str | None = None
    fallback: ModelConfig | None = None
    # It sees images: hermes keeps a turn's image parts for it (else it strips them)
    vision: bool = False


class ModelHosts(CamelModel):
    """The API's AGENTCHAT_MODEL_HOSTS_ALLOW / _DENY: the addresses the agent may connect to
    for the turn's model hosts (protocol.host_policy; bridge.guards.hosts)."""

    allow: str = Field(default="", max_length=10_000)
    deny: str = Field(default="", max_length=10_000)


class RunRequest(CamelModel):
    run_id: str = Field(min_length=1, max_length=200)
    session_id: str = Field(min_length=1, max_length=200)
    system_prompt: str | None = None
    # Text, or content parts when the question carries images (protocol.workspace_files)
    user_message: str | list[dict[str, Any]]
    history: list[dict[str, Any]] = Field(default_factory=list)
    model: ModelConfig
    max_iterations: int = Field(default=30, ge=1, le=500)
    toolsets: list[str] | None = None
    working_dir: str | None = None
    # Skills (names or folder names) loaded into this turn's system prompt by hermes itself.
    skills: list[str] = Field(default_factory=list, max_length=20)
    # hermes approval keys the person allowed "for this chat" in earlier runs (the API keeps
    # them; a restarted bridge has forgotten them).
    approvals: list[str] = Field(default_factory=list, max_length=200)
    model_hosts: ModelHosts = Field(default_factory=ModelHosts)
    # The account that owns the chat, as an opaque id ("user-7"; None without accounts): what
    # a bridge keys a person's own long-term memory and skills by. Also sent as `userId` on the
    # memory routes.
    user_id: str | None = Field(default=None, max_length=200)
    # The MCP servers switched on and those this turn may use (None: an API that sends none;
    # the bridge then leaves the servers it holds as they are).
    mcp: McpSetup | None = None
    # The model that writes this chat's summaries when hermes compacts its context (None: the
    # chat's own model). The API refused one with a smaller context window.
    compression_model: ModelConfig | None = None
    # The attachments of the question and of the history, in the chat's workspace
    files: list[WorkspaceFile] = Field(default_factory=list, max_length=2000)

    def wire(self) -> dict[str, Any]:
        """The JSON body the API sends: the fields it set (the bridge keeps its defaults for
        the others)."""
        return self.model_dump(mode="json", by_alias=True, exclude_unset=True)


class ClarifyAnswer(CamelModel):
    clarify_id: str
    answer: str


class SteerMessage(CamelModel):
    text: str = Field(min_length=1, max_length=20_000)


class MemoryFile(CamelModel):
    content: str
    entries: list[str] = Field(default_factory=list)
    chars: int = 0
    char_limit: int = 0


class MemoryView(CamelModel):
    memory: MemoryFile
    user: MemoryFile


class MemoryUpdate(CamelModel):
    """Each field is the file content (entries joined by "\\n§\\n") or a list of entries."""

    memory: str | list[str] | None = None
    user: str | list[str] | None = None


class Ack(CamelModel):
    ok: bool = True
    detail: str | None = None


class HeldRun(CamelModel):
    """A run the bridge holds (`GET /runs`): going, waiting on a clarify, or ended with its
    events not yet read to the end."""

    run_id: str
    session_id: str
    state: HeldState
    last_event_id: int
