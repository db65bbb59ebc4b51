"""The MCP server registry on SQLite, PostgreSQL and MariaDB (real migrations): secrets
stored encrypted and kept across changes, and what a run is sent."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentchat.core.database import Database
from agentchat.core.settings import Settings
from agentchat.mcp_servers import service
from agentchat.mcp_servers.schemas import McpServerCreate, McpServerUpdate
from agentchat.models.crypto import KeyCipher
from agentchat.protocol.errors import Conflict, Invalid

TOKEN = "Bearer remote-token-0123456789"


@pytest.fixture
def cipher(tmp_path: Path) -> KeyCipher:
    return KeyCipher.for_settings(Settings(data_dir=tmp_path / "data"))


def remote(name: str = "remote", **fields: object) -> McpServerCreate:
    body = {"name": name, "transport": "http", "url": "https://mcp.example.com/mcp"}
    return McpServerCreate.model_validate({**body, **fields})


def test_secrets_are_encrypted_and_survive_a_change(any_database: Database, cipher: KeyCipher):
    with any_database.session() as db:
        row = service.create_server(db, cipher, remote(headers={"Authorization": TOKEN}))
        server_id = row.id
    with any_database.session() as db:
        row = service.get_server(db, server_id)
        assert TOKEN not in (row.secrets_encrypted or "")
        public = service.to_public(row)
        assert [h.model_dump() for h in public.headers] == [
            {"name": "Authorization", "last4": "6789"}
        ]
        change = McpServerUpdate(headers={"Authorization": None, "X-Team": "blue"})
        service.update_server(db, cipher, server_id, change)
    with any_database.session() as db:
        wire = service.wire(service.get_server(db, server_id), cipher)
        assert wire.headers == {"Authorization": TOKEN, "X-Team": "blue"}
        # a short value shows none of its characters
        assert {
            h.name: h.last4 for h in service.to_public(db.get_one(type(row), server_id)).headers
        }["X-Team"] == ""


def test_names_are_unique_and_a_kept_value_must_exist(any_database: Database, cipher: KeyCipher):
    with any_database.session() as db:
        row = service.create_server(db, cipher, remote())
        server_id = row.id
    with any_database.session() as db, pytest.raises(Conflict):
        service.create_server(db, cipher, remote())
    with any_database.session() as db, pytest.raises(Invalid):
        service.update_server(db, cipher, server_id, McpServerUpdate(headers={"X": None}))


def test_a_run_gets_the_servers_switched_on_and_uses_those_of_its_chat(
    any_database: Database, cipher: KeyCipher
) -> None:
    with any_database.session() as db:
        for name in ("alpha", "beta", "gamma"):
            service.create_server(db, cipher, remote(name, enabled=name != "gamma"))
        setup = service.run_setup(db, cipher, chat_off=["beta"], for_run=None)
        assert [s.name for s in setup.servers] == ["alpha", "beta"]
        assert setup.use == ["alpha"]
        assert service.run_setup(db, cipher, [], ["beta"]).use == ["beta"]
        with pytest.raises(Invalid) as widened:
            service.run_setup(db, cipher, ["beta"], ["beta"])
        assert widened.value.code == "mcp_server_not_allowed"
        with pytest.raises(Invalid):
            service.run_setup(db, cipher, [], ["gamma"])
