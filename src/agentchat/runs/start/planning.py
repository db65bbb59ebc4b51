"""A new run's rows and its bridge request, in the transaction that creates it."""

from __future__ import annotations

from typing import Any

from sqlalchemy.orm import Session

from agentchat.attachments import compose, questions
from agentchat.chat import tree
from agentchat.chat.enums import MessageRole
from agentchat.chat.sessions import get_session
from agentchat.chat.tables import ChatMessage, ChatSession
from agentchat.core.settings import Settings
from agentchat.mcp_servers import service as mcp_service
from agentchat.models.crypto import KeyCipher
from agentchat.models.service import ResolvedModel, resolve_model
from agentchat.models.summarizers import summarizer_for
from agentchat.models.wire import bridge_model, model_secrets
from agentchat.principal import agent_key
from agentchat.protocol.bridge_api import ModelHosts, RunRequest
from agentchat.protocol.errors import AppError, Conflict, Invalid
from agentchat.protocol.status import RunStatus
from agentchat.protocol.toolsets import narrow, within
from agentchat.protocol.workspace_files import WorkspaceFile
from agentchat.runs import store
from agentchat.runs.context import ActiveRun, new_hermes_session
from agentchat.runs.schemas import RunStart
from agentchat.runtime import Runtime
from agentchat.skills.service import registry_for

DEFAULT_MAX_ITERATIONS = 50
FILE_TOOLS = "file"  # the hermes toolset whose tools read a workspace's files


