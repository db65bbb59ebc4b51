"""The bridge process: configure HERMES_HOME, import hermes, serve the routes."""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from fastapi import FastAPI

from agentchat import __version__
from agentchat.bridge.hermes_home import install_bridge_log, prepare_home
from agentchat.bridge.policy import BridgeMisconfigured, check_secret
from agentchat.bridge.router import public, router
from agentchat.bridge.service import BridgeService
from agentchat.bridge.settings import BridgeSettings
from agentchat.core.error_handlers import install_error_handlers

log = logging.getLogger(__name__)


def create_app(settings: BridgeSettings) -> FastAPI:
    """The bridge app; HERMES_HOME is prepared here, hermes imported at start-up."""
    check_secret(settings)
    home = prepare_home(settings)
    install_bridge_log(home)
    service = BridgeService(settings)

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        await asyncio.get_running_loop().run_in_executor(None, service.warm)
        log.info("bridge ready (home %s)", home)
        yield
        service.shutdown()

    app = FastAPI(title="Hermes Bridge", version=__version__, lifespan=lifespan)
    app.state.bridge = service
    install_error_handlers(app)
    app.include_router(public)
    app.include_router(router)
    return app


def main(
    host: str, port: int, hermes_home: Path | None, skills_dir: Path | None = None, **extra: Any
) -> None:
    """Entry point of `agentchat bridge`."""
    import uvicorn

    overrides: dict[str, Any] = {k: v for k, v in extra.items() if v is not None}
    if hermes_home is not None:
        overrides["hermes_home"] = hermes_home
    if skills_dir is not None:
        overrides["skills_dir"] = skills_dir
    settings = BridgeSettings(**overrides)
    os.environ.pop("AGENTCHAT_BRIDGE_SECRET", None)  # read once; the agent's tools never see it
    try:
        app = create_app(settings)
    except BridgeMisconfigured as exc:
        raise SystemExit(f"agentchat bridge: {exc}") from exc
    uvicorn.run(app, host=host, port=port, log_level="warning")
