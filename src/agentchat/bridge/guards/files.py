"""Keep the agent's file tools inside the chat's scratch folder. Imported only after hermes.

hermes' file tools (read_file, write_file, patch, search_files) read and write anywhere the
bridge's user can: the data folder (the bridge secret, the encryption key, the database),
another chat's scratch folder, the skills folders and the hermes home, whose memory files go
into every new chat's system prompt. Here each call's paths are resolved the way hermes resolves
them (relative to the task's working folder, `~` expanded), links followed, and the call runs
only when every path lies inside the scratch folder of the turn's chat; it then gets the
resolved path, so what was checked is what is opened. A task with no scratch folder registered
(a turn of no chat) gets no file at all.

What a link can do between the check and the open needs a process of the agent's that creates
links: only `terminal` and `code_execution` give one, and they reach every file anyway
(SECURITY.md).
"""

from __future__ import annotations

import json
import logging
import os
import threading
from pathlib import Path
from typing import Any

from agentchat.bridge.guards.tool_wrap import Handler, wrap_tools

log = logging.getLogger(__name__)

_PATH_TOOLS = ("read_file", "write_file", "search_files", "patch")
_folders: dict[str, Path] = {}
_lock = threading.Lock()


class Outside(ValueError):
    """A path of the call leaves the chat's scratch folder."""


def confine(task_id: str, folder: Path) -> None:
    """The file tools of task `task_id` work inside `folder` only (it exists)."""
    with _lock:
        _folders[task_id] = Path(os.path.realpath(folder))


def release(task_id: str) -> None:
    with _lock:
        _folders.pop(task_id, None)


def folder_of(task_id: str) -> Path | None:
    with _lock:
        return _folders.get(task_id)


def install() -> None:
    """Wrap the four file tools' handlers (idempotent)."""
    wrap_tools(_PATH_TOOLS, _confined, "_agentchat_confined")


def _confined(original: Handler) -> Handler:
    def handler(args: dict[str, Any], **kw: Any) -> Any:
        task_id = str(kw.get("task_id") or "default")
        folder = folder_of(task_id)
        if folder is None:
            return _refusal("the file tools work only inside a chat's scratch folder")
        try:
            checked = _checked_args(args or {}, task_id, folder)
        except Outside as exc:
            log.warning("a file tool was refused %s: outside %s", exc, folder)
            return _refusal(
                f"{exc} is outside this chat's scratch folder; the file tools read and "
                "write only inside it (relative paths start there)"
            )
        return original(checked, **kw)

    return handler


def _checked_args(args: dict[str, Any], task_id: str, folder: Path) -> dict[str, Any]:
    """The call's arguments with `path` resolved inside `folder`; Outside when any path of
    the call (a V4A patch names its own) leaves it."""
    checked = dict(args)
    if "path" in args or "patch" not in args:
        raw = args.get("path")
        checked["path"] = inside(str(raw) if raw else ".", task_id, folder)
    if args.get("mode") == "patch" and args.get("patch"):
        for path in _patch_paths(str(args["patch"])):
            inside(path, task_id, folder)
    return checked


def inside(raw: str, task_id: str, folder: Path) -> str:
    """`raw` resolved as hermes resolves it, links followed: its real path when that lies in
    `folder`, else Outside."""
    from tools.file_tools import _resolve_path_for_task

    try:
        resolved = os.path.realpath(_resolve_path_for_task(raw, task_id))
    except (OSError, ValueError, RuntimeError) as exc:
        raise Outside(repr(raw)) from exc
    real = Path(resolved)
    if real != folder and not real.is_relative_to(folder):
        raise Outside(repr(raw))
    return resolved


def _patch_paths(patch: str) -> list[str]:
    """Every file a V4A patch names (moves: both ends), as hermes' parser reads them."""
    from tools.patch_parser import parse_v4a_patch

    operations, _error = parse_v4a_patch(patch)
    paths = [op.file_path for op in operations]
    return paths + [op.new_path for op in operations if op.new_path]


def _refusal(message: str) -> str:
    return json.dumps({"success": False, "error": message})
