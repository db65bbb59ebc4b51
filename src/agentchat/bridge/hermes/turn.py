"""One agent turn, run synchronously on a worker thread: pool → hermes → RunEnd."""

from __future__ import annotations

import hashlib
import json
import logging
from typing import Any

from agentchat.bridge.guards import approval, request_policy
from agentchat.bridge.guards import files as file_guard
from agentchat.bridge.guards import hosts as host_guard
from agentchat.bridge.hermes import (
    agents,
    continuations,
    non_answers,
    people,
    silence,
    stall_usage,
    summarizer,
    summary_usage,
)
from agentchat.bridge.hermes.agents import AgentSlot, ModelSpec
from agentchat.bridge.hermes.attachments import TurnImages
from agentchat.bridge.hermes.pool import AgentPool, pool_key
from agentchat.bridge.hermes.translate import TurnTranslator
from agentchat.bridge.live.registry import RunHandle
from agentchat.bridge.mcp import gate as mcp_gate
from agentchat.bridge.mcp.connections import McpConnections, Prepared
from agentchat.bridge.mcp.media import cache_roots, media_of
from agentchat.bridge.server import files as workspace_files
from agentchat.bridge.settings import BridgeSettings
from agentchat.protocol.bridge_api import ModelConfig, RunRequest
from agentchat.protocol.context_length import MIN_CONTEXT_LENGTH
from agentchat.protocol.errors import Invalid
from agentchat.protocol.events import RunEnd, Status
from agentchat.protocol.host_policy import HostPolicy
from agentchat.protocol.status import RunStatus
from agentchat.protocol.usage import Usage

log = logging.getLogger(__name__)

# hermes' counters of an agent, named `session_<field>` after our usage fields.
_HERMES_COUNTED = (
    "prompt_tokens",
    "completion_tokens",
    "total_tokens",
    "input_tokens",
    "output_tokens",
    "cache_read_tokens",
    "cache_write_tokens",
    "reasoning_tokens",
    "api_calls",
)
_LOCK_POLL_S = 0.2


def clean_message(message: dict[str, Any]) -> dict[str, Any]:
    """A JSON-safe copy without hermes' in-process keys (_db_persisted, _compressed_summary…)."""
    kept = {k: v for k, v in message.items() if not str(k).startswith("_")}
    return json.loads(json.dumps(kept, default=str))


def new_messages(history: list[dict[str, Any]], result: list[dict[str, Any]]) -> list[dict]:
    """This turn's user message and what the agent added after the history sent."""
    start = len(history)
    if len(result) > start and result[start].get("role") == "user":
        return result[start:]
    for index in range(len(result) - 1, -1, -1):
        if result[index].get("role") == "user":
            return result[index:]
    return result[start:]


