"""Re-attaching: a RUNNING answer nobody drives whose bridge still holds its run (the API
restarted; the turn went on in the bridge) gets a driver again, rebuilt from its rows. A run
whose driver lost the bus (Redis stalled or restarted) is put back on it the same way: its
events replayed from the bridge, published where the bus lacks them, none stored twice."""

from __future__ import annotations

import logging

from sqlalchemy.orm import Session

from agentchat.attachments import compose, questions
from agentchat.bridge_client.client import BridgeUnavailable
from agentchat.chat import tree
from agentchat.chat.sessions import get_session
from agentchat.chat.tables import ChatMessage, ChatSession
from agentchat.core.settings import Settings
from agentchat.mcp_servers import service as mcp_service
from agentchat.models.crypto import KeyCipher
from agentchat.models.service import resolve_model
from agentchat.models.wire import bridge_model, model_secrets
from agentchat.protocol.bridge_api import HeldRun
from agentchat.protocol.errors import AppError
from agentchat.protocol.status import RunStatus
from agentchat.runs import store
from agentchat.runs.context import ActiveRun, RunContext
from agentchat.runs.ports import Bridge, Bridges

log = logging.getLogger(__name__)


async def held_runs(bridges: Bridges) -> dict[str, tuple[Bridge, HeldRun]]:
    """Run id → the bridge that holds it and how it stands there, over every bridge that
    answers."""
    held: dict[str, tuple[Bridge, HeldRun]] = {}
    for client in bridges.candidates(""):
        try:
            runs = await client.runs()
        except BridgeUnavailable as exc:
            log.warning("bridge %s did not list its runs: %s", client.base_url, exc)
            continue
        for run in runs:
            held.setdefault(run.run_id, (client, run))
    return held


async def resend_stored_answer(ctx: RunContext, run_id: str, client: Bridge) -> None:
    """A run its bridge says is waiting while the answer to its last question is stored: the
    process that stored it died before sending it (answers are stored first, see
    `RunControl.resume`). It is sent again; a bridge waiting on a later question refuses it
    (409), and that question's request, replayed, asks the person."""
    stored = await ctx.in_thread(lambda db: store.undelivered_answer(db, run_id))
    if stored is None:
        return
    clarify_id, answer = stored
    try:
        await client.clarify(run_id, clarify_id, answer)
    except BridgeUnavailable as exc:
        log.info("run %s: the stored answer to %s was not taken (%s)", run_id, clarify_id, exc)
        return
    log.warning("run %s: sent the stored answer to %s again after a restart", run_id, clarify_id)


async def open_on_bus(ctx: RunContext, run: ActiveRun) -> None:
    """The bus replays the run's events with the ids the page saw: a bus that kept them
    (Redis) is not given them twice; one that lost them gets them again from the bridge
    (bridge event N is the run's event N on the bus)."""
    plan = run.plan
    if await ctx.bus.is_known(run.run_id):
        run.published_upto = len(await ctx.bus.history(run.run_id))
    else:
        meta = {"sessionId": plan.session_id, "messageId": plan.message_id}
        await ctx.bus.register(run.run_id, meta)
        run.published_upto = 0


def replay_from_start(run: ActiveRun) -> None:
    """Follow the run again from its first bridge event: what was handled is stored (or in
    the log writer's batch), so the replay only rebuilds the text and publishes."""
    run.stored_upto = max(run.stored_upto, run.event_id)
    run.event_id = 0
    run.seq = 0
    run.answer = []
    run.bus_lost = False


def load_run(db: Session, run_id: str, settings: Settings) -> ActiveRun | None:
    """The run as its first driver had it, from its rows; None once it is not RUNNING."""
    message = store.message_for_run(db, run_id)
    if message.status != RunStatus.RUNNING or message.parent_id is None:
        return None
    user = tree.get_message(db, message.parent_id)
    chat = get_session(db, message.session_id)
    # The question as the agent received it: its attachments were settled by the first run
    items = questions.items_of(db, [user.id]).get(user.id, [])
    plan = store.RunPlan(
        run_id=run_id,
        session_id=message.session_id,
        message_id=message.id,
        user_message_id=user.id,
        user_text=user.content,
        history=[],
        hermes_session=chat.hermes_session or "",
        model_id=message.model_id,
        skill_folder=message.skill_folder,
        user_content=compose.content(user.content, items) if items else None,
        deliveries=tuple(str(item.delivery) for item in items),
    )
    secrets = _model_secrets(db, message, settings) + _mcp_secrets(db, chat, settings)
    run = ActiveRun(plan=plan, request=None, secrets=secrets)
    run.stored_upto = message.bridge_event_id or 0
    run.summary_message_id = store.summary_of(db, message.id)
    return run


def _mcp_secrets(db: Session, chat: ChatSession, settings: Settings) -> tuple[str, ...]:
    """The secrets of the MCP servers the chat uses now (as the run was sent them, unless a
    server changed since): scrubbed too."""
    setup = mcp_service.run_setup(db, KeyCipher.for_settings(settings), chat.mcp_off, None)
    return tuple(mcp_service.setup_secrets(setup))


def _model_secrets(db: Session, message: ChatMessage, settings: Settings) -> tuple[str, ...]:
    """The keys of the model the run was sent with: scrubbed from what it publishes."""
    try:
        return model_secrets(bridge_model(resolve_model(db, message.model_id, settings)))
    except AppError:
        return ()
