"""The attachments a chat's turns need, kept in its workspace (`attachments/<id>-<name>`).

The API pushes each file the bridge lacks before a turn (no shared disk): it arrives as a
stream, is written beside its place, checked against its size and SHA-256, then moved into
place. A file is "there" only while its bytes still have that digest, so a file the agent
changed with its tools is sent again rather than shown to the model as the person's."""

from __future__ import annotations

import hashlib
import os
import tempfile
import threading
from collections.abc import AsyncIterator
from pathlib import Path

from agentchat.protocol.errors import Invalid
from agentchat.protocol.workspace_files import FOLDER, WorkspaceFile

_DIGESTS: dict[tuple[str, int, int, int], str] = {}  # (path, inode, mtime_ns, size) → sha256
_LOCK = threading.Lock()


def place(workspace: Path, file: WorkspaceFile) -> Path:
    """Where the file lives; never outside `workspace/attachments` (the path is validated on
    the wire too)."""
    folder = workspace / FOLDER
    target = folder / file.path.split("/", 1)[1]
    if target.parent != folder:
        raise Invalid(f"{file.path}: not a file of the workspace's attachments")
    return target


def holds(workspace: Path, file: WorkspaceFile) -> bool:
    path = place(workspace, file)
    try:
        info = os.stat(path, follow_symlinks=False)
    except FileNotFoundError:
        return False
    if not path.is_file() or path.is_symlink() or info.st_size != file.size:
        return False
    return _digest(path, info) == file.digest


def missing(workspace: Path, files: list[WorkspaceFile]) -> list[str]:
    return [f.path for f in files if not holds(workspace, f)]


async def receive(workspace: Path, file: WorkspaceFile, body: AsyncIterator[bytes]) -> None:
    """Write the streamed file into place; 422 (and nothing kept) when its size or digest is
    not the one announced."""
    target = place(workspace, file)
    target.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    fd, name = tempfile.mkstemp(prefix=".incoming-", dir=target.parent)
    digest, size = hashlib.sha256(), 0
    try:
        with os.fdopen(fd, "wb") as out:
            async for piece in body:
                size += len(piece)
                if size > file.size:
                    raise Invalid(f"{file.path}: more bytes than the {file.size} announced")
                digest.update(piece)
                out.write(piece)
        if size != file.size or digest.hexdigest() != file.digest:
            raise Invalid(f"{file.path}: the bytes that arrived are not the file announced")
        os.replace(name, target)
    except BaseException:
        Path(name).unlink(missing_ok=True)
        raise


def read(workspace: Path, file: WorkspaceFile) -> bytes:
    return place(workspace, file).read_bytes()


def _digest(path: Path, info: os.stat_result) -> str:
    key = (str(path), info.st_ino, info.st_mtime_ns, info.st_size)
    with _LOCK:
        known = _DIGESTS.get(key)
    if known is None:
        with path.open("rb") as source:
            known = hashlib.file_digest(source, "sha256").hexdigest()
        with _LOCK:
            if len(_DIGESTS) > 10_000:
                _DIGESTS.clear()
            _DIGESTS[key] = known
    return known
