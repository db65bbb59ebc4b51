"""A `bridge` fixture of a module's (or a folder's) own, for tests that need a bridge with
other settings than the worker's shared one (tests/support/worker_stack.py): a toolset, a
short timeout, a pool size, skills in its skills directory. Declared in one line, e.g.

    bridge = own_bridge(AGENTCHAT_AGENT_TOOLSETS="todo,file")
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, Literal

import pytest

from tests.support.servers import BridgeProcess, start_bridge

Scope = Literal["function", "module", "package"]


def own_bridge(
    *,
    scope: Scope = "module",
    name: str = "bridge",
    secret: str | None = "auto",
    skills: dict[str, str] | None = None,
    prepare: Callable[[Path], object] | None = None,
    **env: str,
) -> Any:
    """A fixture called `name` that starts `agentchat bridge` with `env` for the `scope` (and
    stops it after); `skills`: SKILL.md texts by skill name, written to its skills directory
    (ROOT/skills) before it starts; `prepare(ROOT)`: anything else there before it starts;
    `secret` as `start_bridge` takes it."""

    @pytest.fixture(scope=scope, name=name)
    def bridge(tmp_path_factory: pytest.TempPathFactory) -> Iterator[BridgeProcess]:
        root = tmp_path_factory.mktemp(name)
        for skill, text in (skills or {}).items():
            (root / "skills" / skill).mkdir(parents=True)
            (root / "skills" / skill / "SKILL.md").write_text(text, encoding="utf-8")
        if prepare is not None:
            prepare(root)
        process = start_bridge(root, secret=secret, **env)
        yield process
        process.stop()

    return bridge
