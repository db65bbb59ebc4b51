"""HTTP routes of the skill registry (thin: parse, call the service, return)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends

from agentchat.core.deps import SettingsDep
from agentchat.principal import PrincipalDep
from agentchat.protocol.camel import ERROR_RESPONSES
from agentchat.skills.schemas import SkillDetail, SkillSummary
from agentchat.skills.service import SkillRegistry, registry_for

router = APIRouter(prefix="/api/skills", tags=["skills"], responses=ERROR_RESPONSES)


def get_registry(settings: SettingsDep, who: PrincipalDep) -> SkillRegistry:
    """The skills of the person asking: the shared ones and those their own agent made."""
    return registry_for(settings, who.agent_key)


RegistryDep = Annotated[SkillRegistry, Depends(get_registry)]


@router.get("", operation_id="listSkills", response_model_exclude_none=True)
def list_skills(registry: RegistryDep) -> list[SkillSummary]:
    """Every skill folder; one with broken front matter carries `error` instead of failing."""
    return [SkillSummary.of(skill) for skill in registry.skills()]


@router.get("/{folder_name}", operation_id="getSkill", response_model_exclude_none=True)
def get_skill(folder_name: str, registry: RegistryDep) -> SkillDetail:
    """One skill with its full SKILL.md text."""
    return SkillDetail.of(registry.get(folder_name))
