"""JSON of the skill registry."""

from __future__ import annotations

from agentchat.core.schemas import CamelModel
from agentchat.skills.service import Skill


class SkillSummary(CamelModel):
    folder_name: str
    name: str
    description: str
    error: str | None = None
    agent_made: bool = False

    @classmethod
    def of(cls, skill: Skill) -> SkillSummary:
        return cls(
            folder_name=skill.folder_name,
            name=skill.name,
            description=skill.description,
            error=skill.error,
            agent_made=skill.agent_made,
        )


class SkillDetail(SkillSummary):
    content: str

    @classmethod
    def of(cls, skill: Skill) -> SkillDetail:
        return cls(**SkillSummary.of(skill).model_dump(), content=skill.content)
