"""What an attachment is, and how a question delivered it to the agent."""

from __future__ import annotations

from enum import StrEnum


class Kind(StrEnum):
    IMAGE = "image"  # decoded and re-encoded (PNG, JPEG, WebP or GIF)
    TEXT = "text"  # UTF-8 text: prose, code, CSV, JSON, Markdown...
    DOCUMENT = "document"  # PDF and office files: their text extracted


class Delivery(StrEnum):
    IMAGE = "image"  # an image content part: a model that sees images sees its pixels
    INLINE = "inline"  # the whole text is in the question (and the file in the workspace)
    EXCERPT = "excerpt"  # its beginning is in the question: the agent has no file tools
    WORKSPACE = "workspace"  # in the chat's workspace, named in the question, for its tools
