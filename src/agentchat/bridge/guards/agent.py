"""Per-agent and per-turn hardening of hermes-agent. Imported only after hermes-agent.

- no request dumps: hermes writes the whole conversation to HERMES_HOME/sessions on every
  failed model call and never removes it;
- dangerous commands are never silently auto-approved (embedded hermes approves them when
  nobody is there to ask): `approval` asks the person in the page; a denial says who denied.
"""

from __future__ import annotations

import json
import logging
import re
from typing import Any

from agentchat.bridge.guards import hosts
from agentchat.bridge.guards.tool_wrap import wrap_tools

log = logging.getLogger(__name__)

_USER_DENIED = re.compile(r"BLOCKED: User denied this [^.(]*")
_BY_THE_BRIDGE = (
    "BLOCKED: the person denied this dangerous command in the chat page (or did not answer "
    "in time) "
)


def harden_agent(agent: Any) -> None:
    """Switch off what an embedded agent must not do: request dumps, and error summaries
    that quote an endpoint's HTML page or raw body."""
    agent._dump_api_request_debug = lambda *_a, **_k: None
    agent._summarize_api_error = summarize_api_error


def summarize_api_error(error: Exception) -> str:
    """The status and the provider's own JSON error message (300 characters), nothing else:
    an endpoint that is not a model API (an internal service) is not quoted."""
    refused = hosts.refusal_in(error)
    if refused:
        return refused
    status = getattr(error, "status_code", None)
    message = _json_message(getattr(error, "body", None)) or _json_message(_response_json(error))
    wait = _retry_after(error)
    if status and message:
        return f"HTTP {status}: {' '.join(message.split())[:300]}{wait}"
    if status:
        return f"HTTP {status} from the model endpoint (its answer is not a JSON error){wait}"
    if "timeout" in type(error).__name__.lower():
        return f"the model endpoint timed out ({type(error).__name__})"
    if isinstance(error, json.JSONDecodeError):  # it answered, with a garbled stream
        return f"the model endpoint sent data that is not valid JSON ({type(error).__name__})"
    return f"the model endpoint could not be reached ({type(error).__name__})"


def _retry_after(error: Exception) -> str:
    """The " (the provider asks to retry after N s)" of a Retry-After in seconds, else ""."""
    headers = getattr(getattr(error, "response", None), "headers", None)
    value = headers.get("retry-after") if headers is not None else None
    try:
        seconds = round(float(value)) if value else None
    except (TypeError, ValueError):  # an HTTP date: not worth a clock of its own
        seconds = None
    return f" (the provider asks to retry after {seconds} s)" if seconds else ""


def _json_message(body: Any) -> str:
    if not isinstance(body, dict):
        return ""
    inner = body.get("error")
    if isinstance(inner, dict) and inner.get("message"):
        return str(inner["message"])
    for key in ("message", "error", "detail"):
        if isinstance(body.get(key), str) and body[key]:
            return str(body[key])
    return ""


def _response_json(error: Exception) -> Any:
    response = getattr(error, "response", None)
    try:
        return response.json() if response is not None else None
    except Exception:
        return None


def explain_denials() -> None:
    """Make hermes' "User denied" result say who denied it and why (wraps the handlers)."""
    wrap_tools(("terminal", "execute_code"), _explaining, "_agentchat_explained")


def _explaining(original: Any) -> Any:
    def handler(args: dict[str, Any], **kw: Any) -> Any:
        result = original(args, **kw)
        if isinstance(result, str):
            return _USER_DENIED.sub(_BY_THE_BRIDGE, result)
        return result

    return handler
