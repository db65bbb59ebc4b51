"""Everything that touches hermes-agent objects. Imported only after HERMES_HOME is set."""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agentchat.bridge.guards import agent as agent_guard
from agentchat.bridge.hermes import providers
from agentchat.bridge.hermes.providers import ModelSpec
from agentchat.bridge.hermes.silence import SilenceWatch
from agentchat.bridge.hermes.translate import TurnTranslator


@dataclass
class AgentSlot:
    """A pooled AIAgent and the translator of the turn it is running (swapped per turn)."""

    agent: Any
    translator: TurnTranslator | None = None
    watch: SilenceWatch | None = None
    system_prompt: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    def call(self, method: str, *args: Any) -> Any:
        watch = self.watch
        if watch is not None:
            watch.saw(method)
        translator = self.translator
        if translator is None:
            return "" if method == "on_clarify" else None
        return getattr(translator, method)(*args)


def thinking_faces() -> list[str]:
    from agent.display import KawaiiSpinner

    faces = set(KawaiiSpinner.KAWAII_THINKING) | set(KawaiiSpinner.get_thinking_faces())
    return sorted(faces, key=len, reverse=True)


def tool_preview(name: str, args: dict[str, Any]) -> str | None:
    from agent.display import build_tool_preview

    return build_tool_preview(name, args)


def summary_of(messages: list[dict[str, Any]]) -> str:
    """The compaction summary text found in a compacted message list ("" if none)."""
    from agent.context_compressor import ContextCompressor as CC

    for message in messages:
        content = message.get("content")
        if message.get("_compressed_summary") or CC._is_context_summary_content(content):
            text = content if isinstance(content, str) else str(content or "")
            return CC._strip_summary_prefix(text)
    return ""


def preloaded_skills(names: list[str], task_id: str) -> str:
    """hermes' own skill preloading: each skill's full text with its activation note."""
    from agent.skill_commands import build_preloaded_skills_prompt

    prompt, _loaded, missing = build_preloaded_skills_prompt(names, task_id=task_id)
    if missing:
        raise LookupError(f"unknown skill(s): {', '.join(missing)}")
    return str(prompt or "")


def request_tokens(
    messages: list[dict[str, Any]], system_prompt: str, tools: list[dict[str, Any]] | None
) -> int:
    """hermes' rough estimate of one chat-completions request (about 4 characters a token)."""
    from agent.model_metadata import estimate_request_tokens_rough

    return int(estimate_request_tokens_rough(messages, system_prompt=system_prompt, tools=tools))


def text_tokens(text: str) -> int:
    from agent.model_metadata import estimate_tokens_rough

    return int(estimate_tokens_rough(text))


def set_task_cwd(task_id: str, cwd: Path) -> None:
    from tools.terminal_tool import register_task_env_overrides

    cwd.mkdir(parents=True, exist_ok=True)
    register_task_env_overrides(task_id, {"cwd": str(cwd)})


def _callbacks(slot: AgentSlot) -> dict[str, Any]:
    def bind(method: str) -> Any:
        return lambda *args, **_kw: slot.call(method, *args)

    return {
        "thinking_callback": bind("on_thinking"),
        "reasoning_callback": bind("on_reasoning"),
        "stream_delta_callback": bind("on_stream_delta"),
        "status_callback": bind("on_status"),
        "tool_start_callback": bind("on_tool_start"),
        "tool_complete_callback": bind("on_tool_complete"),
        "clarify_callback": bind("on_clarify"),
        "event_callback": bind("on_event"),
        "interim_assistant_callback": bind("on_interim"),
        "step_callback": bind("on_step"),
        # hermes passes duration and is_error as keywords: handed on as one dict
        "tool_progress_callback": lambda *a, **kw: slot.call("on_tool_progress", *a, kw),
    }


def _capture_compressions(slot: AgentSlot) -> None:
    """Wrap the compressor so the compacted list reaches the translator before the event."""
    compressor = getattr(slot.agent, "context_compressor", None)
    original = getattr(compressor, "compress", None)
    if compressor is None or original is None:
        return

    @functools.wraps(original)
    def compress(*args: Any, **kwargs: Any) -> Any:
        result = original(*args, **kwargs)
        if isinstance(result, list):
            slot.call("on_compressed", result)
        return result

    compressor.compress = compress


def build_agent(
    spec: ModelSpec, session_id: str, toolsets: list[str], max_iterations: int
) -> AgentSlot:
    from run_agent import AIAgent

    providers.api_keys_only()
    slot = AgentSlot(agent=None)
    slot.agent = AIAgent(
        base_url=spec.base_url,
        api_key=spec.api_key or "no-key",
        provider=providers.hermes_provider(spec.provider),
        fallback_model=providers.fallback_entry(spec.fallback),
        model=spec.model_name,
        max_iterations=max_iterations,
        tool_delay=0,
        enabled_toolsets=list(toolsets),
        quiet_mode=True,
        skip_context_files=True,
        session_id=f"agentchat-{session_id}",
        platform="agentchat",
        **_callbacks(slot),
    )
    slot.agent._print_fn = lambda *a, **k: None
    agent_guard.harden_agent(slot.agent)
    slot.agent.suppress_status_output = True
    providers.configure_new_agent(slot.agent, spec)
    _capture_compressions(slot)
    set_context_length(slot, spec)
    refresh_memory(slot)
    return slot


def refresh_memory(slot: AgentSlot) -> bool:
    """Reload MEMORY.md/USER.md into the agent's prompt when they changed since it last loaded
    them (a write by the memory tool of any chat, or by the drawer). True when reloaded."""
    from agent.system_prompt import invalidate_system_prompt
    from tools.memory_tool import get_memory_dir

    directory = get_memory_dir()
    stamp = tuple(_stat(directory / name) for name in ("MEMORY.md", "USER.md"))
    previous = slot.extra.get("memory_stamp")
    slot.extra["memory_stamp"] = stamp
    if previous is None or previous == stamp:
        return False
    invalidate_system_prompt(slot.agent)
    return True


def _stat(path: Path) -> tuple[int, int]:
    try:
        info = path.stat()
    except FileNotFoundError:
        return (0, -1)
    return (info.st_mtime_ns, info.st_size)


def set_vision(slot: AgentSlot, sees_images: bool) -> None:
    """Whether hermes sends this agent's image parts to its model. hermes asks its config.yaml
    (one per process) and models.dev; the model's own setting in the API decides here."""
    slot.agent._model_supports_vision = lambda: sees_images


def set_context_length(slot: AgentSlot, spec: ModelSpec) -> None:
    """Apply the model config's context window and request options to this agent
    (config.yaml holds a default window)."""
    agent = slot.agent
    providers.apply_options(agent, spec)
    compressor = agent.context_compressor
    if getattr(compressor, "context_length", None) == spec.context_length:
        return
    compressor.update_model(
        model=agent.model,
        context_length=spec.context_length,
        base_url=agent.base_url,
        api_key=getattr(agent, "api_key", ""),
        provider=agent.provider,
        api_mode=getattr(agent, "api_mode", ""),
    )
    agent._config_context_length = spec.context_length
