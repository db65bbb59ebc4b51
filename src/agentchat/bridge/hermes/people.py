"""One hermes home per person (accounts), like hermes' own profiles (hermes_cli/profiles.py).

hermes keeps an agent's long-term memory (memories/MEMORY.md, USER.md) and the skills the agent
makes (skills/) under its home, and every agent of a home shares them: one person's memory
reached everyone's agent. A run or memory request that names a `userId` is served from
`<home>/people/<person>/`, which holds a copy of the bridge's config.yaml: the turn runs under
hermes' context-local home override (`hermes_constants.set_hermes_home_override`, which hermes
hands on to the threads that run tools), so its memory, its skills and the system prompt built
from them are the person's. What hermes fixes at import time (state.db, logs) stays the
bridge's; each chat's scratch folder stays in `<home>/workspaces/`. Without a `userId` (no
accounts) the bridge's own home serves, as before.
"""

from __future__ import annotations

import contextlib
import logging
import shutil
import threading
from collections.abc import Iterator
from pathlib import Path

from agentchat.bridge.settings import BridgeSettings
from agentchat.protocol.people import PEOPLE_DIR, person_folder

log = logging.getLogger(__name__)

_PREPARED: set[Path] = set()
_lock = threading.Lock()


def home_of(settings: BridgeSettings, user_id: str | None) -> Path:
    """The hermes home that serves `user_id` (the bridge's own for None)."""
    if not user_id:
        return settings.home
    return settings.home / PEOPLE_DIR / person_folder(user_id)


def prepared_home(settings: BridgeSettings, user_id: str | None) -> Path:
    """`home_of`, created with its folders and the bridge's config.yaml (once per process)."""
    home = home_of(settings, user_id)
    if home == settings.home:
        return home
    with _lock:
        if home not in _PREPARED:
            for sub in ("memories", "skills"):
                (home / sub).mkdir(parents=True, exist_ok=True)
            shutil.copyfile(settings.home / "config.yaml", home / "config.yaml")
            _PREPARED.add(home)
    return home


@contextlib.contextmanager
def serving(home: Path, settings: BridgeSettings) -> Iterator[None]:
    """hermes resolves its home to `home` in this thread (and the tool threads it starts)."""
    if home == settings.home:
        yield
        return
    from hermes_constants import reset_hermes_home_override, set_hermes_home_override

    token = set_hermes_home_override(str(home))
    try:
        yield
    finally:
        reset_hermes_home_override(token)


def forget_person(settings: BridgeSettings, user_id: str) -> bool:
    """Remove the person's home: their memory and the skills their agent made. True when
    there was one."""
    home = home_of(settings, user_id)
    with _lock:
        _PREPARED.discard(home)
        if not home.is_dir():
            return False
        shutil.rmtree(home)
    log.info("forgot the agent of person %s", person_folder(user_id))
    return True
