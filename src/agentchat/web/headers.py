"""Security headers on every response; the Content-Security-Policy on HTML pages."""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send

CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data:; connect-src 'self'; font-src 'self' data:; object-src 'none'; "
    "base-uri 'none'; frame-ancestors 'none'; form-action 'self'"
)
_ALWAYS = (
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"x-frame-options", b"DENY"),
)
_CSP = (b"content-security-policy", CONTENT_SECURITY_POLICY.encode())


def with_security_headers(headers: list[tuple[bytes, bytes]]) -> list[tuple[bytes, bytes]]:
    """`headers` plus the security headers it lacks (one that is already set is kept)."""
    present = {bytes(name).lower(): bytes(value) for name, value in headers}
    extra = [pair for pair in _ALWAYS if pair[0] not in present]
    is_html = present.get(b"content-type", b"").lower().startswith(b"text/html")
    if is_html and _CSP[0] not in present:
        extra.append(_CSP)
    return headers + extra if extra else headers


class SecurityHeadersMiddleware:
    """Touches only the response's start message, so streamed bodies pass straight through."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                message = {**message, "headers": with_security_headers(headers)}
            await send(message)

        await self.app(scope, receive, send_with_headers)
