"""A question with its attachments as the agent receives it (pure functions).

The text says what was attached, where each file lies in the chat's workspace and how the
agent gets it: a short text whole, a long one for the file tools (or its beginning when the
agent has none), an image as an image part when the model sees images, else as a file for
hermes' vision tool. The same question composes the same way every time, so a history rebuilt
later is what the agent saw."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from agentchat.attachments.kinds import Delivery, Kind
from agentchat.attachments.limits import INLINE_MAX_CHARS, QUESTION_INLINE_MAX_CHARS
from agentchat.protocol.workspace_files import FOLDER, WorkspaceFile, file_url

DOCUMENT_NAMES = {
    "application/pdf": "PDF",
    "application/vnd.openxmlformats-officedocument.wordprocessingml.document": "Word document",
    "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet": "Excel workbook",
    "application/vnd.openxmlformats-officedocument.presentationml.presentation": "PowerPoint",
}


@dataclass(frozen=True)
class Item:
    """One attachment of a question, with what composing it needs."""

    attachment_id: int
    name: str
    kind: Kind
    media_type: str
    size: int
    digest: str
    width: int | None = None
    height: int | None = None
    text_chars: int | None = None
    text: str | None = None  # whole, or the beginning (`text_chars` says which)
    text_digest: str | None = None
    text_size: int | None = None
    delivery: Delivery | None = None

    @property
    def path(self) -> str:
        return f"{FOLDER}/{self.attachment_id}-{self.name}"

    @property
    def text_path(self) -> str:
        return self.path + ".txt" if self.kind is Kind.DOCUMENT else self.path


def decide(items: list[Item], sees_images: bool, file_tools: bool) -> list[Delivery]:
    """How each attachment reaches the agent, in order (whole texts up to a question budget)."""
    budget = QUESTION_INLINE_MAX_CHARS
    out = []
    for item in items:
        if item.kind is Kind.IMAGE:
            out.append(Delivery.IMAGE if sees_images else Delivery.WORKSPACE)
            continue
        chars = item.text_chars or 0
        if chars <= min(INLINE_MAX_CHARS, budget):
            budget -= chars
            out.append(Delivery.INLINE)
        else:
            out.append(Delivery.WORKSPACE if file_tools else Delivery.EXCERPT)
    return out


def files_of(items: list[Item]) -> list[WorkspaceFile]:
    """The files these attachments put in the workspace (a document's text beside it)."""
    files = []
    for item in items:
        files.append(
            WorkspaceFile(
                path=item.path, digest=item.digest, size=item.size, media_type=item.media_type
            )
        )
        if item.kind is Kind.DOCUMENT and item.text_digest is not None:
            files.append(
                WorkspaceFile(
                    path=item.text_path,
                    digest=item.text_digest,
                    size=item.text_size or 0,
                    media_type="text/plain",
                )
            )
    return files


def content(question: str, items: list[Item]) -> str | list[dict[str, Any]]:
    """The user message: plain text, or a text part and image parts when images are seen."""
    if not items:
        return question
    lines = [question.rstrip(), "", "[Attached files]"]
    for item in items:
        lines.extend(_describe(item))
    text = "\n".join(lines)
    seen = [item for item in items if item.delivery is Delivery.IMAGE]
    if not seen:
        return text
    images = [{"type": "image_url", "image_url": {"url": file_url(i.path)}} for i in seen]
    return [{"type": "text", "text": text}, *images]


def _describe(item: Item) -> list[str]:
    head = f"- {item.name} ({_what(item)}, {_size(item.size)}) at {item.path}"
    delivery = item.delivery
    if item.kind is Kind.IMAGE:
        if delivery is Delivery.IMAGE:
            return [head + ": the image is attached below."]
        return [
            head + ": this model cannot see images; if you have the vision_analyze tool, it "
            "can look at the file."
        ]
    chars = f"{item.text_chars or 0:,} characters"
    where = f"{head}; its text ({chars})"
    if item.kind is Kind.DOCUMENT:
        where += f", extracted, is at {item.text_path}"
    if delivery is Delivery.INLINE:
        return [where + ", whole:", *_block(item.name, item.text or "")]
    if delivery is Delivery.EXCERPT:
        shown = len(item.text or "")
        return [
            where + f". You have no file tools: here are its first {shown:,} characters only.",
            *_block(item.name, item.text or ""),
        ]
    return [where + ": read it with your file tools (read_file, search_files)."]


def _block(name: str, text: str) -> list[str]:
    return [f'<file name="{name}">', text, "</file>"]


def _what(item: Item) -> str:
    if item.kind is Kind.IMAGE:
        size = f" {item.width}x{item.height}" if item.width and item.height else ""
        return f"image{size}"
    if item.kind is Kind.DOCUMENT:
        return DOCUMENT_NAMES.get(item.media_type, "document")
    return "text"


def _size(size: int) -> str:
    for unit in ("bytes", "KB", "MB"):
        if size < 1024 or unit == "MB":
            return f"{size:,} {unit}" if unit == "bytes" else f"{size:.1f} {unit}"
        size /= 1024  # type: ignore[assignment]
    return f"{size} bytes"
