"""Which hosts a model's base URL may name (AGENTCHAT_MODEL_HOSTS_ALLOW / _DENY): see
`protocol.host_policy`, which also judges the addresses a host resolves to when it is reached."""

from __future__ import annotations

from urllib.parse import urlsplit

from agentchat.core.settings import Settings
from agentchat.protocol.errors import Invalid
from agentchat.protocol.host_policy import HostPolicy


def host_policy(settings: Settings) -> HostPolicy:
    return HostPolicy(settings.model_hosts_allow, settings.model_hosts_deny)


def host_problem(base_url: str, settings: Settings) -> str | None:
    """Why `base_url` may not be used as a model endpoint, or None when it may."""
    try:
        host = urlsplit(base_url).hostname or ""
    except ValueError:
        return f"The model base URL {base_url!r} has no usable host."
    return host_policy(settings).name_problem(host)


def check_host(base_url: str, settings: Settings) -> None:
    """422 when the operator's host lists refuse `base_url`."""
    problem = host_problem(base_url, settings)
    if problem:
        raise Invalid(problem, code="model_host_refused")
