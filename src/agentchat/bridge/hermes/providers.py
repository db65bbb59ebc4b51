"""Each provider kind of the model registry configured the way hermes-agent expects it.

| kind              | hermes provider | notes                                                     |
|-------------------|-----------------|-----------------------------------------------------------|
| openai-compatible | custom          | no Ollama options                                         |
| ollama            | custom          | options.num_ctx = the context length                      |
| openai            | openai-api      | api.openai.com goes over the Responses API (hermes' rule) |
| openrouter        | openrouter      | reasoning effort as OpenRouter's `reasoning`              |
| anthropic         | anthropic       | Messages API; effort = extended thinking; API key only    |

Max output tokens: what the model config sets, else none at all, so the provider's own default
applies (hermes' provider profiles would fill in theirs: 65,536 for "custom"). Anthropic's
Messages API requires `max_tokens`: there hermes' per-model output limit stays.

Imported by the bridge only; hermes objects are touched after HERMES_HOME is set.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

HERMES_PROVIDERS = {
    "openai-compatible": "custom",
    "ollama": "custom",
    "openai": "openai-api",
    "openrouter": "openrouter",
    "anthropic": "anthropic",
}


@dataclass(frozen=True)
class ModelSpec:
    """A model as one turn asks for it (the bridge wire's `model`, normalised)."""

    base_url: str
    api_key: str = field(repr=False)
    model_name: str
    provider: str | None
    context_length: int
    max_output_tokens: int | None = None
    temperature: float | None = None
    reasoning_effort: str | None = None
    fallback: ModelSpec | None = None


def kind_of(provider: str | None) -> str:
    return provider if provider in HERMES_PROVIDERS else "openai-compatible"


def hermes_provider(provider: str | None) -> str:
    return HERMES_PROVIDERS[kind_of(provider)]


def fallback_entry(fallback: ModelSpec | None) -> dict[str, Any] | None:
    """hermes' `fallback_model`: tried when the primary fails after its retries."""
    if fallback is None:
        return None
    return {
        "provider": hermes_provider(fallback.provider),
        "model": fallback.model_name,
        "base_url": fallback.base_url,
        "api_key": fallback.api_key or "no-key",
    }


def reasoning_config(effort: str | None) -> dict[str, Any] | None:
    if effort is None:
        return None
    if effort == "none":
        return {"enabled": False}
    return {"enabled": True, "effort": effort}


def apply_options(agent: Any, spec: ModelSpec) -> None:
    """Set the per-model request options on a (pooled) agent before a turn."""
    kind = kind_of(spec.provider)
    agent.max_tokens = spec.max_output_tokens
    agent.reasoning_config = reasoning_config(spec.reasoning_effort)
    overrides: dict[str, Any] = {}
    if spec.temperature is not None and kind != "anthropic":
        overrides["temperature"] = spec.temperature
    agent.request_overrides = overrides
    # config.yaml holds ollama_num_ctx: 0, which skips hermes' Ollama probes and sends nothing.
    agent._ollama_num_ctx = spec.context_length if kind == "ollama" else None


def configure_new_agent(agent: Any, spec: ModelSpec) -> None:
    """One-time fixes on a freshly built agent (see the module table)."""
    if kind_of(spec.provider) == "anthropic":
        _no_credential_hunt(agent)
    else:
        _omit_default_max_tokens(agent)


def _omit_default_max_tokens(agent: Any) -> None:
    """hermes asks `_max_tokens_param(value)` for the request's max output, with its provider
    profile's default as `value` when the model sets none: that default is left out. A value
    of hermes' own making (a shortened retry after a context overflow) still goes."""
    original = agent._max_tokens_param

    def max_tokens_param(value: int) -> dict[str, Any]:
        if agent.max_tokens is None and value == _profile_default(agent):
            return {}
        result: dict[str, Any] = original(value)
        return result

    agent._max_tokens_param = max_tokens_param


def _profile_default(agent: Any) -> int | None:
    from providers import get_provider_profile

    profile = get_provider_profile(agent.provider)
    value = profile.get_max_tokens(agent.model) if profile is not None else None
    return int(value) if value else None


def api_keys_only() -> None:
    """hermes takes keys shaped like Anthropic OAuth tokens ("sk-ant-…" but not "sk-ant-api…")
    for Claude Code logins: it rewrites the system prompt ("Hermes Agent" → "Claude Code"),
    renames the tools, sends Claude Code's headers, also for the summariser and after a
    fallback. A key configured here is an API key (x-api-key, prompt untouched), so the bridge
    process answers "not OAuth" for every key. Idempotent; call before building an agent."""
    from agent import anthropic_adapter

    anthropic_adapter._is_oauth_token = _never_oauth


def _never_oauth(_key: object) -> bool:
    return False


def _no_credential_hunt(agent: Any) -> None:
    """On a 401 hermes looks for other Anthropic credentials on the host (~/.claude,
    ANTHROPIC_TOKEN) and switches to them; the bridge uses only the configured key."""
    agent._try_refresh_anthropic_client_credentials = lambda *a, **k: False
