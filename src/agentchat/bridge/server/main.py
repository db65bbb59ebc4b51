"""The bridge process: take its hermes home, configure HERMES_HOME, import hermes, serve the
routes; exit when no API was heard from for `orphan_s` (a bridge `serve` started)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import socket
import stat
import sys
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from fastapi import FastAPI

from agentchat import __version__
from agentchat.bridge.guards import own_processes
from agentchat.bridge.guards.request_policy import BridgeMisconfigured, check_secret
from agentchat.bridge.hermes.home import install_bridge_log, prepare_home
from agentchat.bridge.server import allocator
from agentchat.bridge.server.home_lock import HomeTaken, hold_home
from agentchat.bridge.server.orphan import Liveness, exit_when_orphaned
from agentchat.bridge.server.peer_guard import AgentRefusingProtocol
from agentchat.bridge.server.routes import public, router
from agentchat.bridge.server.service import BridgeService
from agentchat.bridge.settings import BridgeSettings
from agentchat.gc_freeze import freeze_startup_heap, thaw_heap
from agentchat.protocol.error_responses import install_error_handlers

log = logging.getLogger(__name__)
HOME_TAKEN_EXIT = 3


def create_app(settings: BridgeSettings, stop: Callable[[], None] | None = None) -> FastAPI:
    """The bridge app; the hermes home is locked and prepared here, hermes imported at
    start-up. `stop` ends the server (used when the bridge is orphaned)."""
    check_secret(settings)
    hold_home(settings.home)  # before config.yaml is written: the home may be another's
    home = prepare_home(settings)
    install_bridge_log(home)
    service = BridgeService(settings)
    liveness = Liveness()

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        await asyncio.get_running_loop().run_in_executor(None, service.warm)
        freeze_startup_heap()
        log.info("bridge ready (home %s, pid %d)", home, os.getpid())
        liveness.touch()
        watch = None
        if settings.orphan_s > 0 and stop is not None:
            orphaned = exit_when_orphaned(liveness, service.runs, settings.orphan_s, stop)
            watch = asyncio.create_task(orphaned, name="orphan-watch")
        yield
        thaw_heap()
        if watch is not None:
            watch.cancel()
        service.shutdown()

    # No public documents: the OpenAPI document is a route that needs the secret (router.py).
    app = FastAPI(
        title="Hermes Bridge",
        version=__version__,
        lifespan=lifespan,
        openapi_url=None,
        docs_url=None,
        redoc_url=None,
    )
    app.state.bridge = service
    app.state.liveness = liveness
    install_error_handlers(app)
    app.include_router(public)
    app.include_router(router)
    return app


def main(
    host: str,
    port: int,
    hermes_home: Path | None,
    skills_dir: Path | None = None,
    uds: Path | None = None,
    **extra: Any,
) -> None:
    """Entry point of `agentchat bridge`: on host:port, or on the Unix socket `uds`."""
    import uvicorn

    allocator.limit_arenas()  # before any thread allocates (allocator.py)
    own_processes.keep_the_agents_programs()
    own_processes.no_ptrace_for_programs()
    overrides: dict[str, Any] = {k: v for k, v in extra.items() if v is not None}
    if hermes_home is not None:
        overrides["hermes_home"] = hermes_home
    if skills_dir is not None:
        overrides["skills_dir"] = skills_dir
    settings = BridgeSettings(**overrides)
    os.environ.pop("AGENTCHAT_BRIDGE_SECRET", None)  # read once; the agent's tools never see it
    stop = _ServerStop()
    try:
        app = create_app(settings, stop=stop)
    except BridgeMisconfigured as exc:
        raise SystemExit(f"agentchat bridge: {exc}") from exc
    except HomeTaken as exc:
        print(f"agentchat bridge: {exc}", file=sys.stderr)
        raise SystemExit(HOME_TAKEN_EXIT) from exc
    config = uvicorn.Config(
        app, host=host, port=port, log_level="warning", http=AgentRefusingProtocol
    )
    server = uvicorn.Server(config)
    stop.server = server
    listening = [unix_listener(uds)] if uds is not None else None  # after the home is ours
    try:
        server.run(sockets=listening)
    finally:
        for sock in listening or []:
            sock.close()
    if not server.started:
        raise SystemExit(1)


def unix_listener(path: Path) -> socket.socket:
    """A socket bound at `path`, which only this user may connect to (0600): uvicorn's own
    would be 0666. A socket left there by a bridge of this hermes home (whose lock we now
    hold) is removed first; anything else at `path` is not."""
    with contextlib.suppress(FileNotFoundError):
        if stat.S_ISSOCK(os.lstat(path).st_mode):
            path.unlink()
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    umask = os.umask(0o177)
    try:
        sock.bind(str(path))
    except OSError:
        sock.close()
        raise
    finally:
        os.umask(umask)
    os.chmod(path, 0o600)
    return sock


class _ServerStop:
    """Ends the uvicorn server (which is built after the app that needs this)."""

    server: Any = None

    def __call__(self) -> None:
        if self.server is not None:
            self.server.should_exit = True
