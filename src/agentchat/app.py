"""The API application: routers, error handlers and the services they share."""

from __future__ import annotations

from fastapi import FastAPI
from starlette.types import ASGIApp

from agentchat import __version__
from agentchat.accounts.admin_routes import router as admin_router
from agentchat.accounts.oidc_routes import router as oidc_router
from agentchat.accounts.routes import router as accounts_router
from agentchat.attachments.store import configure_store
from agentchat.chat.router import router as chat_router
from agentchat.core.database import Database
from agentchat.core.settings import Settings, get_settings
from agentchat.lifecycle import lifespan
from agentchat.mcp_servers.router import router as mcp_router
from agentchat.models.router import router as models_router
from agentchat.runs.http.router import router as runs_router
from agentchat.runtime import Runtime
from agentchat.skills.router import router as skills_router
from agentchat.web.agent_refusal import refuse_agents
from agentchat.web.error_handlers import install_api_error_handlers
from agentchat.web.frontend import STATIC_DIR, mount_frontend
from agentchat.web.health import router as health_router
from agentchat.web.info import router as info_router
from agentchat.web.own_user import guard_own_user
from agentchat.web.security import install_security
from agentchat.web.undumpable import make_undumpable


def create_app(settings: Settings | None = None, database: Database | None = None) -> FastAPI:
    settings = settings or get_settings()
    app = FastAPI(title="Agent Chat", version=__version__, lifespan=lifespan)
    app.state.settings = settings
    app.state.db = database or Database(
        settings.resolved_database_url, lock_timeout_s=settings.db_lock_timeout_s
    )
    configure_store(app.state.db, settings)  # where attachment bytes go (database or S3)
    app.state.runtime = Runtime.of(settings)  # what start-up finds out (lifecycle)
    install_api_error_handlers(app)
    install_security(app, settings)
    app.include_router(health_router)
    app.include_router(info_router)
    app.include_router(chat_router)
    app.include_router(runs_router)
    app.include_router(models_router)
    app.include_router(skills_router)
    app.include_router(mcp_router)
    app.include_router(accounts_router)
    app.include_router(oidc_router)
    app.include_router(admin_router)
    mount_frontend(app, STATIC_DIR)
    return app


def create_served_app(settings: Settings | None = None) -> ASGIApp:
    """The app as `agentchat serve` puts it on a socket: the agent's own programs never get in
    (web.agent_refusal), and without a token only the user of this machine that runs it
    (web.own_user); its environment stays its own (web.undumpable)."""
    settings = settings or get_settings()
    make_undumpable()
    return refuse_agents(guard_own_user(create_app(settings), settings))