class TurnRunner:
    def __init__(
        self, settings: BridgeSettings, pool: AgentPool[AgentSlot], mcp: McpConnections
    ) -> None:
        self._settings = settings
        self._pool = pool
        self._mcp = mcp
        self._media_roots = cache_roots(settings.home)
        self._faces = agents.thinking_faces()

    def run(self, handle: RunHandle, request: RunRequest) -> RunEnd:
        with self._pool.turn_lock(request.session_id) as lock:
            while not lock.acquire(timeout=_LOCK_POLL_S):
                if handle.aborted:
                    return RunEnd(status=RunStatus.STOPPED)
            try:
                home = people.prepared_home(self._settings, request.user_id)
                with people.serving(home, self._settings):  # the person's memory and skills
                    return self._run_guarded(handle, request)
            finally:
                lock.release()

    def _run_guarded(self, handle: RunHandle, request: RunRequest) -> RunEnd:
        model = request.model
        fallback = model.fallback.base_url if model.fallback else None
        hosts = host_guard.hosts_of(model.base_url, fallback)
        lists = HostPolicy(request.model_hosts.allow, request.model_hosts.deny)
        try:
            with host_guard.guarding(hosts, lists):
                return self._run_locked(handle, request)
        except Exception as exc:
            log.exception("run %s failed", request.run_id)
            return RunEnd(
                status=RunStatus.FAILED,
                error=request_policy.public_error(f"{type(exc).__name__}: {exc}"),
            )

    def _run_locked(self, handle: RunHandle, request: RunRequest) -> RunEnd:
        servers = self._mcp_servers(handle, request)
        slot = self._slot(request, servers.toolsets)
        translator = TurnTranslator(
            handle.emit,
            handle.clarify,
            faces=self._faces,
            tool_preview=agents.tool_preview,
            summary_of=agents.summary_of,
            tool_result_max_chars=self._settings.tool_result_max_chars,
            silence_limit_s=self._settings.silence_limit_s,
        )
        translator.max_iterations = request.max_iterations
        translator.mcp_names = servers.names
        translator.media_of = lambda text: media_of(text, self._media_roots)
        slot.translator = translator
        slot.watch = silence.SilenceWatch(self._settings.silence_limit_s)
        try:
            task_id = self._prepare(slot, request)
            images = self._images(request)
            if not handle.attach(slot.agent):
                return RunEnd(status=RunStatus.STOPPED)
            before = _usage_snapshot(slot.agent)
            session_key = slot.agent.session_id
            approval.ask_on_this_thread(session_key, translator.on_approval)
            approval.restore(session_key, mcp_gate.without_servers(request.approvals))
            allowed = mcp_gate.allowed_servers(request.approvals)
            calls = mcp_gate.TurnGate(servers.modes, translator.on_mcp_approval, allowed)
            with (
                summary_usage.metering() as summary,
                silence.watching(slot.watch, slot.agent.interrupt),
                mcp_gate.turn(calls),
                summarizer.summarizing_with(self._summary_spec(request)),
            ):
                result = slot.agent.run_conversation(
                    images.inline(request.user_message),
                    system_message=slot.system_prompt,
                    conversation_history=[dict(m) for m in images.inline(request.history)],
                    task_id=task_id,
                )
            end = self._run_end(handle, request, translator, result, before, slot)
            end = end.model_copy(update={"messages": images.restore(end.messages)})
            usage = summary_usage.with_summary(end.usage, summary)
            held = [*approval.held(session_key), *calls.approval_keys()]
            return end.model_copy(update={"usage": usage, "approvals": held})
        finally:
            handle.detach()
            slot.translator = None
            slot.watch = None

    def _mcp_servers(self, handle: RunHandle, request: RunRequest) -> Prepared:
        """The turn's MCP servers, connected; one status line per server left out."""
        if request.mcp is None:
            return Prepared()
        notify = lambda text: handle.emit(Status(content=text))  # noqa: E731
        prepared = self._mcp.prepare(request.mcp, notify)
        for name, problem in sorted(prepared.problems.items()):
            handle.emit(Status(content=f"MCP server {name} is left out of this turn: {problem}"))
        return prepared

    def _slot(self, request: RunRequest, mcp_toolsets: list[str]) -> AgentSlot:
        spec = self._spec(request)
        toolsets = request_policy.effective_toolsets(self._settings, request.toolsets)
        toolsets = request_policy.hermes_toolsets(self._settings, toolsets) + mcp_toolsets
        model_id = _agent_identity(spec, toolsets)
        if request.model_hosts.allow or request.model_hosts.deny:
            model_id += "|direct"  # its clients were built without a proxy (host_guard)
        home = people.home_of(self._settings, request.user_id)
        key = pool_key(request.session_id, str(home), model_id, spec.api_key)
        slot, _created = self._pool.get_or_create(
            key,
            lambda: agents.build_agent(spec, request.session_id, toolsets, request.max_iterations),
        )
        agents.set_context_length(slot, spec)
        agents.set_vision(slot, request.model.vision)
        return slot

    def _summary_spec(self, request: RunRequest) -> ModelSpec | None:
        chosen = request.compression_model
        return model_spec(chosen, self._settings.default_context_length) if chosen else None

    def _spec(self, request: RunRequest) -> ModelSpec:
        return model_spec(request.model, self._settings.default_context_length)

    def _prepare(self, slot: AgentSlot, request: RunRequest) -> str:
        agent = slot.agent
        agent.clear_interrupt()
        agent.max_iterations = request.max_iterations
        agents.refresh_memory(slot)
        task_id = request_policy.task_id(request.session_id)
        prompt = self._system_prompt(request, task_id)
        if slot.system_prompt != prompt:
            agent._cached_system_prompt = None
            slot.system_prompt = prompt
        folder = request_policy.workspace(self._settings, request.session_id)
        agents.set_task_cwd(task_id, folder)
        file_guard.confine(task_id, folder)
        return task_id

    def _images(self, request: RunRequest) -> TurnImages:
        """The turn's attachments, all in its workspace (the API sent them before the turn)."""
        folder = request_policy.workspace(self._settings, request.session_id)
        lacking = workspace_files.missing(folder, request.files)
        if lacking:
            raise Invalid(f"attachments did not reach the agent service: {', '.join(lacking)}")
        return TurnImages(request.files, lambda file: workspace_files.read(folder, file))

    def _system_prompt(self, request: RunRequest, task_id: str) -> str | None:
        skills = agents.preloaded_skills(request.skills, task_id) if request.skills else ""
        parts = (request.system_prompt or "", skills)
        return "\n\n".join(p for p in parts if p) or None

    def _run_end(
        self,
        handle: RunHandle,
        request: RunRequest,
        translator: TurnTranslator,
        result: dict[str, Any],
        before: Usage,
        slot: AgentSlot,
    ) -> RunEnd:
        reasoning = str(result.get("last_reasoning") or "").strip()
        if reasoning and not translator.thought:
            translator.on_reasoning(reasoning)  # inline <think> that no callback reported
        raw = list(result.get("messages") or [])
        compacted = translator.compacted or any(m.get("_compressed_summary") for m in raw)
        if compacted and not translator.compacted:
            translator.announce_compaction(raw)
        picked = raw if compacted else new_messages(request.history, raw)
        kept, folded = continuations.fold([clean_message(m) for m in picked])
        final_text = str(result.get("final_response") or "")
        if folded and final_text:
            final_text = continuations.answer_of(kept)
        usage = _usage_snapshot(slot.agent).since(before)
        # hermes does not count an attempt cut off mid-stream
        usage = usage.counted(calls=folded)
        if folded:
            usage = _with_cut_attempts(usage, raw, slot.agent)
        usage = usage.model_copy(
            update={
                "context_tokens": int(result.get("last_prompt_tokens") or 0),
                "context_length": int(slot.agent.context_compressor.context_length or 0),
            }
        )
        end = RunEnd(
            status=RunStatus.SUCCESS,
            final_text=final_text,
            usage=usage,
            messages=kept,
            compacted=compacted,
        )
        watch = slot.watch
        if watch is not None and watch.gave_up and not handle.aborted:
            return _failed(end, silence.gave_up_error(watch.limit_s), translator)
        if handle.aborted or result.get("interrupted"):
            return end.model_copy(
                update={"status": RunStatus.STOPPED, "final_text": translator.streamed_answer}
            )
        if result.get("failed"):
            error = request_policy.public_error(
                str(result.get("error") or result.get("final_response") or "turn failed")
            )
            return _failed(end, error, translator)
        problem = non_answers.problem(result, translator.thought)
        return end if problem is None else _failed(end, problem, translator)


