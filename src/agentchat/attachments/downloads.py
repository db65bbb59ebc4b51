"""How an attachment's bytes go out: always a download (`Content-Disposition: attachment`,
never shown as a page), with the type it was stored as (text as text/plain: an HTML or SVG
file is its source), `nosniff` and a sandboxing Content-Security-Policy, so that nothing a
person uploaded runs as a page of this site even when opened directly."""

from __future__ import annotations

from urllib.parse import quote

from agentchat.attachments.kinds import Kind

SANDBOX = "default-src 'none'; sandbox"


def media_type(kind: str, stored_type: str) -> str:
    return "text/plain; charset=utf-8" if kind == Kind.TEXT else stored_type


def headers(name: str, size: int | None = None) -> dict[str, str]:
    plain = name.encode("ascii", "ignore").decode().replace('"', "").replace("\\", "") or "file"
    out = {
        "Content-Disposition": f"attachment; filename=\"{plain}\"; filename*=UTF-8''"
        + quote(name, safe=""),
        "X-Content-Type-Options": "nosniff",
        "Content-Security-Policy": SANDBOX,
        "Cache-Control": "private, max-age=86400",
    }
    if size is not None:
        out["Content-Length"] = str(size)
    return out
