"""Settings: one object read from AGENTCHAT_* environment variables, the same names as CLI flags."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Literal

from pydantic import Field, SecretStr, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from agentchat.core import setting_values
from agentchat.protocol.toolsets import DEFAULT_TOOLSETS


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="AGENTCHAT_", extra="ignore")

    host: str = "127.0.0.1"
    port: int = Field(default=8000, ge=1, le=65535)
    data_dir: Path = Path("./data")
    database_url: str | None = None
    redis_url: str | None = None
    redis_prefix: str = Field(
        default="agentchat:", description="Prefix of every Redis key (one per deployment)"
    )
    bridge_url: str | None = Field(
        default=None, description="Comma-separated bridge URLs; unset starts a local bridge"
    )
    bridge_secret: SecretStr | None = None
    bridge_orphan_s: float = Field(
        default=120.0,
        gt=0,
        description="The local bridge exits when it hears from no API for this long",
    )
    skills_dir: Path | None = None
    hermes_home: Path | None = None
    max_active_runs: int = Field(default=5, ge=1)
    max_waiting_runs: int = Field(
        default=10,
        ge=0,
        description="Runs waiting for the person's answer that do not count as active",
    )
    shutdown_grace_s: float = Field(
        default=10.0, ge=0, description="On SIGTERM, how long runs in flight get to finish"
    )
    bridge_survives_api: bool | None = Field(
        default=None,
        description="Runs still going at shutdown are left in their bridge for the next API "
        "to re-attach (unset: yes for external bridges)",
    )
    auth_token: SecretStr | None = None
    secret_key: SecretStr | None = None
    insecure_public: bool = False
    agent_toolsets: str = ",".join(DEFAULT_TOOLSETS)
    agent_skill_management: bool = Field(
        default=False, description="The agent may create skills (in the hermes home only)"
    )
    allowed_hosts: str = "127.0.0.1,localhost,[::1],::1"
    forwarded_allow_ips: str = Field(
        default="",
        description="Proxies whose X-Forwarded-For/-Proto are believed (empty: none)",
    )
    cors_origins: str = ""
    max_body_bytes: int = Field(default=1024 * 1024, ge=1)
    max_upload_mb: int = Field(default=20, ge=1, le=2048, description="Largest attachment")
    max_attachments: int = Field(
        default=10, ge=1, le=100, description="Attachments one question may carry"
    )
    upload_quota_mb: int = Field(
        default=1024, ge=0, description="Attachment bytes one person may store; 0 = no limit"
    )
    model_hosts_allow: str = Field(default="", description="Model hosts allowed (empty: any)")
    model_hosts_deny: str = Field(default="", description="Model hosts refused")
    auth_failures_per_minute: int = Field(
        default=10, ge=0, description="Failed sign-ins per client IP a minute; 0 = no limit"
    )
    session_ttl_hours: float = Field(default=24 * 7, gt=0, description="Sign-in lifetime")
    signup: Literal["off", "approval", "open"] = Field(
        default="off",
        description="With accounts: off (an administrator adds people or invites them), "
        "approval (anyone may ask; an administrator approves) or open",
    )
    signin_failures_per_account: int = Field(
        default=5,
        ge=1,
        description="Wrong passwords in a row before an account's sign-in waits (30 s, "
        "doubling up to 15 min)",
    )
    invitation_ttl_hours: float = Field(default=72, gt=0, description="Invitation lifetime")
    max_active_runs_per_user: int = Field(
        default=3, ge=1, description="With accounts: answers one person may run at once"
    )
    oidc_issuer: str | None = Field(default=None, description="Single sign-on: the issuer URL")
    oidc_client_id: str | None = None
    oidc_client_secret: SecretStr | None = None
    oidc_name: str = Field(default="single sign-on", description="The sign-in button's name")
    oidc_role_claim: str = Field(
        default="groups", description="The ID token claim that makes an administrator"
    )
    oidc_admin_value: str = Field(
        default="agentchat-admin",
        description="The value of OIDC_ROLE_CLAIM (or one of its values) for administrators",
    )
    public_url: str | None = Field(
        default=None,
        description="The address people use (single sign-on's return address and invitation "
        "links); unset: the address of the request",
    )
    run_rate_per_minute: int = Field(default=30, ge=0, description="0 turns the limit off")
    scripted_llm_url: str | None = Field(
        default=None, description="A scripted model already running (set by `serve --workers`)"
    )
    migrate: bool = Field(
        default=True, description="`serve` brings the schema up to date at start (under a lock)"
    )
    start_bridge: bool = True
    start_scripted_llm: bool = True
    follow_local_bridge: bool = Field(
        default=False,
        description="The bridge URL is a local bridge another process supervises (set by "
        "`serve --workers`): follow it through DATA_DIR/bridge.json when it moves",
    )

    @field_validator("database_url")
    @classmethod
    def _database_url(cls, value: str | None) -> str | None:
        return setting_values.database_url(value) if value else None

    @field_validator("redis_url")
    @classmethod
    def _redis_url(cls, value: str | None) -> str | None:
        return setting_values.redis_url(value) if value else None

    @field_validator("bridge_url")
    @classmethod
    def _bridge_url(cls, value: str | None) -> str | None:
        return setting_values.bridge_urls(value) if value else None

    @field_validator("model_hosts_allow", "model_hosts_deny")
    @classmethod
    def _host_list(cls, value: str) -> str:
        return setting_values.host_list(value)

    @property
    def resolved_database_url(self) -> str:
        if self.database_url:
            return self.database_url
        return f"sqlite:///{(self.data_dir / 'agentchat.db').resolve()}"

    @property
    def resolved_skills_dir(self) -> Path:
        return (self.skills_dir or self.data_dir / "skills").resolve()

    @property
    def resolved_hermes_home(self) -> Path:
        return (self.hermes_home or self.data_dir / "hermes-home").resolve()

    @property
    def bridges_outlive_api(self) -> bool:
        """Whether a bridge keeps a run going after this API process stops."""
        if self.bridge_survives_api is not None:
            return self.bridge_survives_api
        return bool(self.bridge_urls)

    @property
    def bridge_urls(self) -> list[str]:
        return [u.strip().rstrip("/") for u in (self.bridge_url or "").split(",") if u.strip()]

    @property
    def oidc_enabled(self) -> bool:
        return bool(self.oidc_issuer and self.oidc_client_id)

    @property
    def max_upload_bytes(self) -> int:
        return self.max_upload_mb * 1024 * 1024

    @property
    def upload_dir(self) -> Path:
        """Where an upload is spooled while it arrives (never held in memory whole)."""
        return (self.data_dir / "uploads").resolve()

    @property
    def toolsets(self) -> list[str]:
        return [t.strip() for t in self.agent_toolsets.split(",") if t.strip()]


@lru_cache
def get_settings() -> Settings:
    return Settings()
