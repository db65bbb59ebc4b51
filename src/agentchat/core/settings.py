"""Settings: one object read from AGENTCHAT_* environment variables, the same names as CLI flags."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Any, Literal

from pydantic import Field, SecretStr, ValidationInfo, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from agentchat.core import setting_values
from agentchat.protocol.toolsets import DEFAULT_TOOLSETS, toolset_list


def shown(default: str) -> dict[str, Any]:
    """A default as the README's settings table shows it, where the value alone would mislead
    (`scripts/settings_table.py`)."""
    return {"shown_default": default}


class Settings(BaseSettings):
    """Every field is documented in the README's table, generated from these descriptions."""

    model_config = SettingsConfigDict(env_prefix="AGENTCHAT_", extra="ignore")

    host: str = Field(default="127.0.0.1", description="interface to bind")
    port: int = Field(default=8000, ge=1, le=65535, description="port")
    data_dir: Path = Field(
        default=Path("./data"),
        description="SQLite file, skills, hermes home, secret key",
        json_schema_extra=shown("`./data`"),
    )
    database_url: str | None = Field(
        default=None,
        description="e.g. `postgresql+psycopg://user@host/db`, `mysql+pymysql://root@host/db`; "
        "`postgres://`, `postgresql://`, `mysql://` and `mariadb://` get the bundled driver; "
        "see [The database server](#the-database-server)",
        json_schema_extra=shown("SQLite in the data folder"),
    )
    migrate: bool = Field(
        default=True,
        description="`serve` brings the schema up to date at start, under a database lock; off: "
        "it refuses a schema that is behind (run `agentchat migrate`)",
    )
    redis_url: str | None = Field(
        default=None,
        description="Redis Streams event bus for several API processes",
        json_schema_extra=shown("unset (in-process bus)"),
    )
    redis_prefix: str = Field(
        default="agentchat:",
        description="prefix of every Redis key (one per deployment sharing a Redis)",
    )
    bridge_url: str | None = Field(
        default=None,
        description="one or more Hermes Bridge URLs, comma-separated: `http://host:port`, or "
        "`http+unix://` and the percent-encoded path of the socket a bridge started with "
        "`agentchat bridge --uds PATH` listens on",
        json_schema_extra=shown("unset (start a local bridge)"),
    )
    bridge_secret: SecretStr | None = Field(
        default=None,
        description="shared secret (16+ characters) the bridges require and the API sends; "
        "`agentchat bridge` refuses to start without it",
        json_schema_extra=shown("unset (random for the local bridge)"),
    )
    bridge_orphan_s: float = Field(
        default=120.0,
        gt=0,
        description="a bridge that hears from no API for this many seconds ends its turns and "
        "exits 0 (the API pings its bridges every `AGENTCHAT_BRIDGE_PING_S`)",
        json_schema_extra=shown("`120` for the local bridge; unset (never) for `agentchat bridge`"),
    )
    bridge_ping_s: float = Field(
        default=2.0,
        gt=0,
        description="seconds between the API's health checks of its bridges; a local bridge "
        "that misses 3 in a row is restarted",
    )
    skills_dir: Path | None = Field(
        default=None,
        description="folder of skills (`<name>/SKILL.md`)",
        json_schema_extra=shown("`DATA_DIR/skills`"),
    )
    hermes_home: Path | None = Field(
        default=None,
        description="hermes-agent's home (memory, state)",
        json_schema_extra=shown("`DATA_DIR/hermes-home`"),
    )
    max_active_runs: int = Field(
        default=5,
        ge=1,
        description="runs at work across the server (all API processes); more get 429. A run "
        "waiting for the person's answer to its question (clarify, approval; up to 30 "
        "minutes) does not count, up to `AGENTCHAT_MAX_WAITING_RUNS` of them",
    )
    max_waiting_runs: int = Field(
        default=10,
        ge=0,
        description="runs waiting for an answer that do not count in "
        "`AGENTCHAT_MAX_ACTIVE_RUNS` (nor, per person, in "
        "`AGENTCHAT_MAX_ACTIVE_RUNS_PER_USER`); those beyond count as at work (each waiting "
        "run holds a thread of its bridge, which has 16)",
    )
    log_max_mb: float = Field(
        default=10.0,
        gt=0,
        description="the local bridge's log files (`DATA_DIR/logs/bridge.out`, "
        "`HERMES_HOME/logs/bridge.log`) are copied aside past this size, 3 copies kept",
    )
    log_check_s: float = Field(
        default=5.0,
        gt=0,
        description="seconds between two looks at the size of the local bridge's log files",
    )
    db_lock_timeout_s: float = Field(
        default=10.0,
        gt=0,
        description="PostgreSQL and MariaDB: seconds a request waits for a lock another "
        "client holds (a `LOCK TABLE` by hand); then 503 `database_busy`, to try again",
    )
    header_timeout_s: float = Field(
        default=10.0,
        gt=0,
        description="seconds a client has to send a request's headers, from when it connects "
        "or its previous request ended; a connection that takes longer is closed (slowloris)",
    )
    shutdown_grace_s: float = Field(
        default=10.0,
        ge=0,
        description="on SIGTERM, seconds runs in flight get to finish; then they are left going "
        "in their bridge for the next start to re-attach (when the bridge outlives the API) "
        "or stored as interrupted (with their text)",
    )
    bridge_survives_api: bool | None = Field(
        default=None,
        description="whether runs still going at shutdown are left to their bridge, which keeps "
        "them (and their events, `AGENTCHAT_BRIDGE_RUN_RETENTION_S`, default one day after "
        "their end unless the API stored and released them) for the API that comes back",
        json_schema_extra=shown("unset (yes for `AGENTCHAT_BRIDGE_URL` bridges and the local one)"),
    )
    auth_token: SecretStr | None = Field(
        default=None,
        description="bearer token for every `/api` route and stream (or sign in once: a "
        "server-side session in an HttpOnly cookie, revoked by signing out); unset = loopback "
        "only, and only for the user of the machine that runs `serve` (Linux; others get "
        "403); at least 16 characters to bind beyond loopback (with accounts no token is "
        "needed: see [Accounts](#accounts))",
    )
    signup: Literal["off", "approval", "open"] = Field(
        default="off",
        description="with accounts: `off` (an administrator adds people or sends an invitation "
        "link), `approval` (anyone may ask; the account waits, role `pending`, until an "
        "administrator approves it) or `open`",
    )
    invitation_ttl_hours: float = Field(
        default=72, gt=0, description="how long an invitation link works (once)"
    )
    signin_failures_per_account: int = Field(
        default=5,
        ge=1,
        description="wrong passwords in a row before an account's sign-in waits 30 s, doubling "
        "up to 15 min, whoever tries from wherever (429 `signin_throttled`)",
    )
    max_active_runs_per_user: int = Field(
        default=3,
        ge=1,
        description="with accounts: answers one person may run at once (429 `too_many_runs`); "
        "waiting ones count as in `AGENTCHAT_MAX_ACTIVE_RUNS`",
    )
    oidc_issuer: str | None = Field(
        default=None,
        description="single sign-on with an OpenID Connect provider: its issuer URL (see "
        "[Accounts](#accounts))",
    )
    oidc_client_id: str | None = Field(
        default=None, description="single sign-on: the client id registered with the provider"
    )
    oidc_client_secret: SecretStr | None = Field(
        default=None, description="single sign-on: the client's secret"
    )
    oidc_name: str = Field(
        default="single sign-on",
        description='the name on the page\'s "Sign in with …" button',
    )
    oidc_role_claim: str = Field(
        default="groups",
        description="the ID token claim (a string or a list) whose value "
        "(`AGENTCHAT_OIDC_ADMIN_VALUE`) makes an administrator; everyone else signs in as a "
        "user",
    )
    oidc_admin_value: str = Field(
        default="agentchat-admin",
        description="the value of `AGENTCHAT_OIDC_ROLE_CLAIM` (or one of its values) that makes "
        "an administrator",
    )
    public_url: str | None = Field(
        default=None,
        description="the address people use: single sign-on's return address, invitation links",
        json_schema_extra=shown("unset (the request's address)"),
    )
    auth_failures_per_minute: int = Field(
        default=10,
        ge=0,
        description="failed authentications (Bearer, cookie, sign-in) per client IP a minute; "
        "429 beyond, `0` = no limit",
    )
    session_ttl_hours: float = Field(default=24 * 7, gt=0, description="how long a sign-in lasts")
    insecure_public: bool = Field(
        default=False,
        description="allow binding beyond loopback without a token (only behind another guard)",
    )
    allowed_hosts: str = Field(
        default="127.0.0.1,localhost,[::1],::1",
        description="names the `Host` header may carry, comma-separated (port ignored, the "
        "`--host` is added, `*` = any); others get 403",
    )
    forwarded_allow_ips: str = Field(
        default="",
        description="addresses of the reverse proxies whose `X-Forwarded-For` / `-Proto` are "
        "believed (comma-separated, `*` = any); unset, every client is the address it "
        "connects from, so no header can choose the address the rate limits count",
        json_schema_extra=shown("unset (none)"),
    )
    cors_origins: str = Field(
        default="",
        description="origins, comma-separated, whose pages may call the API; other sites' pages "
        "get 403",
        json_schema_extra=shown("unset (no CORS)"),
    )
    max_body_bytes: int = Field(
        default=1024 * 1024,
        ge=1,
        description="larger request bodies get 413 (an attachment upload has its own limit)",
    )
    max_upload_mb: int = Field(
        default=20,
        ge=1,
        le=2048,
        description="largest attachment; a larger one gets 413 while it arrives and nothing is "
        "kept",
    )
    max_attachments: int = Field(
        default=10, ge=1, le=100, description="attachments one question may carry (413 beyond)"
    )
    upload_quota_mb: int = Field(
        default=1024,
        ge=0,
        description="attachment bytes one person may store across their chats (the one "
        "person's, without accounts); 413 beyond, `0` = no limit",
    )
    attachment_store: Literal["database", "s3"] = Field(
        default="database",
        description="where attachment bytes are kept: `database` (chunks in the database), or "
        "`s3`, an S3-compatible object store (the `AGENTCHAT_S3_*` settings), one object per "
        "chat and SHA-256, deleted with the chat",
    )
    s3_endpoint_url: str | None = Field(
        default=None,
        description="the object store's URL (`https://minio.example:9000`); unset: AWS S3 of "
        "`AGENTCHAT_S3_REGION`",
        json_schema_extra=shown("unset (AWS)"),
    )
    s3_bucket: str | None = Field(
        default=None,
        validate_default=True,
        description="the bucket attachments go in (it must exist); required with "
        "`AGENTCHAT_ATTACHMENT_STORE=s3`",
    )
    s3_region: str = Field(default="us-east-1", min_length=1, description="the bucket's region")
    s3_access_key_id: str | None = Field(
        default=None,
        description="the object store's access key; unset: boto3's own (environment, "
        "instance role)",
    )
    s3_secret_access_key: SecretStr | None = Field(
        default=None,
        validate_default=True,
        description="its secret; required with `AGENTCHAT_S3_ACCESS_KEY_ID`",
    )
    s3_key_prefix: str = Field(
        default="attachments/",
        max_length=200,
        description="what every object's key starts with (then `CHAT/SHA256`)",
    )
    run_rate_per_minute: int = Field(
        default=30,
        ge=0,
        description="run starts and regenerations (and, apart, sign-in attempts, sign-ups "
        "and invitation acceptances, and model tests) per client IP a minute (with accounts: "
        "run starts per person); 429 beyond, `0` = no limit",
    )
    secret_key: SecretStr | None = Field(
        default=None,
        description="Fernet key that encrypts model API keys",
        json_schema_extra=shown("generated into the data folder"),
    )
    agent_toolsets: str = Field(
        default=",".join(DEFAULT_TOOLSETS),
        description="hermes toolsets the agent gets, read by the bridge (a request may narrow "
        "them, never widen them); the defaults cannot run commands, write files or reach the "
        "network, and `skills` is read-only (add e.g. `web`, `file`, `terminal` "
        "deliberately: see [SECURITY.md](SECURITY.md); `file` works in the chat's scratch "
        "folder only, `terminal`, `code_execution` and `browser` act as the bridge's user and "
        "the page says so; dangerous commands wait for the person's approval in the page, and "
        "the agent's own programs are refused by the API and the bridge, 403 "
        "`agent_process`); the page shows them and a chat may narrow them",
    )
    agent_skill_management: bool = Field(
        default=False,
        description="let the agent create and edit its own skills, in the hermes home only (the "
        "Skills page marks them); the user's skills stay read-only",
    )
    model_hosts_allow: str = Field(
        default="",
        description="hosts a model's base URL may name, comma-separated: names, `.suffix`, IPs "
        "or networks (`10.0.0.0/8`)",
        json_schema_extra=shown("unset (any)"),
    )
    model_hosts_deny: str = Field(
        default="",
        description="hosts a model's base URL may not name or reach (same forms; deny wins; an "
        "address is matched however it is written, and a name by the addresses it resolves "
        "to when the model test or the agent connects: see [SECURITY.md](SECURITY.md))",
    )
    scripted_llm_url: str | None = Field(
        default=None,
        description="a scripted model already running, for the built-in demo model (set by "
        "`serve --workers` for its workers); unset: `serve` starts one",
    )
    start_bridge: bool = Field(
        default=True,
        description="without `AGENTCHAT_BRIDGE_URL`, `serve` starts a local bridge (off: runs "
        "fail until a bridge is configured; tests)",
    )
    start_scripted_llm: bool = Field(
        default=True,
        description="`serve` starts the scripted model for the built-in demo model",
    )
    follow_local_bridge: bool = Field(
        default=False,
        description="the bridge URL is a local bridge another process supervises (set by "
        "`serve --workers`): follow it through `DATA_DIR/bridge.json` when it moves",
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

    @field_validator("s3_endpoint_url")
    @classmethod
    def _s3_endpoint(cls, value: str | None) -> str | None:
        return setting_values.http_url(value) if value else None

    @field_validator("s3_bucket")
    @classmethod
    def _s3_bucket(cls, value: str | None, info: ValidationInfo) -> str | None:
        if info.data.get("attachment_store") == "s3" and not value:
            raise ValueError("required with AGENTCHAT_ATTACHMENT_STORE=s3")
        return value or None

    @field_validator("s3_secret_access_key")
    @classmethod
    def _s3_secret(cls, value: SecretStr | None, info: ValidationInfo) -> SecretStr | None:
        if info.data.get("s3_access_key_id") and not (value and value.get_secret_value()):
            raise ValueError("required with AGENTCHAT_S3_ACCESS_KEY_ID")
        return value

    @field_validator("agent_toolsets")
    @classmethod
    def _toolsets(cls, value: str) -> str:
        return toolset_list(value)

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
