"""Seed chat rows through the services, as the run service will."""

from __future__ import annotations

import json
from typing import Any

from agentchat.chat import sessions, tree
from agentchat.chat.schemas import SessionCreate
from agentchat.chat.tables import ChatMessageLog, WorkflowPause
from agentchat.core.database import Database


def new_session(db: Database, title: str | None = None) -> int:
    with db.session() as s:
        return sessions.create_session(s, SessionCreate(title=title)).id


def add(
    db: Database,
    session_id: int,
    parent_id: int | None,
    role: str = "USER",
    content: str = "hi",
    status: str | None = None,
    **fields: Any,
) -> int:
    status = status or {"USER": "SENT", "ASSISTANT": "SUCCESS", "SYSTEM": "SUMMARY"}[role]
    with db.session() as s:
        return tree.append_message(s, session_id, parent_id, role, content, status, **fields).id


def conversation(
    db: Database, session_id: int, turns: int, parent_id: int | None = None
) -> list[int]:
    """`turns` user/assistant pairs under `parent_id`; the ids in order."""
    ids: list[int] = []
    for turn in range(turns):
        ids.append(add(db, session_id, ids[-1] if ids else parent_id, "USER", f"question {turn}"))
        ids.append(add(db, session_id, ids[-1], "ASSISTANT", f"answer {turn}"))
    return ids


def add_logs(
    db: Database, message_id: int, *lines: tuple[str, str | None, str | None, Any]
) -> None:
    """(kind, content, tool_name, meta) lines, seq from 0."""
    with db.session() as s:
        for seq, (kind, content, tool, meta) in enumerate(lines):
            s.add(
                ChatMessageLog(
                    message_id=message_id,
                    seq=seq,
                    kind=kind,
                    content=content,
                    tool_name=tool,
                    meta_json=None if meta is None else json.dumps(meta),
                )
            )


def start_run(db: Database, session_id: int, parent_id: int, run_id: str = "run-1") -> int:
    return add(db, session_id, parent_id, "ASSISTANT", "", "RUNNING", run_id=run_id)


def pause(db: Database, run_id: str, status: str = "PENDING") -> None:
    with db.session() as s:
        s.add(WorkflowPause(run_id=run_id, clarify_id="c1", question="Which?", status=status))
