"""Who may reach the API: the Host and Origin allow-lists, and `install_security`, which puts
every guard in front of the app (binding beyond loopback: web/bind_rules.py).

Order, outermost first: security headers → Host/Origin → CORS (only when configured) →
sign-in (token or accounts) → administrators' changes to the audit log → run-start rate
limit → body guard → the app. All are pure ASGI and look only at the request's headers (the
body guard also reads bodies), so streams pass through unchanged."""

from __future__ import annotations

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
from agentchat.web.auth import AuthMiddleware
from agentchat.web.auth_routes import router as auth_router
from agentchat.web.bind_rules import allowed_hostnames, configured_token, hostname, split_values
from agentchat.web.body_guard import BodyGuardMiddleware
from agentchat.web.headers import SecurityHeadersMiddleware
from agentchat.web.log_redact import install_access_log_redactor
from agentchat.web.ratelimit import RateLimitMiddleware

_DEFAULT_PORTS = {"http": "80", "https": "443"}


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
        self.origins = frozenset(o.rstrip("/").lower() for o in split_values(settings.cors_origins))

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
    origins = split_values(settings.cors_origins)
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
