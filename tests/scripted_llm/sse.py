"""Reading an OpenAI SSE stream in tests."""

from __future__ import annotations

import json
from typing import Any

from agentchat.protocol.sse import parse_text


def parse_stream(body: str) -> tuple[list[dict[str, Any]], bool]:
    """(chunks, whether it ended with `data: [DONE]`)."""
    datas = [message.data for message in parse_text(body)]
    done = bool(datas) and datas[-1] == "[DONE]"
    return [json.loads(d) for d in datas if d != "[DONE]"], done


def deltas(chunks: list[dict[str, Any]], key: str) -> str:
    return "".join(c["choices"][0]["delta"].get(key) or "" for c in chunks if c["choices"])
