"""Who sees and who changes which model. A shared model (no owner: the administrator's) is
offered to everyone, who may pick it but not see its key or change it; a private model is its
owner's alone. Without accounts the one person sees and changes every model."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Select, or_, select
from sqlalchemy.orm import Session

from agentchat.models.tables import AiModelConfig
from agentchat.principal import AdminOnly, Principal
from agentchat.protocol.errors import NotFound


def visible_to(stmt: Select[Any], owner_id: int | None) -> Select[Any]:
    """`stmt` over AiModelConfig narrowed to the shared models and `owner_id`'s own."""
    if owner_id is None:
        return stmt
    return stmt.where(or_(AiModelConfig.owner_id.is_(None), AiModelConfig.owner_id == owner_id))


def usable(db: Session, model_id: int, owner_id: int | None) -> AiModelConfig | None:
    """The model if the chats of `owner_id` may run on it."""
    stmt = visible_to(select(AiModelConfig).where(AiModelConfig.id == model_id), owner_id)
    return db.scalar(stmt)


def get_visible(db: Session, model_id: int, who: Principal) -> AiModelConfig:
    row = usable(db, model_id, who.owner_id)
    if row is None:
        raise NotFound(f"Model {model_id} not found")
    return row


def get_editable(db: Session, model_id: int, who: Principal) -> AiModelConfig:
    """A model `who` may change: their own, or a shared one for an administrator (403
    `admin_only` for another person: they see it, so 404 would not hide it)."""
    row = get_visible(db, model_id, who)
    if row.owner_id is None and not who.is_admin:
        raise AdminOnly("Only an administrator may change a shared model.")
    return row


def owner_for_new(who: Principal) -> int | None:
    """An administrator's new model is shared; another person's is their own."""
    return None if who.is_admin else who.owner_id
