"""The model that writes a chat's summaries when hermes compacts its context.

hermes' summariser asks `call_llm(task="compression", ...)` for its summary, on the thread
that runs the turn, and takes the model from `auxiliary.compression.{provider, model,
base_url, api_key}` of config.yaml, one setting for the whole process. A chat may choose
another model than its own (the API checked that its context window is not smaller): while a
turn runs with `summarizing_with(spec)`, the summary calls made on its thread get exactly those
four settings, given as the call's own arguments (they win over config.yaml, and keep a named
provider such as anthropic with its base URL). Imported by the bridge only, after hermes-agent.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from agentchat.bridge.hermes.providers import ModelSpec, hermes_provider

_local = threading.local()
_install_lock = threading.Lock()


def auxiliary_compression(spec: ModelSpec) -> dict[str, str]:
    """hermes' `auxiliary.compression` settings for this model."""
    return {
        "provider": hermes_provider(spec.provider),
        "model": spec.model_name,
        "base_url": spec.base_url,
        "api_key": spec.api_key or "no-key",
    }


def install() -> None:
    """Wrap the compressor's `call_llm` (idempotent)."""
    from agent import context_compressor

    with _install_lock:
        original = context_compressor.call_llm
        if getattr(original, "_agentchat_summarizer", False):
            return

        @functools.wraps(original)
        def with_chosen_model(*args: Any, **kwargs: Any) -> Any:
            chosen: dict[str, str] | None = getattr(_local, "settings", None)
            if chosen is not None and kwargs.get("task") == "compression":
                kwargs = {**kwargs, **chosen}
            return original(*args, **kwargs)

        with_chosen_model._agentchat_summarizer = True  # type: ignore[attr-defined]
        context_compressor.call_llm = with_chosen_model


@contextmanager
def summarizing_with(spec: ModelSpec | None) -> Iterator[None]:
    """The summaries written on this thread until the block ends use `spec` (None: the chat's
    own model, as hermes does by itself)."""
    _local.settings = auxiliary_compression(spec) if spec is not None else None
    try:
        yield
    finally:
        _local.settings = None
