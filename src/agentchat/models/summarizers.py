"""Which model may write a chat's summaries (hermes' context compression).

A model marked "can write summaries" may be chosen, by a chat that may use it, when its context
window is at least the chat's model's: a smaller summariser cannot read the part of the
conversation hermes hands it, and hermes then drops the middle of the conversation without a
summary. A choice that has become too small since (the chat moved to a larger model) is not
used: the chat's own model writes its summaries.
"""

from __future__ import annotations

from sqlalchemy.orm import Session

from agentchat.core.settings import Settings
from agentchat.models.access import usable
from agentchat.models.service import ResolvedModel, default_row, resolve_model
from agentchat.models.tables import AiModelConfig
from agentchat.protocol.errors import Invalid


class SummarizerRefused(Invalid):
    """422: the chosen model may not write this chat's summaries (the reason says why)."""

    code = "summarizer_refused"


def check_summarizer(
    db: Session, summarizer_id: int, chat_model_id: int | None, owner_id: int | None
) -> None:
    problem = summarizer_problem(db, summarizer_id, chat_model_id, owner_id)
    if problem:
        raise SummarizerRefused(f"compressionModelId: {problem}")


def summarizer_problem(
    db: Session, summarizer_id: int, chat_model_id: int | None, owner_id: int | None
) -> str | None:
    row = usable(db, summarizer_id, owner_id)
    if row is None:
        return f"model {summarizer_id} does not exist"
    if not row.can_summarize:
        return f"{row.name} is not marked as able to write summaries (the Models page)"
    chat_model = _chat_model(db, chat_model_id, owner_id)
    if chat_model is not None and row.context_length < chat_model.context_length:
        return (
            f"{row.name} has a context window of {row.context_length:,} tokens, smaller than "
            f"the {chat_model.context_length:,} of this chat's model {chat_model.name}: it "
            "could not read what it has to summarise"
        )
    return None


def summarizer_for(
    db: Session,
    summarizer_id: int | None,
    chat_model: ResolvedModel,
    owner_id: int | None,
    settings: Settings,
    scripted_url: str | None = None,
) -> ResolvedModel | None:
    """The model a run's summaries go to; None: the chat's own."""
    if summarizer_id is None or summarizer_id == chat_model.id:
        return None
    if summarizer_problem(db, summarizer_id, chat_model.id, owner_id):
        return None
    return resolve_model(db, summarizer_id, settings, owner_id=owner_id, scripted_url=scripted_url)


def _chat_model(db: Session, model_id: int | None, owner_id: int | None) -> AiModelConfig | None:
    row = usable(db, model_id, owner_id) if model_id is not None else None
    return row or default_row(db)
