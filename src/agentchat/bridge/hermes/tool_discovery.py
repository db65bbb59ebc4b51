"""hermes-agent's answer to "which of its tool modules register tools", kept between starts.

At every import, hermes (`tools.registry.discover_builtin_tools`) parses the source of each of
its ~90 tool modules to find those with a top-level `registry.register(...)`: about 0.2 s of
CPU of a bridge start's 1.5 s. The answer depends only on a file's content, so it is kept by
the content's SHA-256 in the user's cache folder, and hermes' own check runs only for content
not seen before (a new hermes release). Without that folder (unwritable, no home) or without
hermes' check (a release that renamed it) hermes parses as before.

A planted answer could hide a tool module from hermes or import one that registers nothing;
the folder is the bridge user's own (0700), whose agent already runs as that user.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import tempfile
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path

log = logging.getLogger(__name__)

CACHE_NAME = "hermes-tool-modules.json"
_CHECK = "_module_registers_tools"  # tools.registry's check of one module's source


def cache_file(env: Mapping[str, str] | None = None) -> Path | None:
    """$XDG_CACHE_HOME/agentchat/CACHE_NAME, else ~/.cache/agentchat/CACHE_NAME; None without
    either."""
    env = os.environ if env is None else env
    if env.get("XDG_CACHE_HOME"):
        return Path(env["XDG_CACHE_HOME"]) / "agentchat" / CACHE_NAME
    if env.get("HOME"):
        return Path(env["HOME"]) / ".cache" / "agentchat" / CACHE_NAME
    return None


@contextlib.contextmanager
def remembered_tool_discovery(path: Path | None) -> Iterator[None]:
    """While hermes is imported inside: its per-module check answered from `path` where the
    content was seen before; the answers of this import are written back after."""
    from tools import registry

    check: Callable[[Path], bool] | None = getattr(registry, _CHECK, None)
    if path is None or check is None:
        yield
        return
    saved = _load(path)
    known = dict(saved)
    used: dict[str, bool] = {}

    def kept_check(module_path: Path) -> bool:
        try:
            digest = hashlib.sha256(Path(module_path).read_bytes()).hexdigest()
        except OSError:
            return check(module_path)
        if digest not in known:
            known[digest] = check(module_path)
        used[digest] = known[digest]
        return used[digest]

    setattr(registry, _CHECK, kept_check)
    try:
        yield
    finally:
        setattr(registry, _CHECK, check)
    if used and used != saved:
        _save(path, used)


def _load(path: Path) -> dict[str, bool]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    answers = data.get("registers") if isinstance(data, dict) else None
    if not isinstance(answers, dict):
        return {}
    return {k: v for k, v in answers.items() if isinstance(k, str) and isinstance(v, bool)}


def _save(path: Path, answers: dict[str, bool]) -> None:
    """Only this release's answers (an upgrade replaces them); atomically, or not at all."""
    temporary = None
    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=".tool-modules-")
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            json.dump({"registers": answers}, out)
        os.replace(temporary, path)
    except OSError as error:
        log.info("hermes' tool modules not remembered in %s: %s", path, error)
        if temporary is not None:
            with contextlib.suppress(OSError):
                os.unlink(temporary)
