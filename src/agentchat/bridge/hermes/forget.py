"""A hermes session the API is done with (its chat was deleted, or reset to a new session):
what this bridge held for it goes, so that neither the disk nor the process keeps growing with
every chat it ever served, and a deleted chat's files are gone: its scratch folder (files the
agent wrote), hermes' per-task working-folder override and its "allow for this chat"
approvals. Nothing is removed while a turn of the session runs here: a session the API is done
with while its turn still runs (the person stopped it, then reset or deleted the chat, and the
agent's tool had not given up yet) is forgotten once that turn has ended (`PendingForgets`).

A session whose agent merely left the pool (the chat still exists and may come back) only
unloads what hermes rebuilds on its next turn (`unload_session`)."""

from __future__ import annotations

import logging
import shutil
import threading
from collections.abc import Callable

from agentchat.bridge.guards import files as file_guard
from agentchat.bridge.guards import request_policy
from agentchat.bridge.settings import BridgeSettings

log = logging.getLogger(__name__)


def unload_session(session_id: str) -> None:
    """hermes' per-task state of an idle session whose agent left the pool: its working-folder
    override and recorded cwd, registered again before each turn (`TurnRunner._prepare`).
    Its files and approvals stay."""
    from tools.terminal_tool import clear_task_env_overrides

    task_id = request_policy.task_id(session_id)
    clear_task_env_overrides(task_id)
    file_guard.release(task_id)


def forget_session(settings: BridgeSettings, session_id: str) -> None:
    """Remove the session's scratch folder and hermes' in-process state for it."""
    from tools.approval import clear_session

    unload_session(session_id)
    clear_session(f"agentchat-{session_id}")  # the agent's session id keys its approvals
    folder = request_policy.workspace(settings, session_id)
    try:
        shutil.rmtree(folder)  # never follows a link out of the folder
    except FileNotFoundError:
        pass
    except OSError as exc:
        log.warning("could not remove the scratch folder %s: %s", folder, exc)


class PendingForgets:
    """Sessions the API is done with, forgotten once no turn of theirs runs here (`busy`)."""

    def __init__(self, settings: BridgeSettings, busy: Callable[[str], bool]) -> None:
        self._settings = settings
        self._busy = busy
        self._waiting: set[str] = set()
        self._lock = threading.Lock()

    def done_with(self, session_id: str) -> None:
        """The API is done with the session: forget it now, or when its turn ends."""
        with self._lock:
            self._waiting.add(session_id)
        self.settle(session_id)

    def settle(self, session_id: str) -> None:
        """Forget the session if the API is done with it and no turn of it runs (called
        again when one of its turns ended)."""
        with self._lock:
            if session_id not in self._waiting or self._busy(session_id):
                return
            self._waiting.discard(session_id)
        forget_session(self._settings, session_id)
