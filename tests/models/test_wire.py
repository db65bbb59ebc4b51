"""The bridge's `model` object built from a resolved model (docs/contracts.md)."""

from __future__ import annotations

from agentchat.models.service import ResolvedModel
from agentchat.models.wire import bridge_model, model_secrets


def _model(**options: object) -> ResolvedModel:
    base = {
        "id": 1,
        "name": "m",
        "base_url": "http://127.0.0.1:8000/v1",
        "api_key": "primary-key-123456",
        "model_name": "qwen",
        "provider": "openai-compatible",
        "context_length": 96000,
    }
    return ResolvedModel(**{**base, **options})  # type: ignore[arg-type]


def test_unset_options_are_left_out_so_hermes_keeps_its_defaults() -> None:
    wire = bridge_model(_model()).model_dump(by_alias=True, exclude_unset=True)
    assert set(wire) == {"baseUrl", "apiKey", "modelName", "provider", "contextLength"}


def test_options_and_the_fallback_are_sent_and_both_keys_are_secrets() -> None:
    fallback = _model(id=2, api_key="fallback-key-654321", provider="ollama")
    model = bridge_model(
        _model(max_output_tokens=100, temperature=0.0, reasoning_effort="none", fallback=fallback)
    )
    wire = model.model_dump(by_alias=True, exclude_unset=True)
    assert (wire["maxOutputTokens"], wire["temperature"], wire["reasoningEffort"]) == (
        100,
        0.0,
        "none",
    )
    assert wire["fallback"]["provider"] == "ollama"
    assert model_secrets(model) == ("primary-key-123456", "fallback-key-654321")
