"""The one person's agent becomes the first administrator's when accounts come.

Without accounts the local bridge keeps the agent's long-term memory (memories/MEMORY.md,
USER.md) and the skills the agent made (skills/) in its own hermes home; with accounts each
person's agent lives in `<home>/people/<person>/` (bridge.hermes.people) and the bridge's own
home serves no one. The chats, models and approvals that exist become the first
administrator's (users.adopt_unowned); so does the agent's memory: `hand_over` moves it into
her home, once: when the first account is made, or at the first start with accounts (a
server whose accounts came before this). A memory file she already has gets the entries it
lacks; a skill folder of the same name she already has keeps hers (the shared one stays).

This is the hermes home of the local bridge (`AGENTCHAT_HERMES_HOME`), which this process
shares with it; a bridge elsewhere (`AGENTCHAT_BRIDGE_URL`) keeps its own home, which its
operator moves the same way."""

from __future__ import annotations

import logging
import os
from pathlib import Path

from sqlalchemy.orm import Session

from agentchat.accounts.users import first_admin_id
from agentchat.principal import agent_key
from agentchat.private_files import private_dir
from agentchat.protocol.people import PEOPLE_DIR, person_folder

log = logging.getLogger(__name__)

MEMORY_FILES = ("MEMORY.md", "USER.md")
HANDED_OVER = ".handed-over"  # in people/: the first administrator took the shared agent
ENTRY_DELIMITER = "\n§\n"  # hermes' memory entries (bridge.hermes.memory_files)


def home_of_person(hermes_home: Path, user_id: int) -> Path:
    key = agent_key(user_id)
    assert key is not None
    return hermes_home / PEOPLE_DIR / person_folder(key)


def hand_over(hermes_home: Path, user_id: int) -> list[str]:
    """Move the shared agent's memory files and agent-made skills into `user_id`'s home, once
    (a mark in `people/` says it was done: whatever the bridge's own home might hold later is
    no one's to take); the names moved."""
    mark = hermes_home / PEOPLE_DIR / HANDED_OVER
    if mark.exists():
        return []
    moved = _move(hermes_home, user_id)
    private_dir(mark.parent)
    mark.write_text(f"{user_id}\n", encoding="utf-8")
    if moved:
        log.info("the agent's memory and skills went to the first administrator: %s", moved)
    return moved


def _move(hermes_home: Path, user_id: int) -> list[str]:
    moved: list[str] = []
    shared_memory = hermes_home / "memories"
    for name in MEMORY_FILES:
        source = shared_memory / name
        if source.is_file():
            target = home_of_person(hermes_home, user_id) / "memories" / name
            _merge_memory(source, target)
            moved.append(f"memories/{name}")
    shared_skills = hermes_home / "skills"
    if shared_skills.is_dir():
        for entry in sorted(shared_skills.iterdir()):
            if entry.name.startswith(".") or entry.is_symlink() or not entry.is_dir():
                continue
            target = home_of_person(hermes_home, user_id) / "skills" / entry.name
            if target.exists():
                continue  # the person's agent made one of the same name: theirs stays
            _private_parents(target, hermes_home)
            os.replace(entry, target)
            moved.append(f"skills/{entry.name}")
    return moved


def hand_over_at_start(db: Session, hermes_home: Path) -> list[str]:
    """With accounts, what the shared agent still holds goes to the first administrator."""
    admin_id = first_admin_id(db)
    return [] if admin_id is None else hand_over(hermes_home, admin_id)


def _merge_memory(source: Path, target: Path) -> None:
    _private_parents(target, source.parent.parent)
    if not target.exists():
        os.replace(source, target)
        return
    have = _entries(target.read_text(encoding="utf-8"))
    new = [e for e in _entries(source.read_text(encoding="utf-8")) if e not in have]
    if new:
        temporary = target.with_name(f".{target.name}.handover")
        temporary.write_text(ENTRY_DELIMITER.join([*have, *new]), encoding="utf-8")
        os.chmod(temporary, 0o600)
        os.replace(temporary, target)
    source.unlink()


def _entries(raw: str) -> list[str]:
    return [e.strip() for e in raw.split(ENTRY_DELIMITER) if e.strip()]


def _private_parents(path: Path, root: Path) -> None:
    """The folders from `root` down to `path`'s, made only for this user (0700)."""
    folder = path.parent
    chain: list[Path] = []
    while folder != root and root in folder.parents:
        chain.append(folder)
        folder = folder.parent
    for each in reversed(chain):
        if not each.is_dir():
            private_dir(each)
