"""What `agentchat serve` checks on this machine before it starts anything: that the data
folder is a folder this user may write, and that the address is free to listen on. Each
returns the reason in a few words, or None."""

from __future__ import annotations

import errno
import os
import pwd
import socket
from pathlib import Path
from typing import NamedTuple


def data_dir_problem(path: Path) -> str | None:
    """Why `path` cannot serve as the data folder (created when missing), or None."""
    folder = path.resolve()
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    except FileExistsError:
        return f"{folder} is not a folder"
    except OSError as exc:
        return f"cannot create {folder}: {exc.strerror} ({_whose(exc.filename)})"
    if not os.access(folder, os.W_OK | os.X_OK):
        return f"cannot write in {folder}: {_why_not(folder)}"
    return None


def _whose(filename: object) -> str:
    nearest = Path(str(filename))
    while not nearest.exists() and nearest != nearest.parent:
        nearest = nearest.parent
    return f"{nearest}: {_why_not(nearest)}"


def _why_not(folder: Path) -> str:
    if os.statvfs(folder).f_flag & os.ST_RDONLY:
        return "it is on a read-only file system"
    info = folder.stat()
    if info.st_uid == os.geteuid():
        return f"its mode is {info.st_mode & 0o777:o}"
    return f"it belongs to {_user_name(info.st_uid)}, this is {_me()}"


def _me() -> str:
    return _user_name(os.geteuid())


def _user_name(uid: int) -> str:
    try:
        return f"{pwd.getpwuid(uid).pw_name} (uid {uid})"
    except KeyError:
        return f"uid {uid}"


class ListenProblem(NamedTuple):
    setting: str  # "port" when the port is taken, "host" when the address is not this host's
    reason: str


def listen_problem(host: str, port: int) -> ListenProblem | None:
    """Why nothing can listen on host:port now, or None. Binds as uvicorn does (IPv6 when the
    host has a colon, SO_REUSEADDR) and lets go at once."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    try:
        with socket.socket(family, socket.SOCK_STREAM) as sock:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            sock.bind((host.strip("[]"), port))
    except OSError as exc:
        where = _address(host, port)
        if exc.errno == errno.EADDRINUSE:
            return ListenProblem("port", f"{where} is already in use (another program or serve)")
        return ListenProblem("host", f"cannot listen on {where}: {exc.strerror or exc}")
    return None


def _address(host: str, port: int) -> str:
    return f"[{host.strip('[]')}]:{port}" if ":" in host else f"{host}:{port}"
