"""A resolved model as the Hermes Bridge's `model` object (docs/contracts.md)."""

from __future__ import annotations

from typing import Any

from agentchat.models.service import ResolvedModel


def bridge_model(model: ResolvedModel) -> dict[str, Any]:
    """`{baseUrl, apiKey, modelName, provider, contextLength, maxOutputTokens?, temperature?,
    reasoningEffort?, fallback?}`: unset options are left out, so hermes keeps its defaults."""
    wire: dict[str, Any] = {
        "baseUrl": model.base_url,
        "apiKey": model.api_key,
        "modelName": model.model_name,
        "provider": model.provider,
        "contextLength": model.context_length,
    }
    options = {
        "maxOutputTokens": model.max_output_tokens,
        "temperature": model.temperature,
        "reasoningEffort": model.reasoning_effort,
    }
    wire.update({key: value for key, value in options.items() if value is not None})
    if model.fallback is not None:
        wire["fallback"] = bridge_model(model.fallback)
    return wire


def wire_secrets(wire: dict[str, Any]) -> tuple[str, ...]:
    """Every API key in a bridge `model` object (its fallback's too)."""
    keys = [str(wire.get("apiKey") or "")]
    fallback = wire.get("fallback")
    if isinstance(fallback, dict):
        keys.extend(wire_secrets(fallback))
    return tuple(key for key in keys if key)
