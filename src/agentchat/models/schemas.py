"""JSON of the model registry. The API key is write-only: responses carry hasApiKey/apiKeyLast4."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Literal
from urllib.parse import urlsplit

from pydantic import (
    AfterValidator,
    ConfigDict,
    Field,
    StrictBool,
    ValidationInfo,
    field_serializer,
    field_validator,
    model_validator,
)
from pydantic_core import PydanticCustomError

from agentchat.core.clock import iso
from agentchat.protocol.camel import CamelModel
from agentchat.protocol.context_length import (
    DEFAULT_CONTEXT_LENGTH,
    MAX_CONTEXT_LENGTH,
    MIN_CONTEXT_LENGTH,
)

# openai-compatible: any /v1/chat/completions endpoint (vLLM, llama.cpp, LM Studio, the scripted
# model); the others are the providers hermes-agent knows by name (see bridge/hermes/providers.py).
Provider = Literal["openai-compatible", "openai", "anthropic", "openrouter", "ollama"]
# hermes' reasoning efforts; "none" turns reasoning (Anthropic: extended thinking) off.
ReasoningEffort = Literal["none", "minimal", "low", "medium", "high", "xhigh"]

MAX_OUTPUT_TOKENS = 1_000_000
# The public endpoint of each named provider, used when a model is added without a base URL.
DEFAULT_BASE_URLS: dict[str, str] = {
    "openai": "https://api.openai.com/v1",
    "anthropic": "https://api.anthropic.com",
    "openrouter": "https://openrouter.ai/api/v1",
    "ollama": "http://127.0.0.1:11434/v1",
}
# hermes sends no temperature to Anthropic (it fixes sampling for extended thinking itself).
NO_TEMPERATURE = frozenset({"anthropic"})


def _printable(value: str) -> str:
    if any(ord(ch) < 32 or ord(ch) == 127 for ch in value):
        raise PydanticCustomError("control_characters", "must not contain control characters")
    return value


def _display_name(value: str) -> str:
    value = _printable(value.strip())
    if not value:
        raise PydanticCustomError("empty", "must not be empty")
    return value


def _model_name(value: str) -> str:
    value = value.strip()
    if not value or any(ch.isspace() for ch in value):
        raise PydanticCustomError("spaces", "must be non-empty and contain no spaces")
    return _printable(value)


def _base_url(value: str) -> str:
    value = _printable(value.strip()).rstrip("/")
    parts = urlsplit(value)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise PydanticCustomError("url_scheme", "must be an http:// or https:// URL with a host")
    if parts.username is not None or parts.password is not None:
        raise PydanticCustomError(
            "url_credentials", "must not contain credentials; put the key in apiKey"
        )
    if parts.query or parts.fragment:
        raise PydanticCustomError("url_query", "must not contain a query or fragment")
    return value


def _api_key(value: str) -> str:
    return _printable(value.strip())


Name = Annotated[str, Field(max_length=128), AfterValidator(_display_name)]
ModelName = Annotated[str, Field(max_length=255), AfterValidator(_model_name)]
BaseUrl = Annotated[str, Field(max_length=512), AfterValidator(_base_url)]
ApiKey = Annotated[str, Field(max_length=2048), AfterValidator(_api_key)]
ContextLength = Annotated[int, Field(ge=MIN_CONTEXT_LENGTH, le=MAX_CONTEXT_LENGTH)]
MaxOutputTokens = Annotated[int, Field(ge=1, le=MAX_OUTPUT_TOKENS)]
Temperature = Annotated[float, Field(ge=0, le=2)]
FallbackId = Annotated[int, Field(ge=1)]


def check_temperature(provider: str, temperature: float | None) -> None:
    if temperature is not None and provider in NO_TEMPERATURE:
        raise PydanticCustomError(
            "no_temperature",
            "temperature cannot be set for {provider}: hermes-agent does not send it there",
            {"provider": provider},
        )


class ModelCreate(CamelModel):
    """baseUrl may be omitted for the named providers (their public endpoint is used)."""

    name: Name
    provider: Provider = "openai-compatible"
    base_url: BaseUrl | None = Field(default=None, validate_default=True)
    model_name: ModelName
    api_key: ApiKey | None = None
    context_length: ContextLength = DEFAULT_CONTEXT_LENGTH
    max_output_tokens: MaxOutputTokens | None = None
    temperature: Temperature | None = None
    reasoning_effort: ReasoningEffort | None = None
    fallback_model_id: FallbackId | None = None
    is_default: StrictBool = False
    # May be chosen to write chats' summaries (context compression).
    can_summarize: StrictBool = False
    # Whether it sees images (null: the provider's default, `seesImages` in answers)
    vision: StrictBool | None = None

    # Checked on their fields (a refusal names the field); `provider` is validated before them.
    @field_validator("base_url", mode="after")
    @classmethod
    def _endpoint_or_default(cls, value: str | None, info: ValidationInfo) -> str | None:
        provider = info.data.get("provider")
        if value is not None or provider is None:
            return value
        default = DEFAULT_BASE_URLS.get(provider)
        if default is None:
            raise PydanticCustomError(
                "base_url_required", "baseUrl is required for an OpenAI-compatible endpoint"
            )
        return default

    @field_validator("temperature", mode="after")
    @classmethod
    def _temperature_is_sent(cls, value: float | None, info: ValidationInfo) -> float | None:
        if "provider" in info.data:
            check_temperature(info.data["provider"], value)
        return value

    @property
    def endpoint(self) -> str:
        """The base URL, filled in for the named providers by validation."""
        assert self.base_url is not None
        return self.base_url


NULLABLE_UPDATES = frozenset(
    {
        "api_key",
        "max_output_tokens",
        "temperature",
        "reasoning_effort",
        "fallback_model_id",
        "vision",
    }
)


class ModelUpdate(CamelModel):
    """Only the fields sent change. apiKey: omitted keeps the key, "" or null clears it;
    maxOutputTokens, temperature, reasoningEffort, fallbackModelId: null clears them."""

    name: Name | None = None
    provider: Provider | None = None
    base_url: BaseUrl | None = None
    model_name: ModelName | None = None
    api_key: ApiKey | None = None
    context_length: ContextLength | None = None
    max_output_tokens: MaxOutputTokens | None = None
    temperature: Temperature | None = None
    reasoning_effort: ReasoningEffort | None = None
    fallback_model_id: FallbackId | None = None
    is_default: StrictBool | None = None
    can_summarize: StrictBool | None = None
    vision: StrictBool | None = None

    @model_validator(mode="after")
    def _no_null_fields(self) -> ModelUpdate:
        for field in self.model_fields_set - NULLABLE_UPDATES:
            if getattr(self, field) is None:
                raise ValueError(f"{field} cannot be null")
        return self


class ModelPublic(CamelModel):
    id: int
    name: str
    provider: Provider
    base_url: str
    model_name: str
    context_length: int
    max_output_tokens: int | None
    temperature: float | None
    reasoning_effort: ReasoningEffort | None
    fallback_model_id: int | None
    is_default: bool
    is_builtin: bool
    can_summarize: bool = False
    vision: bool | None = None  # as set (null: the provider's default)
    sees_images: bool = False  # what applies: images go to it as images
    has_api_key: bool
    api_key_last4: str | None
    # An administrator's model offered to everyone (false: the viewer's own private model).
    shared: bool = True
    created_at: datetime

    @field_serializer("created_at")
    def _iso(self, value: datetime) -> str | None:
        return iso(value)


class ModelTestResult(CamelModel):
    # Left out of the JSON when there is none (the route excludes None): optional in the document.
    model_config = CamelModel.model_config | ConfigDict(
        json_schema_serialization_defaults_required=False
    )

    ok: bool
    latency_ms: int
    error: str | None = None
    code: str | None = Field(
        default=None,
        description="Why it failed: no_answer, no_answer_without_v1 (the URL lacks the /v1 most "
        "servers have), provider_error (`error` holds the provider's words), host_refused",
    )
