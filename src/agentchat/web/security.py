"""Who may reach the API: loopback-only binding without a token, the Host and Origin
allow-lists, and `install_security`, which puts every guard in front of the app.

Order, outermost first: security headers → Host/Origin → CORS (only when configured) →
sign-in (token or accounts) → administrators' changes to the audit log → run-start rate
limit → body guard → the app. All are pure ASGI and look only at the request's headers (the
body guard also reads bodies), so streams pass through unchanged."""

from __future__ import annotations

import ipaddress
from urllib.parse import urlsplit

from fastapi import FastAPI
from starlette.middleware.cors import CORSMiddleware
from starlette.types import ASGIApp, Receive, Scope, Send

from agentchat.accounts.admin_audit import AdminAuditMiddleware
from agentchat.accounts.gate import AccountsGate
from agentchat.accounts.sign_in_sessions import install_auth_state
from agentchat.chat.attachment_routes import UPLOAD_PATH
from agentchat.core.settings import Settings
from agentchat.web.asgi import header, send_error
from agentchat.web.auth import AuthMiddleware, configured_token
from agentchat.web.auth_routes import router as auth_router
from agentchat.web.body_guard import BodyGuardMiddleware
from agentchat.web.headers import SecurityHeadersMiddleware
from agentchat.web.log_redact import install_access_log_redactor
from agentchat.web.ratelimit import RateLimitMiddleware

MIN_PUBLIC_TOKEN_CHARS = 16
_WILDCARD_BINDS = frozenset({"", "0.0.0.0", "::", "*"})
_DEFAULT_PORTS = {"http": "80", "https": "443"}


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
    if host.strip() not in _WILDCARD_BINDS or names is None:
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


def _split(values: str) -> list[str]:
    return [v.strip() for v in values.split(",") if v.strip()]


def allowed_hostnames(settings: Settings) -> frozenset[str] | None:
    """The names the Host header may carry (None: any, from `*`)."""
    names = _split(settings.allowed_hosts)
    if "*" in names:
        return None
    if settings.host not in _WILDCARD_BINDS:
        names.append(settings.host)
    return frozenset(hostname(n) for n in names)


def origin_authority(origin: str) -> str | None:
    """`https://Example.com:443` → `example.com`; None for `null` or anything odd."""
    try:
        parts = urlsplit(origin.strip().lower())
        port = parts.port
    except ValueError:
        return None
    if parts.scheme not in _DEFAULT_PORTS or not parts.hostname or parts.path not in ("", "/"):
        return None
    host = f"[{parts.hostname}]" if ":" in parts.hostname else parts.hostname
    explicit = port is not None and str(port) != _DEFAULT_PORTS[parts.scheme]
    return f"{host}:{port}" if explicit else host


def host_authority(host: str, scheme: str) -> str:
    """The Host header without a default port, to compare with `origin_authority`."""
    host = host.strip().lower()
    default = f":{_DEFAULT_PORTS.get(scheme, '')}"
    return host[: -len(default)] if host.endswith(default) else host


class HostOriginMiddleware:
    """403 for a Host outside the allow-list (DNS rebinding), and for an /api request whose
    Origin is neither this server nor a configured CORS origin (a page on another site)."""

    def __init__(self, app: ASGIApp, settings: Settings) -> None:
        self.app = app
        self.hosts = allowed_hostnames(settings)
        self.origins = frozenset(o.rstrip("/").lower() for o in _split(settings.cors_origins))

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            problem = self.problem(scope)
            if problem:
                await send_error(send, 403, "forbidden", problem)
                return
        await self.app(scope, receive, send)

    def problem(self, scope: Scope) -> str | None:
        host = header(scope, b"host")
        if host is None or (self.hosts is not None and hostname(host) not in self.hosts):
            return "This server does not answer to that host name (see AGENTCHAT_ALLOWED_HOSTS)."
        path: str = scope["path"]
        origin = header(scope, b"origin")
        if origin is None or not (path == "/api" or path.startswith("/api/")):
            return None
        if origin.rstrip("/").lower() in self.origins:
            return None
        scheme = scope.get("scheme", "http")
        same_scheme = origin.strip().lower().startswith(f"{scheme}://")
        if same_scheme and origin_authority(origin) == host_authority(host, scheme):
            return None
        return "Requests from another site are not allowed (see AGENTCHAT_CORS_ORIGINS)."


def install_security(app: FastAPI, settings: Settings) -> None:
    """Add the auth routes and the guards (added innermost first: Starlette wraps the last
    one added around all the others)."""
    app.include_router(auth_router)
    app.add_middleware(BodyGuardMiddleware, max_bytes=settings.max_body_bytes, streamed=UPLOAD_PATH)
    app.add_middleware(RateLimitMiddleware, per_minute=settings.run_rate_per_minute)
    install_auth_state(app, settings)
    install_access_log_redactor()
    app.state.accounts = AccountsGate(getattr(app.state, "db", None))
    app.add_middleware(AdminAuditMiddleware, gate=app.state.accounts)  # inside sign-in
    app.add_middleware(
        AuthMiddleware,
        token=configured_token(settings),
        sessions=app.state.auth_sessions,
        throttle=app.state.auth_throttle,
        gate=app.state.accounts,
    )
    origins = _split(settings.cors_origins)
    if origins:
        app.add_middleware(
            CORSMiddleware,
            allow_origins=origins,
            allow_credentials=True,
            allow_methods=["GET", "POST", "PUT", "PATCH", "DELETE"],
            allow_headers=["Authorization", "Content-Type", "Last-Event-ID"],
        )
    app.add_middleware(HostOriginMiddleware, settings=settings)
    app.add_middleware(SecurityHeadersMiddleware)
