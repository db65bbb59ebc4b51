"""JSON of the skill registry."""

from __future__ import annotations

from pydantic import ConfigDict

from agentchat.protocol.camel import CamelModel
from agentchat.skills.service import Skill


class SkillSummary(CamelModel):
    # Left out of the JSON when there is none (the route excludes None): optional in the document.
    model_config = CamelModel.model_config | ConfigDict(
        json_schema_serialization_defaults_required=False
    )

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
