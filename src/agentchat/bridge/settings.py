"""Bridge settings, read from AGENTCHAT_* environment variables."""

from __future__ import annotations

from pathlib import Path

from pydantic import AliasChoices, Field, SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict

from agentchat.protocol.context_length import DEFAULT_CONTEXT_LENGTH, MIN_CONTEXT_LENGTH
from agentchat.protocol.toolsets import DEFAULT_TOOLSETS

SILENCE_GRACE_S = 30.0


class BridgeSettings(BaseSettings):
    """Everything the bridge process needs; one HERMES_HOME per process."""

    model_config = SettingsConfigDict(env_prefix="AGENTCHAT_BRIDGE_", extra="ignore")

    hermes_home: Path = Field(
        default=Path("./data/hermes-home"),
        validation_alias=AliasChoices("AGENTCHAT_HERMES_HOME", "hermes_home"),
        description="hermes-agent's home (one per bridge process)",
    )
    skills_dir: Path | None = Field(
        default=None,
        validation_alias=AliasChoices("AGENTCHAT_SKILLS_DIR", "skills_dir"),
        description="folder of the person's skills (read-only to the agent)",
    )
    secret: SecretStr | None = Field(
        default=None, description="the secret every request must carry"
    )
    toolsets: str = Field(
        default=",".join(DEFAULT_TOOLSETS),
        validation_alias=AliasChoices("AGENTCHAT_AGENT_TOOLSETS", "toolsets"),
        description="hermes toolsets the agent gets",
    )
    skill_management: bool = Field(
        default=False,
        validation_alias=AliasChoices("AGENTCHAT_AGENT_SKILL_MANAGEMENT", "skill_management"),
        description="the agent may create skills (hermes home only; user skills stay read-only)",
    )
    mcp_transports: str = Field(
        default="stdio,http",
        validation_alias=AliasChoices("AGENTCHAT_AGENT_MCP_TRANSPORTS", "mcp_transports"),
        description="the kinds of MCP server (the **Tools** page) the agent may use: `stdio` "
        "runs a command on the bridge's host, `http` reaches a URL; empty: none (a server of "
        "a kind left out is refused when it is saved and left out of turns)",
    )
    pool_size: int = Field(
        default=8,
        ge=1,
        description="hermes agents held at once (one per chat); turn threads: twice this, at "
        "least 16",
    )
    clarify_timeout_s: float = Field(
        default=30 * 60,
        gt=0,
        description="how long a question of the agent (clarify, approval) waits for the "
        "person's answer",
    )
    keepalive_s: float = Field(
        default=10.0, gt=0, description="a keep-alive comment on a silent event stream this often"
    )
    run_retention_s: float = Field(
        default=24 * 3600.0,
        ge=0,
        description="an ended run the API has not released (it died, or could not store the "
        "end) stays this long for the API that comes back: an outage, not a reconnect (a "
        "stored end is released at once)",
    )
    orphan_s: float = Field(
        default=0.0,
        ge=0,
        description="exit when no API was heard from for this long (`0`: never; `serve` gives "
        "its bridge 120)",
    )
    answer_window_ms: float = Field(
        default=15.0,
        ge=0,
        le=100,
        description="answer tokens are sent together for at most this long after the first "
        "(docs/contracts.md)",
    )
    answer_max_chars: int = Field(
        default=400, ge=1, description="answer characters gathered into one event at most"
    )
    api_max_retries: int = Field(
        default=1, ge=0, description="hermes' retries of a model request that failed"
    )
    request_timeout_s: float = Field(
        default=300.0, gt=0, description="the longest one model request may take"
    )
    silence_timeout_s: float | None = Field(
        default=None,
        gt=0,
        description="a turn whose model sends nothing for this long, over all hermes' retries, "
        "ends FAILED (bridge/hermes/silence.py); time a tool runs or a question waits does "
        "not count",
        json_schema_extra={"shown_default": "unset (`AGENTCHAT_BRIDGE_REQUEST_TIMEOUT_S`)"},
    )
    default_context_length: int = Field(
        default=DEFAULT_CONTEXT_LENGTH,
        ge=MIN_CONTEXT_LENGTH,
        description="a model's context length when its settings give none",
    )
    memory_char_limit: int = Field(
        default=2200, description="the agent's memory (`MEMORY.md`) at most, in characters"
    )
    user_char_limit: int = Field(
        default=1375,
        description="what the agent keeps of the person (`USER.md`) at most, in characters",
    )
    tool_result_max_chars: int = Field(
        default=20_000,
        description="a tool's result in the run's events at most, in characters",
    )

    @property
    def default_toolsets(self) -> list[str]:
        return [t.strip() for t in self.toolsets.split(",") if t.strip()]

    @property
    def allowed_mcp_transports(self) -> frozenset[str]:
        return frozenset(t.strip() for t in self.mcp_transports.split(",") if t.strip())

    @property
    def silence_limit_s(self) -> float:
        return self.silence_timeout_s or self.request_timeout_s

    @property
    def hermes_request_timeout_s(self) -> float:
        """hermes' own timeout of one request: past the silence limit, so a silent model ends
        the turn instead of starting hermes' reconnects and continuations."""
        return max(self.request_timeout_s, self.silence_limit_s + SILENCE_GRACE_S)

    @property
    def home(self) -> Path:
        return self.hermes_home.expanduser().resolve()
