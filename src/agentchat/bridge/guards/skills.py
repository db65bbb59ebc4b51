"""Keep the agent's skill tools inside their folders. Imported only after hermes-agent.

- a read-only `skills` toolset (skills_list, skill_view) for the default agent;
- hermes finds a skill file (SKILL.md, DESCRIPTION.md) only where its real path lies inside the
  skills folder it was found in: one that links out (a cloned skill can carry such a link) is
  in no list, no system prompt's skill index and no preload;
- skill_view answers only for a skill folder (hermes' flat `<name>.md` skills are not ours)
  whose real folder and SKILL.md lie inside a skills folder, and for files inside that folder;
  preloading goes through the same check (it calls skill_view itself);
- skill_manage (only with skill management enabled) changes only skills in the hermes home.
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from agentchat.bridge.guards.request_policy import READ_ONLY_SKILLS
from agentchat.bridge.guards.tool_wrap import Handler, wrap_tools

log = logging.getLogger(__name__)

_CHANGING_ACTIONS = {"edit", "patch", "delete", "write_file", "remove_file"}


def install() -> None:
    """Register the read-only toolset and wrap the skill lookups and the two skill tools'
    handlers (idempotent)."""
    import agent.prompt_builder as prompt_builder
    import agent.skill_utils as skill_utils
    import tools.skills_tool as skills_tool
    from toolsets import create_custom_toolset

    create_custom_toolset(
        READ_ONLY_SKILLS,
        "List and read skill documents (read-only)",
        tools=["skills_list", "skill_view"],
    )
    if not getattr(skill_utils.iter_skill_index_files, "_agentchat_guarded", False):
        inside_only = _files_inside(skill_utils.iter_skill_index_files)
        for module in (skill_utils, prompt_builder):  # the prompt builder imported it by name
            module.iter_skill_index_files = inside_only
    if not getattr(skills_tool.skill_view, "_agentchat_guarded", False):
        skills_tool.skill_view = _guarded_view_function(skills_tool.skill_view)  # preloads
    _wrap("skill_view", _guard_view)
    _wrap("skill_manage", _guard_manage)


def _files_inside(original: Callable[[Path, str], Iterator[Path]]) -> Callable[..., Any]:
    def inside_only(skills_dir: Path, filename: str) -> Iterator[Path]:
        root = [Path(os.path.realpath(skills_dir))]
        for path in original(skills_dir, filename):
            if _inside(path, root):
                yield path
            else:
                log.warning("skill file %s is left out: it leaves the skills folder", path)

    inside_only._agentchat_guarded = True  # type: ignore[attr-defined]
    return inside_only


def _guarded_view_function(original: Handler) -> Handler:
    def skill_view(name: str, file_path: str | None = None, **kw: Any) -> Any:
        args = {"name": name, "file_path": file_path}
        return _guard_view(lambda _args, **_kw: original(name, file_path, **kw), args, {})

    skill_view._agentchat_guarded = True  # type: ignore[attr-defined]
    return skill_view


def _wrap(name: str, guard: Callable[[Handler, dict[str, Any], Any], Any]) -> None:
    def wrapper(original: Handler) -> Handler:
        def guarded(args: dict[str, Any], **kw: Any) -> Any:
            return guard(original, args or {}, kw)

        return guarded

    wrap_tools((name,), wrapper, "_agentchat_guarded")


def _refusal(message: str) -> str:
    return json.dumps({"success": False, "error": message})


def _roots() -> list[Path]:
    from agent.skill_utils import get_all_skills_dirs

    return [Path(os.path.realpath(root)) for root in get_all_skills_dirs()]


def _home_skills() -> Path:
    from agent.skill_utils import get_skills_dir

    return Path(os.path.realpath(get_skills_dir()))


def _inside(path: str | Path, roots: list[Path]) -> bool:
    real = Path(os.path.realpath(path))
    return any(real == root or real.is_relative_to(root) for root in roots)


def _guard_view(original: Handler, args: dict[str, Any], kw: Any) -> Any:
    result = original(args, **kw)
    try:
        payload = json.loads(result) if isinstance(result, str) else None
    except ValueError:
        return result
    if not isinstance(payload, dict) or payload.get("success") is False:
        return result
    if not payload.get("skill_dir"):
        return _refusal("only skills in a folder of their own (<name>/SKILL.md) can be read")
    skill_dir = str(payload["skill_dir"])
    if not _inside(skill_dir, _roots()):
        log.warning("skill_view refused %s: it leaves the skills folders", skill_dir)
        return _refusal("this skill's folder is a link that leaves the skills folder")
    if not _inside(Path(skill_dir) / "SKILL.md", [Path(os.path.realpath(skill_dir))]):
        log.warning("skill_view refused %s: its SKILL.md leaves the folder", skill_dir)
        return _refusal("this skill's SKILL.md is a link that leaves the skill's folder")
    file_path = args.get("file_path")
    if file_path and not _inside(Path(skill_dir) / str(file_path), [Path(skill_dir).resolve()]):
        return _refusal("this file is a link that leaves the skill's folder")
    return result


def _guard_manage(original: Handler, args: dict[str, Any], kw: Any) -> Any:
    action = str(args.get("action") or "")
    if action in _CHANGING_ACTIONS:
        for name in (args.get("name"), args.get("absorbed_into")):
            problem = _not_agent_owned(str(name)) if name else None
            if problem:
                return _refusal(problem)
    return original(args, **kw)


def _not_agent_owned(name: str) -> str | None:
    from tools.skill_manager_tool import _find_skill

    found = _find_skill(name)
    if found is None:
        return None  # hermes answers "not found" itself
    if _inside(found["path"], [_home_skills()]) and not Path(found["path"]).is_symlink():
        return None
    return (
        f"skill {name!r} belongs to the user and is read-only to the agent; "
        "the agent may only change skills it created"
    )