class RunPlanner:
    def __init__(self, settings: Settings, runtime: Runtime) -> None:
        """`runtime`: its scripted model is the built-in demo model's endpoint here."""
        self.settings = settings
        self.runtime = runtime

    def create(
        self,
        db: Session,
        session_id: int,
        body: RunStart,
        assistant_sibling_of: int | None,
        run_id: str,
    ) -> ActiveRun:
        """The USER message (unless it is answered again) and the RUNNING answer of a run."""
        chat = get_session(db, session_id, lock=True)
        if chat.status != "ACTIVE":
            raise Conflict(f"chat session {session_id} is archived; restore it to continue")
        waiting = self.settings.max_waiting_runs
        store.ensure_can_start(db, session_id, self.settings.max_active_runs, waiting)
        if chat.owner_id is not None:
            per_user = self.settings.max_active_runs_per_user
            store.ensure_owner_can_start(db, chat.owner_id, per_user, waiting)
        strict = body.model_id is not None and assistant_sibling_of is None  # a modelId sent
        model = resolve_model(
            db,
            body.model_id or chat.model_id,
            self.settings,
            strict=strict,
            owner_id=chat.owner_id,
            scripted_url=self.runtime.scripted_url,
        )
        skill_folder = body.skill_folder if body.skill_folder is not None else chat.skill_folder
        fields = {"model_id": model.id, "skill_folder": skill_folder or None}
        if body.model_id is not None:
            chat.model_id = body.model_id
        if body.skill_folder is not None:
            chat.skill_folder = body.skill_folder or None
        if not chat.hermes_session:
            chat.hermes_session = new_hermes_session()
        if assistant_sibling_of is None:
            user = self._question(db, session_id, body, fields)
            assistant = tree.append_message(
                db,
                session_id,
                user.id,
                MessageRole.ASSISTANT,
                "",
                RunStatus.RUNNING,
                run_id=run_id,
                **fields,
            )
        else:
            assistant = tree.new_sibling(
                db, assistant_sibling_of, "", RunStatus.RUNNING, run_id=run_id, **fields
            )
            user = tree.get_message(db, assistant.parent_id or 0)
        toolsets = self.toolsets(body.toolsets, chat.toolsets)
        items = questions.settle(db, user.id, model.sees_images, FILE_TOOLS in toolsets)
        history, earlier_files = store.branch_history(db, session_id, user)
        plan = store.RunPlan(
            run_id=run_id,
            session_id=session_id,
            message_id=assistant.id,
            user_message_id=user.id,
            user_text=user.content,
            history=history,
            hermes_session=chat.hermes_session,
            model_id=model.id,
            skill_folder=skill_folder or None,
            user_content=compose.content(user.content, items) if items else None,
            deliveries=tuple(str(item.delivery) for item in items),
        )
        # The skill is read from its files after the transaction (`skills`): no file I/O
        # while the run's rows hold a database lock.
        request = self.bridge_request(plan, model, body.max_iterations, toolsets, chat.approvals)
        request.files = _unique([*compose.files_of(items), *earlier_files])
        request.user_id = agent_key(chat.owner_id)
        secrets = self.reach(db, request, chat, model, body.mcp_servers)
        return ActiveRun(plan=plan, request=request, secrets=secrets)

    def _question(
        self, db: Session, session_id: int, body: RunStart, fields: dict[str, Any]
    ) -> ChatMessage:
        """The question a new run answers, with the attachments it carries linked."""
        ids = body.attachment_ids or []
        user = store.user_message_for(
            db, session_id, body.message, body.parent_message_id, fields, may_be_empty=bool(ids)
        )
        if ids:
            if user.id == body.parent_message_id:
                raise Invalid(
                    "attachmentIds: an edited question carries the attachments its edit kept"
                )
            questions.link(db, session_id, user.id, ids, self.settings.max_attachments)
        return user

    def reach(
        self,
        db: Session,
        request: RunRequest,
        chat: ChatSession,
        model: ResolvedModel,
        mcp_servers: list[str] | None,
    ) -> tuple[str, ...]:
        """The run's MCP servers and the model that writes its summaries, on the request; the
        secrets they carry (with the model's keys) are scrubbed from what the run shows."""
        cipher = KeyCipher.for_settings(self.settings)
        request.mcp = mcp_service.run_setup(db, cipher, chat.mcp_off, mcp_servers)
        writer = summarizer_for(
            db,
            chat.compression_model_id,
            model,
            chat.owner_id,
            self.settings,
            self.runtime.scripted_url,
        )
        secrets = list(model_secrets(request.model))
        if writer is not None:
            request.compression_model = bridge_model(writer)
            secrets += model_secrets(request.compression_model)
        secrets += mcp_service.setup_secrets(request.mcp)
        return tuple(dict.fromkeys(secrets))

    def create_regenerate(self, db: Session, message_id: int, run_id: str) -> ActiveRun:
        """A new sibling of an answer, asked the same question with the answer's model."""
        original = tree.get_message(db, message_id)
        if original.role != MessageRole.ASSISTANT or original.parent_id is None:
            raise Conflict(f"message {message_id} is not an answer; only answers regenerate")
        if original.status == RunStatus.RUNNING:
            raise Conflict(f"message {message_id} is still running; stop it first")
        parent = tree.get_message(db, original.parent_id)
        if parent.role != MessageRole.USER:
            raise Conflict(f"message {message_id} does not answer a user message")
        body = RunStart(model_id=original.model_id, skill_folder=original.skill_folder)
        return self.create(db, original.session_id, body, message_id, run_id)

    def skill_names(
        self, skill_folder: str | None, strict: bool = True, person: str | None = None
    ) -> list[str]:
        """The chosen skill's name for hermes to preload, read from its files (never under a
        database lock), among the skills of `person` (the chat owner's agent key). `strict`:
        an unknown or unreadable skill is an error (a skill chosen now), else it is left out
        (a skill stored with the chat that has since been removed)."""
        if not skill_folder:
            return []
        try:
            skill = registry_for(self.settings, person).get(skill_folder)
            if not skill.content:  # its SKILL.md cannot be read: a link, not a file, too large
                raise Invalid(f"skill {skill_folder!r} cannot be used: {skill.error}")
            return [skill.name]
        except AppError:
            if strict:
                raise
            return []

    def toolsets(self, for_run: list[str] | None, of_chat: list[str] | None) -> list[str]:
        """The server's toolsets narrowed to those the run asks for (422 names any beyond them),
        else to the chat's own choice as far as the server still enables it."""
        allowed = self.settings.toolsets
        if for_run is not None:
            return narrow(allowed, for_run)
        return within(allowed, of_chat)

    def bridge_request(
        self,
        plan: store.RunPlan,
        model: ResolvedModel,
        max_iterations: int | None,
        toolsets: list[str],
        approvals: list[str],
    ) -> RunRequest:
        return RunRequest(
            run_id=plan.run_id,
            session_id=plan.hermes_session,
            skills=[],  # filled by the launcher after the transaction (hermes preloads them)
            user_message=plan.question,
            history=plan.history,
            model=bridge_model(model),
            max_iterations=max_iterations or DEFAULT_MAX_ITERATIONS,
            toolsets=toolsets,
            approvals=approvals,
            # The bridge's agent connects to the model hosts only where these lists allow.
            model_hosts=ModelHosts(
                allow=self.settings.model_hosts_allow, deny=self.settings.model_hosts_deny
            ),
        )


def _unique(files: list[WorkspaceFile]) -> list[WorkspaceFile]:
    return list({file.path: file for file in files}.values())
