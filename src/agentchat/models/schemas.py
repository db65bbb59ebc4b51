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
    field_serializer,
    model_validator,
)

from agentchat.core.clock import iso
from agentchat.core.context_length import (
    DEFAULT_CONTEXT_LENGTH,
    MAX_CONTEXT_LENGTH,
    MIN_CONTEXT_LENGTH,
)
from agentchat.core.schemas import CamelModel

Provider = Literal["openai", "anthropic"]


def _printable(value: str) -> str:
    if any(ord(ch) < 32 or ord(ch) == 127 for ch in value):
        raise ValueError("must not contain control characters")
    return value


def _display_name(value: str) -> str:
    value = _printable(value.strip())
    if not value:
        raise ValueError("must not be empty")
    return value


def _model_name(value: str) -> str:
    value = value.strip()
    if not value or any(ch.isspace() for ch in value):
        raise ValueError("must be non-empty and contain no spaces")
    return _printable(value)


def _base_url(value: str) -> str:
    value = _printable(value.strip()).rstrip("/")
    parts = urlsplit(value)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError("must be an http:// or https:// URL with a host")
    if parts.username is not None or parts.password is not None:
        raise ValueError("must not contain credentials; put the key in apiKey")
    if parts.query or parts.fragment:
        raise ValueError("must not contain a query or fragment")
    return value


def _api_key(value: str) -> str:
    return _printable(value.strip())


Name = Annotated[str, Field(max_length=128), AfterValidator(_display_name)]
ModelName = Annotated[str, Field(max_length=255), AfterValidator(_model_name)]
BaseUrl = Annotated[str, Field(max_length=512), AfterValidator(_base_url)]
ApiKey = Annotated[str, Field(max_length=2048), AfterValidator(_api_key)]
ContextLength = Annotated[int, Field(ge=MIN_CONTEXT_LENGTH, le=MAX_CONTEXT_LENGTH)]


class ModelCreate(CamelModel):
    name: Name
    provider: Provider = "openai"
    base_url: BaseUrl
    model_name: ModelName
    api_key: ApiKey | None = None
    context_length: ContextLength = DEFAULT_CONTEXT_LENGTH
    is_default: StrictBool = False


class ModelUpdate(CamelModel):
    """Only the fields sent change. apiKey: omitted keeps the key, "" or null clears it."""

    name: Name | None = None
    provider: Provider | None = None
    base_url: BaseUrl | None = None
    model_name: ModelName | None = None
    api_key: ApiKey | None = None
    context_length: ContextLength | None = None
    is_default: StrictBool | None = None

    @model_validator(mode="after")
    def _no_null_fields(self) -> ModelUpdate:
        for field in self.model_fields_set - {"api_key"}:
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
    is_default: bool
    is_builtin: bool
    has_api_key: bool
    api_key_last4: str | None
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
