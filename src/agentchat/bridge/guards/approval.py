"""Dangerous commands pause for the person's approval, through the clarify gate (durable: the
API stores the pause, `/state` shows it, the page answers it like a clarify).

hermes asks `tools.terminal_tool`'s per-thread approval callback for a command that its
patterns call dangerous (only reachable when the operator enables `terminal` or `code`
toolsets). Its answers: "once", "session" (this chat: the approval session key is the
agent's session), "deny". hermes holds "session" approvals in this process only: `restore` sets
them to those the API keeps with the chat, `held` reads them for the run's end.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from agentchat.protocol.events import APPROVAL_CHOICES

Ask = Callable[[str, str], str]

_DECISIONS = dict(
    zip((c.lower() for c in APPROVAL_CHOICES), ("once", "session", "deny"), strict=True)
)


def decision(answer: str) -> str:
    """hermes' choice for the person's answer; anything unexpected denies."""
    return _DECISIONS.get((answer or "").strip().lower(), "deny")


def ask_on_this_thread(session_key: str, ask: Ask) -> None:
    """Before a turn, on its thread: dangerous commands call `ask(command, description)`."""
    from tools.approval import set_current_session_key, set_hermes_interactive_context
    from tools.terminal_tool import set_approval_callback

    set_hermes_interactive_context(True)
    set_current_session_key(session_key)

    def callback(command: str, description: str, **_kw: Any) -> str:
        return decision(ask(str(command), str(description)))

    set_approval_callback(callback)


def restore(session_key: str, approvals: list[str]) -> None:
    """Before a turn: exactly the chat's "allow for this chat" approvals, as hermes keys them.
    The API's list wins over what this process remembers: a person may have taken one back."""
    from tools.approval import approve_session, clear_session

    clear_session(session_key)
    for pattern_key in approvals:
        approve_session(session_key, pattern_key)


def held(session_key: str) -> list[str]:
    """The approval keys hermes holds for this chat now (sorted)."""
    from tools import approval as hermes_approval

    with hermes_approval._lock:
        return sorted(hermes_approval._session_approved.get(session_key, ()))
