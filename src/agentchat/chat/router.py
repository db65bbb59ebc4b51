"""HTTP routes of the chat: sessions, the message tree and export (thin: parse, call, return)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, BackgroundTasks, Query, Response, status

from agentchat.attachments import questions
from agentchat.chat import export as exporter
from agentchat.chat import sessions, tree
from agentchat.chat.agent_forget import ForgetAgentDep
from agentchat.chat.attachment_routes import archive_router
from agentchat.chat.attachment_routes import router as attachment_router
from agentchat.chat.deps import ChatSessionDep, OwnedMessageDep
from agentchat.chat.presenters import (
    message_publics,
    session_detail,
    session_page,
    session_publics,
    version_public,
)
from agentchat.chat.recent_tools import recent_tool_calls
from agentchat.chat.schemas import (
    DEFAULT_PAGE,
    MAX_PAGE,
    MAX_QUERY_CHARS,
    ActivateResult,
    EditResult,
    ExportBranch,
    ExportFormat,
    MessageEdit,
    MessagePage,
    SessionCreate,
    SessionCreated,
    SessionDetail,
    SessionPage,
    SessionPublic,
    SessionUpdate,
    StatusFilter,
    ToolCallPublic,
    VersionPublic,
)
from agentchat.core.deps import DbSession, SettingsDep
from agentchat.principal import PrincipalDep
from agentchat.protocol.camel import ERROR_RESPONSES

router = APIRouter(prefix="/api/chat", tags=["chat"], responses=ERROR_RESPONSES)

PageSize = Annotated[int, Query(ge=1, le=MAX_PAGE, description="Page size, 1 to 200")]


@router.post(
    "/sessions",
    status_code=status.HTTP_201_CREATED,
    operation_id="createChatSession",
)
def create_session(
    body: SessionCreate, db: DbSession, settings: SettingsDep, who: PrincipalDep
) -> SessionCreated:
    chat = sessions.create_session(db, body, settings.toolsets, who.owner_id)
    public = session_publics(db, [chat])[0]
    return SessionCreated(session_id=chat.id, session_uuid=chat.session_uuid, session=public)


@router.get("/sessions", operation_id="listChatSessions")
def list_sessions(
    db: DbSession,
    who: PrincipalDep,
    status: StatusFilter = "ACTIVE",
    q: Annotated[str | None, Query(max_length=MAX_QUERY_CHARS)] = None,
    limit: PageSize = DEFAULT_PAGE,
    cursor: Annotated[str | None, Query(max_length=512)] = None,
) -> SessionPage:
    """Sessions by last activity, newest first; `q` searches titles and messages."""
    return session_page(db, status, q, limit, cursor, who.owner_id)


@router.get("/sessions/{session_id}", operation_id="getChatSession")
def get_session(chat: ChatSessionDep, db: DbSession) -> SessionDetail:
    """The session and the last 50 messages of its active branch, oldest first."""
    return session_detail(db, chat)


@router.get("/sessions/{session_id}/messages", operation_id="listChatMessages")
def list_messages(
    chat: ChatSessionDep,
    db: DbSession,
    before: int | None = None,
    limit: PageSize = DEFAULT_PAGE,
) -> MessagePage:
    """Messages of the active branch (or of `before`'s branch, above it), oldest first."""
    messages = tree.active_branch(db, chat.id, limit=limit + 1, before=before)
    return MessagePage(
        messages=message_publics(db, messages[-limit:]), has_more=len(messages) > limit
    )


@router.get("/sessions/{session_id}/tool-calls", operation_id="listRecentToolCalls")
def list_tool_calls(
    chat: ChatSessionDep,
    db: DbSession,
    limit: Annotated[int, Query(ge=1, le=MAX_PAGE, description="At most, 1 to 200")] = 30,
) -> list[ToolCallPublic]:
    """Short-term memory: tool calls of the recent answers on the active branch, newest first."""
    return recent_tool_calls(db, chat.id, limit)


@router.patch("/sessions/{session_id}", operation_id="updateChatSession")
def update_session(
    chat: ChatSessionDep, body: SessionUpdate, db: DbSession, settings: SettingsDep
) -> SessionPublic:
    """Rename, switch model, skill or toolsets, archive (status ARCHIVED) or restore (ACTIVE)."""
    sessions.update_session(db, chat, body, settings.toolsets)
    return session_publics(db, [chat])[0]


@router.delete(
    "/sessions/{session_id}",
    status_code=status.HTTP_204_NO_CONTENT,
    operation_id="deleteChatSession",
)
def delete_session(
    chat: ChatSessionDep, db: DbSession, forget: ForgetAgentDep, after: BackgroundTasks
) -> Response:
    """Delete the session with its messages and logs (409 while a run is active); its
    agent's state and scratch folder go from the bridges once the deletion is stored."""
    hermes_session = sessions.delete_session(db, chat)
    if forget is not None and hermes_session:
        after.add_task(forget, hermes_session)
    return Response(status_code=status.HTTP_204_NO_CONTENT)


@router.get(
    "/sessions/{session_id}/export",
    operation_id="exportChatSession",
    response_class=Response,
    responses={200: {"content": {"text/markdown": {}, "application/json": {}}}},
)
def export_session(
    chat: ChatSessionDep,
    db: DbSession,
    format: ExportFormat = "md",
    branch: ExportBranch = "active",
) -> Response:
    """A file download: the active branch, or every branch as a tree (`branch=all`)."""
    file = exporter.export_session(db, chat, format, branch)
    headers = {"Content-Disposition": file.disposition}
    return Response(file.body, media_type=file.media_type, headers=headers)


@router.get("/messages/{message_id}/versions", operation_id="listMessageVersions")
def list_versions(message: OwnedMessageDep, db: DbSession) -> list[VersionPublic]:
    """Every version of the message (its siblings, itself included), by branchOrder."""
    return [version_public(m) for m in tree.siblings_of(db, message.id)]


@router.post("/messages/{message_id}/activate", operation_id="activateMessage")
def activate_message(message: OwnedMessageDep, db: DbSession) -> ActivateResult:
    """Show this version: it and its ancestors become active (409 while a run is active)."""
    message = tree.activate(db, message.id)
    return ActivateResult(active_message_id=message.id)


@router.patch("/messages/{message_id}", operation_id="editMessage")
def edit_message(
    message: OwnedMessageDep, body: MessageEdit, db: DbSession, settings: SettingsDep
) -> EditResult:
    """Edit a USER message into a new active version (no run starts; 422 for other roles).
    It keeps the edited one's attachments unless `attachmentIds` names others (or none)."""
    edited = tree.edit_user_message(db, message.id, body.content)
    kept = body.attachment_ids
    if kept is None:
        kept = questions.attachment_ids(db, message.id)
    questions.link(db, edited.session_id, edited.id, kept, settings.max_attachments)
    return EditResult(new_message_id=edited.id)


router.include_router(attachment_router)
router.include_router(archive_router)
