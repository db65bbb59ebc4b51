"""JSON of attachments."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

from pydantic import PlainSerializer

from agentchat.attachments.kinds import Delivery, Kind
from agentchat.core.clock import iso
from agentchat.protocol.camel import CamelModel

Moment = Annotated[datetime, PlainSerializer(iso, return_type=str)]


class AttachmentPublic(CamelModel):
    """A file of a chat. Its bytes: `GET /api/chat/sessions/{sessionId}/attachments/{id}`
    (always a download); an image's small preview: `…/{id}/thumbnail`."""

    id: int
    session_id: int
    name: str
    kind: Kind
    media_type: str
    size: int
    digest: str
    width: int | None
    height: int | None
    text_chars: int | None
    has_thumbnail: bool
    created_at: Moment


class MessageAttachmentPublic(AttachmentPublic):
    """An attachment as its question carries it: `delivery` says how it reached the agent
    (null until the question's first run): as an image it sees, its whole text in the
    question, the beginning of its text (the agent had no file tools), or in the chat's
    workspace for the agent's file tools."""

    delivery: Delivery | None
