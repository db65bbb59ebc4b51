"""POST /api/models/{id}/test: one tiny request to the model's endpoint, answered in plain words."""

from __future__ import annotations

import json
import re
import time
from typing import Any

import httpx

from agentchat.models.pinned import HostRefused, PinnedTransport
from agentchat.models.schemas import ModelTestResult
from agentchat.models.service import ResolvedModel
from agentchat.protocol.host_policy import HostPolicy

PROBE_TIMEOUT_S = 10.0
ANTHROPIC_VERSION = "2023-06-01"
_MAX_ERROR_CHARS = 300
NO_MODEL_ANSWER = (
    "No answer from a model API at this base URL: is the server running, and the URL right?"
)
# Said only of a URL that does not end in /v1 already (Anthropic's has no /v1: we add it).
NOT_V1_HINT = " OpenAI-compatible servers usually end in /v1."
_PROMPT = [{"role": "user", "content": "ping"}]


async def probe(
    target: ResolvedModel, policy: HostPolicy | None = None, timeout: float = PROBE_TIMEOUT_S
) -> ModelTestResult:
    """Send one request of at most one output token; never raises for the endpoint's failures.

    The answer tells only what a model API would: the status and the provider's own JSON
    error message. Raw bodies, HTML, and how a connection failed (refused, reset, timed out)
    are never echoed, so the test cannot be used to scan other services. With host lists
    (`policy`), the request connects only to an address they allow (models/pinned.py), and
    not through an HTTP proxy."""
    started = time.perf_counter()
    pinned = policy is not None and not policy.empty
    transport = PinnedTransport(policy) if pinned and policy is not None else None
    try:
        async with httpx.AsyncClient(
            timeout=timeout, follow_redirects=False, transport=transport
        ) as client:
            response = await _send(client, target)
        error = _check_response(response)
    except HostRefused as exc:
        error = str(exc)
    except (httpx.HTTPError, httpx.InvalidURL, ValueError):  # ValueError: a host idna refuses
        error = NO_MODEL_ANSWER
    latency_ms = round((time.perf_counter() - started) * 1000)
    code = _code(error, target)
    if code == "no_answer_without_v1":
        error = NO_MODEL_ANSWER + NOT_V1_HINT
    return ModelTestResult(
        ok=error is None, latency_ms=latency_ms, error=_scrub(error, target), code=code
    )


def _code(error: str | None, target: ResolvedModel) -> str | None:
    """What went wrong, for the page's own words: no model API answered (and whether the URL
    lacks the /v1 most servers have), the provider's own error, or a host the lists refuse."""
    if error is None:
        return None
    if error != NO_MODEL_ANSWER:
        return "provider_error" if error.startswith("HTTP ") else "host_refused"
    lacks_v1 = target.provider != "anthropic" and not target.base_url.rstrip("/").endswith("/v1")
    return "no_answer_without_v1" if lacks_v1 else "no_answer"


async def _send(client: httpx.AsyncClient, target: ResolvedModel) -> httpx.Response:
    if target.provider == "anthropic":
        return await client.post(
            f"{target.base_url}/v1/messages",
            headers={"x-api-key": target.api_key, "anthropic-version": ANTHROPIC_VERSION},
            json={"model": target.model_name, "max_tokens": 1, "messages": _PROMPT},
        )
    url = f"{target.base_url}/chat/completions"
    headers = {"Authorization": f"Bearer {target.api_key}"} if target.api_key else {}
    body: dict[str, Any] = {"model": target.model_name, "max_tokens": 1, "messages": _PROMPT}
    response = await client.post(url, headers=headers, json=body)
    if response.status_code == 400 and "max_completion_tokens" in response.text:
        # Newer OpenAI reasoning models refuse max_tokens and name its replacement.
        body["max_completion_tokens"] = body.pop("max_tokens")
        response = await client.post(url, headers=headers, json=body)
    return response


def _check_response(response: httpx.Response) -> str | None:
    message = provider_message(response)
    if not response.is_success:
        return f"HTTP {response.status_code}: {message}" if message else NO_MODEL_ANSWER
    try:
        body = response.json()
    except ValueError:
        body = None
    return None if isinstance(body, dict) else NO_MODEL_ANSWER


def provider_message(response: httpx.Response) -> str:
    """The provider's own error message from a JSON body ("" for anything else)."""
    if "json" not in response.headers.get("content-type", ""):
        return ""
    try:
        body = response.json()
    except ValueError:
        return ""
    if not isinstance(body, dict):
        return ""
    return _plain(_find_message(body)) if _has_message(body) else ""


def _has_message(body: dict[str, Any]) -> bool:
    return any(body.get(key) for key in ("error", "message", "detail", "msg"))


def _find_message(body: Any) -> str:
    """The provider's own words: OpenAI `{error: {message}}`, Anthropic `{error: {message}}`,
    FastAPI-style `{detail}`, Ollama `{error: "..."}`."""
    if isinstance(body, dict):
        for key in ("error", "message", "detail", "msg"):
            if body.get(key):
                return _find_message(body[key])
    if isinstance(body, list) and body:
        return _find_message(body[0])
    return body if isinstance(body, str) else json.dumps(body)


def _plain(text: str) -> str:
    if re.search(r"<[A-Za-z!/]", text):
        return ""  # an HTML page is not a provider's message
    return re.sub(r"\s+", " ", text).strip()


def _scrub(error: str | None, target: ResolvedModel) -> str | None:
    """Mask the key (providers sometimes echo it back), then shorten long messages."""
    if error is None:
        return None
    if target.api_key:
        error = error.replace(target.api_key, "***")
    return error[:_MAX_ERROR_CHARS] + ("…" if len(error) > _MAX_ERROR_CHARS else "")
