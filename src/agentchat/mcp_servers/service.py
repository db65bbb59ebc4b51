"""The MCP server registry: rows, their encrypted secrets, and what a run sends a bridge."""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from agentchat.mcp_servers.schemas import (
    McpOffered,
    McpServerCreate,
    McpServerPublic,
    McpServerUpdate,
    SecretHint,
    check_complete,
)
from agentchat.mcp_servers.tables import McpServerRow
from agentchat.models.crypto import KeyCipher, UnreadableApiKey
from agentchat.protocol.errors import Conflict, Invalid, NotFound
from agentchat.protocol.mcp import McpServerWire, McpSetup

log = logging.getLogger(__name__)

Secrets = dict[str, dict[str, str]]  # {"env": {...}, "headers": {...}}
_KINDS = ("env", "headers")
_SECRET_MIN_CHARS = 8


class McpServerNotAllowed(Invalid):
    """422: a run asked for an MCP server that is not switched on, or that its chat turned off."""

    code = "mcp_server_not_allowed"


def list_servers(db: Session) -> list[McpServerRow]:
    return list(db.scalars(select(McpServerRow).order_by(McpServerRow.name)))


def get_server(db: Session, server_id: int) -> McpServerRow:
    row = db.get(McpServerRow, server_id)
    if row is None:
        raise NotFound(f"MCP server {server_id} not found")
    return row


def create_server(db: Session, cipher: KeyCipher, data: McpServerCreate) -> McpServerRow:
    if db.scalar(select(McpServerRow.id).where(McpServerRow.name == data.name)) is not None:
        raise Conflict(f"an MCP server named {data.name!r} exists already", code="name_taken")
    row = McpServerRow(name=data.name, transport=data.transport)
    _apply(row, data.model_dump(exclude={"name", "env", "headers"}))
    _store_secrets(row, cipher, {"env": dict(data.env), "headers": dict(data.headers)})
    db.add(row)
    try:
        db.flush()
    except IntegrityError as exc:  # the same name added at the same moment
        raise Conflict(f"an MCP server named {data.name!r} exists already") from exc
    return row


def update_server(
    db: Session, cipher: KeyCipher, server_id: int, data: McpServerUpdate
) -> McpServerRow:
    row = get_server(db, server_id)
    changes = data.model_dump(exclude_unset=True, exclude={"env", "headers"})
    if any(changes.get(k) is None for k in changes):
        raise Invalid(f"{', '.join(k for k in changes if changes[k] is None)} cannot be null")
    _apply(row, changes)
    try:
        check_complete(row.transport, row.command, row.url)
    except ValueError as exc:
        raise Invalid(str(exc)) from exc
    if "env" in data.model_fields_set or "headers" in data.model_fields_set:
        stored = read_secrets(row, cipher)
        for kind in _KINDS:
            sent = getattr(data, kind)
            if sent is not None:
                stored[kind] = _merged(stored[kind], sent)
        _store_secrets(row, cipher, stored)
    db.flush()
    return row


def delete_server(db: Session, server_id: int) -> None:
    db.delete(get_server(db, server_id))
    db.flush()


def to_public(row: McpServerRow) -> McpServerPublic:
    hints = row.secret_hints
    return McpServerPublic(
        id=row.id,
        name=row.name,
        transport=row.transport,
        command=row.command,
        args=row.args,
        env=_hints(hints.get("env", {})),
        url=row.url,
        headers=_hints(hints.get("headers", {})),
        enabled=row.enabled,
        approval=row.approval,
        timeout_s=row.timeout_s,
        connect_timeout_s=row.connect_timeout_s,
        tools_include=row.tools_include,
        tools_exclude=row.tools_exclude,
        created_at=row.created_at,
        updated_at=row.updated_at,
    )


def offered(db: Session) -> list[McpOffered]:
    return [
        McpOffered(name=r.name, transport=r.transport, approval=r.approval)
        for r in list_servers(db)
        if r.enabled
    ]


def wire(row: McpServerRow, cipher: KeyCipher) -> McpServerWire:
    """The server as a bridge gets it: secrets in clear (raises UnreadableApiKey)."""
    secrets = read_secrets(row, cipher)
    return McpServerWire(
        name=row.name,
        transport=row.transport,
        command=row.command,
        args=row.args,
        env=secrets["env"],
        url=row.url,
        headers=secrets["headers"],
        timeout_s=row.timeout_s,
        connect_timeout_s=row.connect_timeout_s,
        approval=row.approval,
        tools_include=row.tools_include,
        tools_exclude=row.tools_exclude,
    )


def run_setup(
    db: Session, cipher: KeyCipher, chat_off: Sequence[str], for_run: Sequence[str] | None
) -> McpSetup:
    """Every server switched on, and those this run may use: the chat's (all but those it
    turned off), narrowed to `for_run` when the run names some (422 for one beyond them)."""
    servers = []
    for row in list_servers(db):
        if not row.enabled:
            continue
        try:
            servers.append(wire(row, cipher))
        except UnreadableApiKey:
            log.warning("MCP server %r is left out: its secrets cannot be decrypted", row.name)
    usable = [s.name for s in servers if s.name not in set(chat_off)]
    if for_run is not None:
        outside = sorted(set(for_run) - set(usable))
        if outside:
            raise McpServerNotAllowed(
                f"mcpServers: {', '.join(outside)} not switched on for this chat "
                f"(on: {', '.join(usable) or 'none'})"
            )
        usable = [name for name in usable if name in for_run]
    return McpSetup(servers=servers, use=usable)


def setup_secrets(setup: McpSetup) -> list[str]:
    """The values of the environments and headers of the servers a run uses, as they may
    show up in its output (a header's token also alone); values under 8 characters are too
    common to scrub."""
    used = set(setup.use)
    values = [
        value
        for server in setup.servers
        if server.name in used
        for value in (*server.env.values(), *server.headers.values())
    ]
    found = values + [value.split()[-1] for value in values if " " in value.strip()]
    return [value for value in found if len(value) >= _SECRET_MIN_CHARS]


def read_secrets(row: McpServerRow, cipher: KeyCipher) -> Secrets:
    if not row.secrets_encrypted:
        return {"env": {}, "headers": {}}
    stored = json.loads(cipher.decrypt(row.secrets_encrypted))
    return {kind: dict(stored.get(kind) or {}) for kind in _KINDS}


def _store_secrets(row: McpServerRow, cipher: KeyCipher, secrets: Secrets) -> None:
    if not any(secrets.values()):
        row.secrets_encrypted, row.secret_hints_json = None, None
        return
    row.secrets_encrypted = cipher.encrypt(json.dumps(secrets, ensure_ascii=False))
    hints = {kind: {n: _last4(v) for n, v in secrets[kind].items()} for kind in _KINDS}
    row.secret_hints_json = json.dumps(hints, ensure_ascii=False)


def _last4(value: str) -> str:
    """As for model keys: a value shorter than 12 characters shows none of them."""
    return value[-4:] if len(value) >= 12 else ""


def _apply(row: McpServerRow, changes: dict[str, object]) -> None:
    for key, value in changes.items():
        setattr(row, key, value)


def _merged(stored: dict[str, str], sent: dict[str, str | None]) -> dict[str, str]:
    """The set sent: null keeps the stored value (an unknown name with null is an error)."""
    merged = {}
    for name, value in sent.items():
        if value is None and name not in stored:
            raise Invalid(f"{name}: no stored value to keep; give one")
        merged[name] = stored[name] if value is None else value
    return merged


def _hints(values: dict[str, str]) -> list[SecretHint]:
    return [SecretHint(name=name, last4=last4) for name, last4 in sorted(values.items())]
