"""Token usage per person, per model, per day (UTC), from the usage stored with each answer
(`chat_message.usage_json`, as runs.usage writes it: counters absent when 0).

What a deleted chat used goes with it: the usage is stored on its answers."""

from __future__ import annotations

import json
from collections import defaultdict
from datetime import datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from agentchat.accounts.schemas import UsageRow
from agentchat.accounts.tables import AppUser
from agentchat.chat.tables import ChatMessage, ChatSession
from agentchat.models.tables import AiModelConfig

Key = tuple[int, str, int | None]  # (user, day, model)
COUNTERS = ("promptTokens", "completionTokens", "totalTokens")


def usage_table(db: Session, since: datetime, until: datetime) -> list[UsageRow]:
    """One row per person, day and model with stored usage between `since` and `until`."""
    stmt = (
        select(
            ChatSession.owner_id,
            ChatMessage.created_at,
            ChatMessage.model_id,
            ChatMessage.usage_json,
        )
        .join(ChatSession, ChatSession.id == ChatMessage.session_id)
        .where(
            ChatSession.owner_id.is_not(None),
            ChatMessage.role == "ASSISTANT",
            ChatMessage.usage_json.is_not(None),
            ChatMessage.created_at >= since,
            ChatMessage.created_at < until,
        )
    )
    sums: dict[Key, list[int]] = defaultdict(lambda: [0, 0, 0, 0])
    for owner_id, at, model_id, raw in db.execute(stmt):
        counts = sums[(int(owner_id or 0), at.date().isoformat(), model_id)]
        counts[0] += 1
        for i, value in enumerate(_counters(raw)):
            counts[i + 1] += value
    names = dict(db.execute(select(AppUser.id, AppUser.username)).all())
    models = dict(db.execute(select(AiModelConfig.id, AiModelConfig.name)).all())
    return [
        UsageRow(
            user_id=user_id,
            username=names.get(user_id, ""),
            day=day,
            model_id=model_id,
            model_name=models.get(model_id) if model_id is not None else None,
            turns=counts[0],
            prompt_tokens=counts[1],
            completion_tokens=counts[2],
            total_tokens=counts[3],
        )
        for (user_id, day, model_id), counts in sorted(sums.items(), key=_order)
    ]


def _order(item: tuple[Key, list[int]]) -> tuple[str, int, int]:
    (user_id, day, model_id), _ = item
    return (day, user_id, model_id or 0)


def _counters(raw: str | None) -> list[int]:
    try:
        usage: Any = json.loads(raw or "{}")
    except ValueError:
        return [0, 0, 0]
    if not isinstance(usage, dict):
        return [0, 0, 0]
    return [_count(usage.get(key)) for key in COUNTERS]


def _count(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return 0
    return max(int(value), 0)
