"""Stored conversations written straight into the database (history replay, the page bench):
user/assistant turns whose answers carry thinking, tool and to-do logs like a real run's."""

from __future__ import annotations

import json
from typing import Any

from agentchat.chat import sessions, tree
from agentchat.chat.schemas import SessionCreate
from agentchat.chat.tables import ChatMessageLog
from agentchat.core.database import Database

LogLine = tuple[str, str | None, str | None, dict[str, Any] | None]


def answer_logs(turn: int, tools: int = 1) -> list[LogLine]:
    """A run's log lines: status, thinking, a to-do list, `tools` tool calls with results."""
    todos = [{"id": "1", "content": f"step of turn {turn}", "status": "completed"}]
    lines: list[LogLine] = [
        ("status", "(｡•́︿•̀｡) pondering...", None, None),
        ("thinking", f"Thinking about question {turn}.", None, None),
        ("todo_update", json.dumps(todos), "todo", None),
    ]
    for i in range(tools):
        lines.append(("tool_call", json.dumps({"query": f"q{turn}.{i}"}), "skills_list", None))
        lines.append(("tool_result", f"result {turn}.{i}", "skills_list", None))
    return lines


def new_session(db: Database, title: str) -> int:
    with db.session() as s:
        return sessions.create_session(s, SessionCreate(title=title)).id


def append(
    db: Database,
    session_id: int,
    parent_id: int | None,
    role: str,
    content: str,
    status: str,
    logs: list[LogLine] = (),  # type: ignore[assignment]
) -> int:
    with db.session() as s:
        message = tree.append_message(s, session_id, parent_id, role, content, status)
        for seq, (kind, text, tool, meta) in enumerate(logs):
            s.add(
                ChatMessageLog(
                    message_id=message.id,
                    seq=seq,
                    kind=kind,
                    content=text,
                    tool_name=tool,
                    meta_json=None if meta is None else json.dumps(meta),
                )
            )
        return message.id


def turns(
    db: Database, session_id: int, count: int, parent_id: int | None = None, tools: int = 1
) -> int | None:
    """`count` question/answer pairs under `parent_id`; returns the last message's id."""
    leaf = parent_id
    for turn in range(count):
        leaf = append(db, session_id, leaf, "USER", f"question {turn}", "SENT")
        answer = f"**answer {turn}**\n\n```python\nprint({turn})\n```"
        logs = answer_logs(turn, tools)
        leaf = append(db, session_id, leaf, "ASSISTANT", answer, "SUCCESS", logs)
    return leaf
