from __future__ import annotations

from pathlib import Path

import pytest

from agentchat.core.settings import Settings

VALID = "---\nname: {name}\ndescription: Does {name} things\n---\n# {name}\n\nBody text.\n"


def write_skill(root: Path, folder: str, text: str | bytes) -> Path:
    path = root / folder / "SKILL.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, "utf-8")
    return path


@pytest.fixture
def skills_dir(settings: Settings) -> Path:
    root = settings.resolved_skills_dir
    root.mkdir(parents=True)
    return root
