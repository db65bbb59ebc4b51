"""A small MCP server written with the `mcp` SDK (FastMCP), for the tests: the real protocol.

Run it as a script, so a stdio server needs nothing but the venv's Python:

    python tests/support/mcp_server.py stdio              # MCP over stdin/stdout
    python tests/support/mcp_server.py http PORT [TOKEN]  # streamable HTTP on 127.0.0.1:PORT
                                                          # (with TOKEN: `Authorization: Bearer
                                                          # TOKEN` is required)
    python tests/support/mcp_server.py hang               # starts, never answers
    python tests/support/mcp_server.py exit               # exits at once (code 3)

Its tools: `echo`, `add`, `env_names` (the environment variables it was started with),
`env_value`, `wait` (sleeps), `quit` (the process exits mid-call), `big` (N megabytes of text),
`picture` (a PNG image block) and `document` (an embedded PDF resource).
"""

from __future__ import annotations

import base64
import os
import sys
import time
import zlib

from mcp.server.fastmcp import FastMCP
from mcp.types import BlobResourceContents, EmbeddedResource, ImageContent

NAME = "agentchat-test-tools"
PDF_BYTES = b"%PDF-1.4\n% a test document\n1 0 obj << >> endobj\ntrailer << >>\n%%EOF\n"


def png(width: int = 4, height: int = 3, rgb: tuple[int, int, int] = (200, 30, 30)) -> bytes:
    """A small solid-colour PNG, made here (no image library)."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return len(data).to_bytes(4, "big") + body + zlib.crc32(body).to_bytes(4, "big")

    header = width.to_bytes(4, "big") + height.to_bytes(4, "big") + bytes([8, 2, 0, 0, 0])
    rows = b"".join(b"\x00" + bytes(rgb) * width for _ in range(height))
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(rows))
        + chunk(b"IEND", b"")
    )


def build(**settings: object) -> FastMCP:
    server = FastMCP(NAME, **settings)  # type: ignore[arg-type]

    @server.tool()
    def echo(text: str) -> str:
        """Say the text back."""
        return f"echo: {text}"

    @server.tool()
    def add(a: int, b: int) -> str:
        """Add two whole numbers."""
        return f"sum: {a + b}"

    @server.tool()
    def env_names() -> str:
        """The names of the environment variables this server was started with."""
        return " ".join(sorted(os.environ))

    @server.tool()
    def env_value(name: str) -> str:
        """One environment variable's value ('(unset)' when it is not set)."""
        return os.environ.get(name, "(unset)")

    @server.tool()
    def wait(seconds: float) -> str:
        """Sleep, then answer (a tool that hangs)."""
        time.sleep(seconds)
        return f"waited {seconds}"

    @server.tool()
    def quit() -> str:
        """The server process exits in the middle of the call."""
        os._exit(4)

    @server.tool()
    def big(megabytes: int) -> str:
        """That many megabytes of text."""
        line = "0123456789abcdef" * 4 + "\n"
        return line * (megabytes * 1024 * 1024 // len(line))

    @server.tool()
    def picture() -> ImageContent:
        """A small red PNG image."""
        data = base64.b64encode(png()).decode("ascii")
        return ImageContent(type="image", data=data, mimeType="image/png")

    @server.tool()
    def document() -> EmbeddedResource:
        """A small PDF document as an embedded resource."""
        blob = base64.b64encode(PDF_BYTES).decode("ascii")
        contents = BlobResourceContents(
            uri="file:///reports/report.pdf", blob=blob, mimeType="application/pdf"
        )
        return EmbeddedResource(type="resource", resource=contents)

    return server


def http_app(token: str | None = None):  # type: ignore[no-untyped-def]
    """The streamable HTTP app (its lifespan runs the session manager); with `token`, a
    request without `Authorization: Bearer <token>` gets 401."""
    from starlette.responses import JSONResponse

    app = build(stateless_http=True).streamable_http_app()
    if token is None:
        return app
    expected = f"Bearer {token}"

    async def guarded(scope, receive, send):  # type: ignore[no-untyped-def]
        if scope["type"] == "http":
            headers = dict(scope.get("headers") or [])
            if headers.get(b"authorization", b"").decode() != expected:
                await JSONResponse({"error": "unauthorized"}, 401)(scope, receive, send)
                return
        await app(scope, receive, send)

    return guarded  # the lifespan scope passes through to the app


def main(argv: list[str]) -> None:
    mode = argv[1] if len(argv) > 1 else "stdio"
    if mode == "stdio":
        build().run("stdio")
    elif mode == "http":
        import uvicorn

        token = argv[3] if len(argv) > 3 else None
        app = http_app(token)
        uvicorn.run(app, host="127.0.0.1", port=int(argv[2]), log_level="warning", lifespan="on")
    elif mode == "hang":
        while True:
            time.sleep(3600)
    elif mode == "exit":
        sys.exit(3)
    else:
        raise SystemExit(f"unknown mode {mode!r}")


if __name__ == "__main__":
    main(sys.argv)
