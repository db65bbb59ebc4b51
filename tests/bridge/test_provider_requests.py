"""What the real hermes-agent sends for each provider kind of the model registry, recorded on
the wire (tests/support/recording_model.py): Ollama options only to Ollama, no invented max
output, the per-model temperature / max output / reasoning effort, Anthropic's Messages API
with the API key as an API key, and the fallback model when the primary is down."""

from __future__ import annotations

import os
import subprocess
import sys
from typing import Any

import pytest

from agentchat.bridge_client.client import BridgeClient
from agentchat.local_stack import free_port
from tests.bridge.support import run_turn
from tests.support.recording_model import ANTHROPIC_TEXT, RecordingModel
from tests.support.servers import BridgeProcess

pytestmark = pytest.mark.timeout(120)

# Shaped like an Anthropic OAuth token ("sk-ant-" but not "sk-ant-api"): hermes would rewrite
# the system prompt for Claude Code if it took it for one.
OAUTH_SHAPED_KEY = "sk-ant-oat01-not-a-real-token-0123456789"


def _model(base_url: str, name: str, provider: str, **options: Any) -> dict[str, Any]:
    return {
        "baseUrl": base_url,
        "apiKey": "test-key-123456",
        "modelName": name,
        "provider": provider,
        "contextLength": 96000,
        **options,
    }


async def _ask(
    client: BridgeClient, recorder: RecordingModel, name: str, provider: str, **options: Any
) -> dict[str, Any]:
    url = recorder.openrouter_url if provider == "openrouter" else recorder.url
    model = _model(url, name, provider, **options)
    turn = await run_turn(client, url, "#say hi", session=name, model=model)
    assert turn.result is not None and turn.result.status == "SUCCESS", turn.result
    (request, *_) = recorder.posts(name)
    assert isinstance(request.body, dict)
    return request.body


async def test_an_openai_compatible_endpoint_gets_no_ollama_options_and_no_invented_max(
    client: BridgeClient, recorder: RecordingModel
) -> None:
    body = await _ask(client, recorder, "plain-compatible", "openai-compatible")
    assert "options" not in body, body
    assert "max_tokens" not in body and "max_completion_tokens" not in body, body
    assert "temperature" not in body and "reasoning_effort" not in body, body


@pytest.mark.parametrize("provider", ["openai-compatible", "ollama", "openai", "openrouter"])
async def test_no_max_output_is_sent_when_the_model_sets_none(
    client: BridgeClient, recorder: RecordingModel, provider: str
) -> None:
    """hermes' provider profiles would send their default (65,536 for Ollama and other
    "custom" endpoints); the provider's own default applies instead."""
    body = await _ask(client, recorder, f"no-max-{provider}", provider)
    assert "max_tokens" not in body and "max_completion_tokens" not in body, body
    assert "max_output_tokens" not in body, body


async def test_per_model_options_reach_an_openai_compatible_endpoint(
    client: BridgeClient, recorder: RecordingModel
) -> None:
    body = await _ask(
        client,
        recorder,
        "tuned-compatible",
        "openai-compatible",
        maxOutputTokens=1500,
        temperature=0.3,
        reasoningEffort="high",
    )
    assert (body["max_tokens"], body["temperature"], body["reasoning_effort"]) == (
        1500,
        0.3,
        "high",
    )
    assert "options" not in body


async def test_ollama_gets_num_ctx_from_the_context_length(
    client: BridgeClient, recorder: RecordingModel
) -> None:
    body = await _ask(client, recorder, "local-ollama", "ollama", maxOutputTokens=4096)
    assert body["options"] == {"num_ctx": 96000}
    assert body["max_tokens"] == 4096


async def test_openai_gets_its_max_output_and_no_ollama_options(
    client: BridgeClient, recorder: RecordingModel
) -> None:
    body = await _ask(client, recorder, "gpt-4.1-mini", "openai", maxOutputTokens=900)
    assert body.get("max_completion_tokens", body.get("max_tokens")) == 900, body
    assert "options" not in body


def test_hermes_may_not_install_packages_at_run_time(bridge: BridgeProcess) -> None:
    check = (
        "from tools.lazy_deps import _allow_lazy_installs; "
        "import anthropic; print(_allow_lazy_installs())"
    )
    env = {**os.environ, "HERMES_HOME": str(bridge.home)}
    done = subprocess.run(
        [sys.executable, "-c", check], env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip().splitlines()[-1] == "False"


async def test_openrouter_gets_the_reasoning_effort_its_way(
    client: BridgeClient, recorder: RecordingModel
) -> None:
    body = await _ask(client, recorder, "deepseek/deepseek-r1", "openrouter", reasoningEffort="low")
    assert body["reasoning"]["effort"] == "low", body
    assert "options" not in body


async def test_anthropic_uses_the_messages_api_with_the_key_as_an_api_key(
    client: BridgeClient, recorder: RecordingModel
) -> None:
    model = {
        **_model(recorder.root, "claude-sonnet-4-5", "anthropic", reasoningEffort="low"),
        "apiKey": OAUTH_SHAPED_KEY,
    }
    turn = await run_turn(client, recorder.root, "hello", session="anthropic", model=model)
    assert turn.result is not None and turn.result.status == "SUCCESS", turn.result
    assert turn.result.final_text == ANTHROPIC_TEXT
    (request, *_) = [r for r in recorder.posts("claude-sonnet-4-5") if r.path == "/v1/messages"]
    assert request.headers.get("x-api-key") == OAUTH_SHAPED_KEY
    assert "authorization" not in request.headers
    assert "claude-code" not in request.headers.get("user-agent", "")
    system = request.body["system"]
    text = system if isinstance(system, str) else " ".join(b.get("text", "") for b in system)
    assert "Hermes Agent" in text and "Claude Code" not in text
    assert not any(t["name"].startswith("mcp_") for t in request.body.get("tools", []))
    assert request.body["thinking"] == {"type": "enabled", "budget_tokens": 4000}
    assert turn.result.usage.prompt_tokens >= 1234


async def test_a_fallback_model_answers_when_the_primary_is_down(
    client: BridgeClient, recorder: RecordingModel
) -> None:
    dead = f"http://127.0.0.1:{free_port()}/v1"
    model = {
        **_model(dead, "primary-down", "openai-compatible"),
        "fallback": _model(recorder.url, "the-fallback", "openai-compatible"),
    }
    turn = await run_turn(client, dead, "#say rescued", session="fallback", model=model)
    assert turn.result is not None and turn.result.status == "SUCCESS", turn.result
    assert turn.result.final_text == "rescued"
    assert recorder.posts("the-fallback")
