"""A turn's images as hermes takes them: the `agentchat-file:` references of the question and
the history become base64 data URLs of the files in the chat's workspace (what hermes' own
`image_routing.build_native_content_parts` sends for a vision model), and the messages hermes
returns get the references back, so the history the API stores is exact and small."""

from __future__ import annotations

import base64
import json
from collections.abc import Callable
from typing import Any

from agentchat.protocol.errors import Invalid
from agentchat.protocol.workspace_files import FILE_URL, WorkspaceFile


class TurnImages:
    """`read(file)`: the bytes of one of the turn's files in its workspace."""

    def __init__(self, files: list[WorkspaceFile], read: Callable[[WorkspaceFile], bytes]) -> None:
        self._files = {f.path: f for f in files}
        self._read = read
        self._urls: dict[str, str] = {}  # data URL → reference, for the way back

    def inline(self, value: Any) -> Any:
        """`value` (a message, a list of them, or content) with every reference replaced."""
        if isinstance(value, list):
            return [self.inline(item) for item in value]
        if isinstance(value, dict):
            part = self._part(value)
            return part if part is not None else {k: self.inline(v) for k, v in value.items()}
        return value

    def restore(self, messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
        if not self._urls:
            return messages
        text = json.dumps(messages)
        for url, reference in self._urls.items():
            text = text.replace(json.dumps(url)[1:-1], reference)
        restored: list[dict[str, Any]] = json.loads(text)
        return restored

    def _part(self, value: dict[str, Any]) -> dict[str, Any] | None:
        image = value.get("image_url") if value.get("type") == "image_url" else None
        if not isinstance(image, dict):
            return None
        url = image.get("url")
        if not isinstance(url, str) or not url.startswith(FILE_URL):
            return None
        file = self._files.get(url[len(FILE_URL) :])
        if file is None:
            raise Invalid(f"the question names an image the turn was not given: {url}")
        data = base64.b64encode(self._read(file)).decode("ascii")
        inlined = f"data:{file.media_type};base64,{data}"
        self._urls[inlined] = url
        return {**value, "image_url": {**image, "url": inlined}}
