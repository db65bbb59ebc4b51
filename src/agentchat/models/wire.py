"""A resolved model as the Hermes Bridge's `model` object (`protocol.bridge_api.ModelConfig`)."""

from __future__ import annotations

from agentchat.models.service import ResolvedModel
from agentchat.protocol.bridge_api import ModelConfig


def bridge_model(model: ResolvedModel) -> ModelConfig:
    """`{baseUrl, apiKey, modelName, provider, contextLength, maxOutputTokens?, temperature?,
    reasoningEffort?, fallback?}`: unset options are left unset, so hermes keeps its defaults."""
    options = {
        "max_output_tokens": model.max_output_tokens,
        "temperature": model.temperature,
        "reasoning_effort": model.reasoning_effort,
    }
    return ModelConfig(
        base_url=model.base_url,
        api_key=model.api_key,
        model_name=model.model_name,
        provider=model.provider,
        context_length=model.context_length,
        **({"vision": True} if model.sees_images else {}),
        **{key: value for key, value in options.items() if value is not None},
        **({"fallback": bridge_model(model.fallback)} if model.fallback is not None else {}),
    )


def model_secrets(model: ModelConfig) -> tuple[str, ...]:
    """Every API key in a bridge `model` object (its fallback's too)."""
    keys = [model.api_key, *(model_secrets(model.fallback) if model.fallback else ())]
    return tuple(key for key in keys if key)
