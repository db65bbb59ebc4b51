"""Where `serve` may listen: beyond loopback only with a token, accounts or --insecure-public,
and the host names requests may carry. Light on purpose (ipaddress and the settings): `serve`
checks these before it loads the app, so a refusal costs no import of it."""

from __future__ import annotations

import ipaddress

from agentchat.core.settings import Settings

MIN_PUBLIC_TOKEN_CHARS = 16
WILDCARD_BINDS = frozenset({"", "0.0.0.0", "::", "*"})


class UnsafeBind(Exception):
    """Serving beyond loopback without a token and without --insecure-public."""


def is_loopback(host: str) -> bool:
    name = host.strip().strip("[]").rstrip(".").lower()
    if name == "localhost":
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def check_bind(host: str, settings: Settings, accounts: bool = False) -> None:
    """Raise UnsafeBind when `host` would expose an API nobody has to sign in to. With
    `accounts` (the database holds one) every request signs in as a person: any bind will do
    (the token, if any, no longer signs anyone in, so its length does not matter)."""
    token = configured_token(settings) or ""
    if is_loopback(host) or settings.insecure_public or accounts:
        return
    if token and len(token) < MIN_PUBLIC_TOKEN_CHARS:
        raise UnsafeBind(
            f"Refusing to serve on {host!r} with an AGENTCHAT_AUTH_TOKEN shorter than "
            f"{MIN_PUBLIC_TOKEN_CHARS} characters: it can be guessed. Use a long random one "
            "(e.g. `python -c 'import secrets; print(secrets.token_urlsafe(32))'`)."
        )
    if token:
        return
    raise UnsafeBind(
        f"Refusing to serve on {host!r}: without AGENTCHAT_AUTH_TOKEN anyone who can reach "
        "that address could use the agent. Set AGENTCHAT_AUTH_TOKEN, add accounts (`agentchat "
        "users add NAME --admin`), bind 127.0.0.1, or pass --insecure-public "
        "(AGENTCHAT_INSECURE_PUBLIC=1) if something else guards the server."
    )


def accounts_bind_note(host: str, settings: Settings, accounts: bool) -> str | None:
    """Accounts on a bind beyond loopback: passwords and sign-in cookies cross the network."""
    if not accounts or is_loopback(host) or settings.insecure_public:
        return None
    return (
        f"Serving accounts on {host!r}: people sign in with passwords, so serve it over HTTPS "
        "(a TLS proxy in front, its address in AGENTCHAT_FORWARDED_ALLOW_IPS: the sign-in "
        "cookie is then marked Secure); over plain HTTP anyone on the network path can read "
        "passwords and sessions."
    )


def bind_note(host: str, settings: Settings) -> str | None:
    """A hint for an all-interfaces bind: requests must still name an allowed host."""
    names = allowed_hostnames(settings)
    if host.strip() not in WILDCARD_BINDS or names is None:
        return None
    return (
        f"Serving on all interfaces, but only for the host names {', '.join(sorted(names))}: "
        "add the names people use to AGENTCHAT_ALLOWED_HOSTS (others get 403)."
    )


def hostname(value: str) -> str:
    """`example.com:8000` → `example.com`; `[::1]:8000` → `::1`; lower case."""
    value = value.strip().lower()
    if value.startswith("["):
        return value[1:].partition("]")[0]
    name, sep, port = value.rpartition(":")
    bare = name if sep and ":" not in name and port.isdigit() else value
    return bare.rstrip(".")


def split_values(values: str) -> list[str]:
    return [v.strip() for v in values.split(",") if v.strip()]


def allowed_hostnames(settings: Settings) -> frozenset[str] | None:
    """The names the Host header may carry (None: any, from `*`)."""
    names = split_values(settings.allowed_hosts)
    if "*" in names:
        return None
    if settings.host not in WILDCARD_BINDS:
        names.append(settings.host)
    return frozenset(hostname(n) for n in names)


def configured_token(settings: Settings) -> str | None:
    token = settings.auth_token.get_secret_value().strip() if settings.auth_token else ""
    return token or None
