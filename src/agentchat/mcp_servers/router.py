"""HTTP routes of the Tools page (an administrator's) and of the servers a chat is offered."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Request, Response, status
from sqlalchemy.orm import Session
from starlette.concurrency import run_in_threadpool

from agentchat.bridge_client.workers import BridgeWorkers
from agentchat.core.database import Database
from agentchat.core.deps import DatabaseDep, DbSession
from agentchat.mcp_servers import bridges as agent_services
from agentchat.mcp_servers import service
from agentchat.mcp_servers.schemas import (
    McpOffered,
    McpServerCreate,
    McpServerPublic,
    McpServerState,
    McpServerUpdate,
    McpTestResult,
)
from agentchat.models.crypto import KeyCipher, UnreadableApiKey
from agentchat.models.router import CipherDep
from agentchat.principal import AdminDep, PrincipalDep
from agentchat.protocol.camel import ERROR_RESPONSES
from agentchat.protocol.errors import ServiceUnavailable
from agentchat.protocol.mcp import McpServerWire

router = APIRouter(prefix="/api/mcp", tags=["mcp"], responses=ERROR_RESPONSES)


def get_bridges(request: Request) -> BridgeWorkers:
    bridges: BridgeWorkers | None = getattr(request.app.state, "bridges", None)
    if bridges is None:
        raise ServiceUnavailable("The agent service is not running.")
    return bridges


BridgesDep = Annotated[BridgeWorkers, Depends(get_bridges)]


@router.get("/offered", operation_id="listOfferedMcpServers")
def list_offered(db: DbSession, _: PrincipalDep) -> list[McpOffered]:
    """The MCP servers switched on: what a chat can use, or turn off for itself."""
    return service.offered(db)


@router.get("/servers", operation_id="listMcpServers")
def list_servers(db: DbSession, _: AdminDep) -> list[McpServerPublic]:
    """Every MCP server, by name. The values of its environment and headers are never
    returned (their last four characters are)."""
    return [service.to_public(row) for row in service.list_servers(db)]


@router.post("/servers", operation_id="createMcpServer", status_code=status.HTTP_201_CREATED)
async def create_server(
    data: McpServerCreate,
    database: DatabaseDep,
    cipher: CipherDep,
    bridges: BridgesDep,
    _: AdminDep,
) -> McpServerPublic:
    """Add a server. A stdio server's command must exist and be executable where the agent
    runs (each agent service is asked), else it is refused with the reason."""
    if data.transport == "stdio":
        await agent_services.check(bridges, _wire_of(data))
    return await run_in_threadpool(_create, database, cipher, data)


@router.get("/servers/{server_id}", operation_id="getMcpServer")
def get_server(server_id: int, db: DbSession, _: AdminDep) -> McpServerPublic:
    return service.to_public(service.get_server(db, server_id))


@router.patch("/servers/{server_id}", operation_id="updateMcpServer")
async def update_server(
    server_id: int,
    data: McpServerUpdate,
    database: DatabaseDep,
    cipher: CipherDep,
    bridges: BridgesDep,
    _: AdminDep,
) -> McpServerPublic:
    """Change the fields sent; the agent services follow on their next turn. A stdio server
    is checked again as for a new one."""
    planned = await run_in_threadpool(_planned, database, cipher, server_id, data)
    if planned.transport == "stdio":
        await agent_services.check(bridges, planned)
    return await run_in_threadpool(_update, database, cipher, server_id, data)


@router.delete(
    "/servers/{server_id}", operation_id="deleteMcpServer", status_code=status.HTTP_204_NO_CONTENT
)
def delete_server(server_id: int, db: DbSession, _: AdminDep) -> Response:
    """Remove a server; the agent services close it on their next turn."""
    service.delete_server(db, server_id)
    return Response(status_code=status.HTTP_204_NO_CONTENT)


@router.post("/test", operation_id="testNewMcpServer")
async def test_new_server(data: McpServerCreate, bridges: BridgesDep, _: AdminDep) -> McpTestResult:
    """Test a server before it is saved (the add form's values): connect where the agent
    runs, list its tools, disconnect. Nothing is stored."""
    return await agent_services.test(bridges, _wire_of(data))


@router.post("/servers/{server_id}/test", operation_id="testMcpServer")
async def test_server(
    server_id: int,
    database: DatabaseDep,
    cipher: CipherDep,
    bridges: BridgesDep,
    _: AdminDep,
    data: McpServerUpdate | None = None,
) -> McpTestResult:
    """Connect to the server where the agent runs, list its tools, disconnect. With a body
    (the edit form's changes), the server is tested as they would leave it, its stored
    secrets kept where the form leaves them; nothing is stored."""
    if data is None:
        wire = await run_in_threadpool(_saved_wire, database, cipher, server_id)
    else:
        wire = await run_in_threadpool(_planned, database, cipher, server_id, data)
    return await agent_services.test(bridges, wire)


@router.get("/status", operation_id="mcpServerStates")
async def server_states(
    database: DatabaseDep, cipher: CipherDep, bridges: BridgesDep, _: AdminDep
) -> list[McpServerState]:
    """Each server as the agent services hold it: connected (its tools), failed (hermes'
    reason), idle (not used yet), off, or unknown (no agent service answered)."""
    servers, unreadable = await run_in_threadpool(_all_wires, database, cipher)
    known = await agent_services.states(bridges, servers)
    return sorted(known + unreadable, key=lambda state: state.name)


def _wire_of(data: McpServerCreate) -> McpServerWire:
    fields = data.model_dump(exclude={"enabled"})
    return McpServerWire.model_validate(fields)


def _create(database: Database, cipher: KeyCipher, data: McpServerCreate) -> McpServerPublic:
    with database.session() as db:
        return service.to_public(service.create_server(db, cipher, data))


def _update(
    database: Database, cipher: KeyCipher, server_id: int, data: McpServerUpdate
) -> McpServerPublic:
    with database.session() as db:
        return service.to_public(service.update_server(db, cipher, server_id, data))


def _planned(
    database: Database, cipher: KeyCipher, server_id: int, data: McpServerUpdate
) -> McpServerWire:
    """The server as the change would leave it (nothing is stored)."""
    db: Session = database.sessionmaker()
    try:
        return service.wire(service.update_server(db, cipher, server_id, data), cipher)
    finally:
        db.rollback()
        db.close()


def _saved_wire(database: Database, cipher: KeyCipher, server_id: int) -> McpServerWire:
    with database.session() as db:
        return service.wire(service.get_server(db, server_id), cipher)


def _all_wires(
    database: Database, cipher: KeyCipher
) -> tuple[list[tuple[McpServerWire, bool]], list[McpServerState]]:
    """The servers as wires, and those whose secrets the current key cannot read."""
    wires, unreadable = [], []
    with database.session() as db:
        for row in service.list_servers(db):
            try:
                wires.append((service.wire(row, cipher), row.enabled))
            except UnreadableApiKey as exc:
                unreadable.append(McpServerState(name=row.name, state="failed", error=str(exc)))
    return wires, unreadable
