"""The skill registry: folders holding a SKILL.md (YAML front matter + Markdown body).

A folder name from a request is never joined to a path: it is looked up among the folders
that exist, and files are opened without following symbolic links.
"""

from __future__ import annotations

import logging
import os
import re
import shutil
import stat
from dataclasses import dataclass, replace
from pathlib import Path

import yaml

from agentchat.core.settings import Settings
from agentchat.protocol.errors import Invalid, NotFound
from agentchat.protocol.people import PEOPLE_DIR, person_folder

log = logging.getLogger(__name__)

SKILL_FILE = "SKILL.md"
SAMPLES_DIR = Path(__file__).parent / "samples"
MAX_SKILL_BYTES = 256 * 1024
MAX_NAME_CHARS = 64  # hermes-agent's limits
MAX_DESCRIPTION_CHARS = 1024
_FOLDER_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9._-]{0,254}")
_INSTALLED_MARKER = ".agentchat-samples"
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_DIRECTORY = getattr(os, "O_DIRECTORY", 0)


@dataclass(frozen=True)
class Skill:
    folder_name: str
    name: str
    description: str
    content: str
    error: str | None = None
    agent_made: bool = False


class SkillRegistry:
    """The user's skills in `root`; with `agent_root` (the hermes home's skills folder), also
    the skills the agent made there (skill management), marked as such; the user's win."""

    def __init__(self, root: Path, agent_root: Path | None = None) -> None:
        self.root = root
        self.agent_root = agent_root

    def skills(self) -> list[Skill]:
        """Every skill folder, by folder name; a broken SKILL.md is listed with its error."""
        owners = self._owners()
        return [self._load(folder, owners[folder]) for folder in sorted(owners)]

    def get(self, folder_name: str) -> Skill:
        """The skill in `folder_name`: 422 when the name cannot be a folder, 404 when absent."""
        check_folder_name(folder_name)
        owners = self._owners()
        registered = {name: name for name in owners}
        if folder_name not in registered:
            raise NotFound(f"Skill {folder_name!r} not found")
        return self._load(registered[folder_name], owners[folder_name])

    def _owners(self) -> dict[str, Path]:
        found = {name: self.agent_root for name in self.folder_names(self.agent_root)}
        found.update({name: self.root for name in self.folder_names()})
        return {name: root for name, root in found.items() if root is not None}

    def folder_names(self, root: Path | None = None) -> list[str]:
        """Real sub-directories (not links) with a valid name that contain a SKILL.md entry."""
        root = self.root if root is None else root
        if root is None:
            return []
        try:
            entries = list(os.scandir(root))
        except FileNotFoundError:
            return []
        except OSError as exc:
            log.warning("cannot list the skills directory %s: %s", root, exc)
            return []
        names = [
            e.name
            for e in entries
            if is_valid_folder_name(e.name)
            and e.is_dir(follow_symlinks=False)
            and os.path.lexists(os.path.join(e.path, SKILL_FILE))
        ]
        return sorted(names)

    def _load(self, folder_name: str, root: Path) -> Skill:
        agent_made = root != self.root
        try:
            text = _read_skill_file(root, folder_name)
        except (OSError, ValueError) as exc:
            error = f"{SKILL_FILE} cannot be read: {exc}"
            return Skill(folder_name, folder_name, "", "", error, agent_made)
        return replace(parse_skill(folder_name, text), agent_made=agent_made)


def registry_for(settings: Settings, person: str | None = None) -> SkillRegistry:
    """The user's skills and, marked, those the agent made in the (local) hermes home: with
    accounts, in the home the bridge keeps for `person` (its opaque id, protocol.people)."""
    home = settings.resolved_hermes_home
    if person:
        home = home / PEOPLE_DIR / person_folder(person)
    return SkillRegistry(settings.resolved_skills_dir, home / "skills")


def is_valid_folder_name(folder_name: str) -> bool:
    return bool(_FOLDER_NAME.fullmatch(folder_name)) and ".." not in folder_name


def check_folder_name(folder_name: str) -> None:
    if not is_valid_folder_name(folder_name):
        raise Invalid(f"{folder_name!r} is not a valid skill folder name")


def parse_skill(folder_name: str, text: str) -> Skill:
    """Read the front matter; any problem becomes the skill's `error`, never an exception."""
    try:
        meta = _front_matter(text)
        name = _required_text(meta, "name", MAX_NAME_CHARS)
        description = _required_text(meta, "description", MAX_DESCRIPTION_CHARS)
    except ValueError as exc:
        return Skill(folder_name, folder_name, "", text, str(exc))
    return Skill(folder_name, name, description, text)


def install_samples(root: Path) -> list[str]:
    """Copy the shipped sample skills into `root` once each; never overwrite or re-add them.

    A marker file remembers what was installed, so a sample the user deleted stays deleted.
    """
    root.mkdir(mode=0o700, parents=True, exist_ok=True)
    marker = root / _INSTALLED_MARKER
    done = set(marker.read_text("utf-8").split()) if marker.is_file() else set()
    installed = []
    for sample in sorted(p for p in SAMPLES_DIR.iterdir() if (p / SKILL_FILE).is_file()):
        target = root / sample.name
        if sample.name not in done and not os.path.lexists(target):
            shutil.copytree(sample, target)
            installed.append(sample.name)
        done.add(sample.name)
    marker.write_text("\n".join(sorted(done)) + "\n", "utf-8")
    return installed


def _read_skill_file(root: Path, folder_name: str) -> str:
    """Open <root>/<folder>/SKILL.md refusing symbolic links at both steps."""
    folder_fd = os.open(root / folder_name, os.O_RDONLY | _DIRECTORY | _NOFOLLOW)
    try:
        # non-blocking: a FIFO named SKILL.md must not hang the open (refused just below)
        fd = os.open(SKILL_FILE, os.O_RDONLY | _NOFOLLOW | os.O_NONBLOCK, dir_fd=folder_fd)
    finally:
        os.close(folder_fd)
    with os.fdopen(fd, "rb") as handle:
        if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
            raise ValueError("not a regular file")
        data = handle.read(MAX_SKILL_BYTES + 1)
    if len(data) > MAX_SKILL_BYTES:
        raise ValueError(f"larger than {MAX_SKILL_BYTES // 1024} KiB")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ValueError("not UTF-8 text") from exc


def _front_matter(text: str) -> dict[str, object]:
    lines = text.splitlines()
    if not lines or lines[0].strip() != "---":
        raise ValueError(f"{SKILL_FILE} must start with YAML front matter between '---' lines")
    end = next((i for i, line in enumerate(lines[1:], 1) if line.strip() == "---"), None)
    if end is None:
        raise ValueError("the front matter has no closing '---' line")
    try:
        meta = yaml.safe_load("\n".join(lines[1:end]))
    except yaml.YAMLError as exc:
        raise ValueError(f"the front matter is not valid YAML: {_one_line(exc)}") from exc
    if not isinstance(meta, dict):
        raise ValueError("the front matter must be a YAML mapping")
    return meta


def _required_text(meta: dict[str, object], key: str, limit: int) -> str:
    value = meta.get(key)
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"the front matter needs a non-empty '{key}'")
    value = value.strip()
    if len(value) > limit:
        raise ValueError(f"'{key}' is longer than {limit} characters")
    return value


def _one_line(exc: Exception) -> str:
    return " ".join(str(exc).split())[:300] or type(exc).__name__
