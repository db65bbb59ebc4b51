"""Which hosts a model's base URL may name (AGENTCHAT_MODEL_HOSTS_ALLOW / _DENY).

Entries are host names (`api.openai.com`), suffixes (`.example.com`), IP addresses or
networks (`10.0.0.0/8`). Deny wins; an empty allow-list allows every host not denied.
"""

from __future__ import annotations

import ipaddress
from urllib.parse import urlsplit

from agentchat.core.errors import Invalid
from agentchat.core.settings import Settings


def _entries(value: str) -> list[str]:
    return [v.strip().lower() for v in value.split(",") if v.strip()]


def _matches(host: str, entry: str) -> bool:
    if entry.startswith("."):
        return host.endswith(entry) or host == entry[1:]
    if "/" in entry:
        try:
            return ipaddress.ip_address(host) in ipaddress.ip_network(entry, strict=False)
        except ValueError:
            return False
    return host == entry.strip("[]")


def host_problem(base_url: str, settings: Settings) -> str | None:
    """Why `base_url` may not be used as a model endpoint, or None when it may."""
    host = (urlsplit(base_url).hostname or "").lower().rstrip(".")
    if any(_matches(host, e) for e in _entries(settings.model_hosts_deny)):
        return f"The model host {host!r} is denied by AGENTCHAT_MODEL_HOSTS_DENY."
    allow = _entries(settings.model_hosts_allow)
    if allow and not any(_matches(host, e) for e in allow):
        return f"The model host {host!r} is not in AGENTCHAT_MODEL_HOSTS_ALLOW."
    return None


def check_host(base_url: str, settings: Settings) -> None:
    """422 when the operator's host lists refuse `base_url`."""
    problem = host_problem(base_url, settings)
    if problem:
        raise Invalid(problem, code="model_host_refused")
