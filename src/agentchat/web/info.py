"""GET /api/info: what this server runs with (version, agent toolsets, access, bridges)."""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

from fastapi import APIRouter, Request

from agentchat.core.deps import SettingsDep
from agentchat.core.settings import Settings
from agentchat.protocol.camel import CamelModel

router = APIRouter(tags=["info"])


class ServerInfo(CamelModel):
    version: str
    toolsets: list[str]
    auth_required: bool
    bridge_count: int


def app_version() -> str:
    try:
        return version("agentchat")
    except PackageNotFoundError:
        return "0.0.0"


def bridge_count(request: Request, settings: Settings) -> int:
    """The bridges the run service routes to; before start-up, the configured ones."""
    runs = getattr(request.app.state, "runs", None)
    if runs is not None:
        return len(runs.bridges.urls)
    return len(settings.bridge_urls) or int(settings.start_bridge)


@router.get("/api/info", operation_id="serverInfo")
def server_info(request: Request, settings: SettingsDep) -> ServerInfo:
    return ServerInfo(
        version=app_version(),
        toolsets=settings.toolsets,
        auth_required=settings.auth_token is not None,
        bridge_count=bridge_count(request, settings),
    )