def _failed(end: RunEnd, error: str, translator: TurnTranslator) -> RunEnd:
    """The turn as failed, with the answer text the page was shown (not hermes' own words)."""
    update = {"status": RunStatus.FAILED, "error": error, "final_text": translator.streamed_answer}
    return end.model_copy(update=update)


def model_spec(model: ModelConfig, default_context_length: int) -> ModelSpec:
    context = max(model.context_length or default_context_length, MIN_CONTEXT_LENGTH)
    fallback = model.fallback
    return ModelSpec(
        base_url=model.base_url.rstrip("/"),
        api_key=model.api_key,
        model_name=model.model_name,
        provider=model.provider,
        context_length=context,
        max_output_tokens=model.max_output_tokens,
        temperature=model.temperature,
        reasoning_effort=model.reasoning_effort,
        fallback=model_spec(fallback, default_context_length) if fallback else None,
    )


def _agent_identity(spec: ModelSpec, toolsets: list[str]) -> str:
    """What an agent is built with (options that can change per turn are left out)."""
    fallback = spec.fallback
    behind = f"{fallback.provider}|{fallback.base_url}|{fallback.model_name}" if fallback else ""
    key_hash = hashlib.sha256(fallback.api_key.encode()).hexdigest()[:16] if fallback else ""
    parts = [spec.provider or "", spec.base_url, spec.model_name, ",".join(sorted(toolsets))]
    return "|".join([*parts, behind, key_hash])


def _with_cut_attempts(usage: Usage, raw: list[dict], agent: Any) -> Usage:
    return stall_usage.with_estimates(
        usage,
        raw,
        str(getattr(agent, "_cached_system_prompt", "") or ""),
        getattr(agent, "tools", None),
        agents.request_tokens,
        agents.text_tokens,
    )


def _usage_snapshot(agent: Any) -> Usage:
    return Usage.model_validate(
        {name: int(getattr(agent, f"session_{name}", 0) or 0) for name in _HERMES_COUNTED}
    )
