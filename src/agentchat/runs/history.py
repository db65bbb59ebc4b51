"""The agent's memory of a conversation, rebuilt from the branch being extended.

hermes-agent keeps no conversation between calls, so every run sends the history of its branch:
the latest compacted history on the branch (stored with a SYSTEM/SUMMARY message) plus the
agent messages stored with each assistant turn after it. A RESET divider starts afresh.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any, Protocol

from agentchat.chat.enums import MessageRole, MessageStatus
from agentchat.protocol.status import RunStatus

# A question as the agent receives it: its text, or content parts when it carries images.
Question = str | list[dict[str, Any]]


class BranchMessage(Protocol):
    id: int
    role: str
    status: str
    content: str
    agent_messages: str | None


def _loads(raw: str | None) -> list[dict[str, Any]] | None:
    if not raw:
        return None
    value = json.loads(raw)
    return value if isinstance(value, list) else None


# A turn's first message is the user's question and its last the answer, which the message
# rows already hold: stored turns point at them instead of repeating the text.
USER_REF = {"role": "user", "$ref": "question"}
ANSWER_REF = "answer"
# hermes' keys on an answer that say nothing the rebuilt turn lacks (no reasoning, a normal end)
_SILENT_KEYS = {"reasoning": (None, ""), "finish_reason": ("stop",)}


def compact_turn(
    messages: list[dict[str, Any]], question: Question, answer: str
) -> list[dict[str, Any]]:
    """The turn as stored: the question and the final answer replaced by references; empty
    when that is all it holds."""
    turn = list(messages)
    if turn and turn[0] == {"role": "user", "content": question}:
        turn[0] = dict(USER_REF)
    last = turn[-1] if turn else None
    if last and last.get("role") == "assistant" and last.get("content") == answer and answer:
        turn[-1] = {k: v for k, v in last.items() if k != "content"} | {"$ref": ANSWER_REF}
    return [] if _plain(turn) else turn


def _plain(turn: list[dict[str, Any]]) -> bool:
    """Nothing but the question and the answer: not stored at all, since the history rebuilds
    it from the two rows (`_turn_as_shown`)."""
    if len(turn) != 2 or turn[0] != USER_REF:
        return False
    answer = turn[1]
    rest = {k: v for k, v in answer.items() if k not in ("role", "$ref")}
    return (
        answer.get("role") == "assistant"
        and answer.get("$ref") == ANSWER_REF
        and all(k in _SILENT_KEYS and v in _SILENT_KEYS[k] for k, v in rest.items())
    )


def expand_turn(
    turn: list[dict[str, Any]], question: Question, answer: str
) -> list[dict[str, Any]]:
    """The stored turn with its references filled in again."""
    out = []
    for item in turn:
        ref = item.get("$ref")
        if ref is None:
            out.append(item)
        else:
            text = question if ref == "question" else answer
            out.append({k: v for k, v in item.items() if k != "$ref"} | {"content": text})
    return out


def history_for(
    branch: Iterable[BranchMessage], questions: Mapping[int, Question] | None = None
) -> list[dict[str, Any]]:
    """History to send for a run that extends `branch` (oldest first, ending before the new
    user message). `questions`: a question with attachments as the agent received it, by
    message id (attachments.compose); others are their text."""
    history: list[dict[str, Any]] = []
    pending_user: dict[str, Any] | None = None
    question: Question = ""
    composed = questions or {}
    for message in branch:
        if message.role == MessageRole.SYSTEM:
            if message.status == MessageStatus.RESET:
                history, pending_user = [], None
            elif message.status == MessageStatus.SUMMARY:
                compacted = _loads(message.agent_messages)
                if compacted is not None:
                    history, pending_user = compacted, None
        elif message.role == MessageRole.USER:
            # A question with no answer under it (an edit whose run never started) is left
            # out: the agent never saw it, and hermes merges two user messages in a row.
            question = composed.get(message.id, message.content) if composed else message.content
            pending_user = {"role": "user", "content": question}
        elif message.role == MessageRole.ASSISTANT:
            history.extend(_turn_as_shown(message, pending_user, question))
            pending_user = None
    return history


def _turn_as_shown(
    message: BranchMessage, pending_user: dict[str, Any] | None, question: Question
) -> list[dict[str, Any]]:
    """What the page shows of one assistant turn, as agent messages.

    A turn that failed or was stopped with nothing said is left out whole: the agent never
    answered it, and two user messages in a row get merged into one by hermes (the old question
    would then come back with every later one). One that ended early with some text keeps the
    question and that text, ending on the assistant's words."""
    turn = _loads(message.agent_messages)
    if message.status == RunStatus.SUCCESS and turn:
        return expand_turn(turn, question, message.content)
    if not message.content:
        return []
    if turn:
        expanded = expand_turn(turn, question, message.content)
        last = expanded[-1]
        if last.get("role") == "assistant" and last.get("content") == message.content:
            return expanded
    user = [pending_user] if pending_user is not None else []
    return [*user, {"role": "assistant", "content": message.content}]
