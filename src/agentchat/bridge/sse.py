"""Encode bridge events as Server-Sent Events."""

from __future__ import annotations

import json
from typing import Any

KEEPALIVE = b": keep-alive\n\n"


def encode(event: str, data: dict[str, Any], event_id: int) -> bytes:
    payload = json.dumps(data, ensure_ascii=False, separators=(",", ":"), default=str)
    return f"event: {event}\nid: {event_id}\ndata: {payload}\n\n".encode()
