"""The agent's memory of a conversation, rebuilt from the branch being extended.

hermes-agent keeps no conversation between calls, so every run sends the history of its branch:
the latest compacted history on the branch (stored with a SYSTEM/SUMMARY message) plus the
agent messages stored with each assistant turn after it. A RESET divider starts afresh.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any, Protocol


class BranchMessage(Protocol):
    role: str
    status: str
    content: str
    agent_messages: str | None


def _loads(raw: str | None) -> list[dict[str, Any]] | None:
    if not raw:
        return None
    value = json.loads(raw)
    return value if isinstance(value, list) else None


def history_for(branch: Iterable[BranchMessage]) -> list[dict[str, Any]]:
    """History to send for a run that extends `branch` (oldest first, ending before the new
    user message)."""
    history: list[dict[str, Any]] = []
    pending_user: dict[str, Any] | None = None
    for message in branch:
        if message.role == "SYSTEM":
            if message.status == "RESET":
                history, pending_user = [], None
            elif message.status == "SUMMARY":
                compacted = _loads(message.agent_messages)
                if compacted is not None:
                    history, pending_user = compacted, None
        elif message.role == "USER":
            if pending_user is not None:
                history.append(pending_user)
            pending_user = {"role": "user", "content": message.content}
        elif message.role == "ASSISTANT":
            turn = _loads(message.agent_messages)
            if turn:
                history.extend(turn)
            else:
                if pending_user is not None:
                    history.append(pending_user)
                if message.content:
                    history.append({"role": "assistant", "content": message.content})
            pending_user = None
    if pending_user is not None:
        history.append(pending_user)
    return history
