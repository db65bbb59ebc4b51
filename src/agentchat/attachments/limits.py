"""How much of a file's text goes into a question, and the limits an operator sets."""

from __future__ import annotations

from dataclasses import dataclass

from agentchat.core.settings import Settings

# A text of at most this many characters goes into the question whole (about 10,000 tokens);
# a longer one is read with the agent's file tools.
INLINE_MAX_CHARS = 40_000
# Whole texts in one question stop here: the next files are left to the file tools.
QUESTION_INLINE_MAX_CHARS = 120_000
# Without file tools the agent gets this much of a longer text, and is told it is cut.
EXCERPT_CHARS = 8_000
MB = 1024 * 1024


@dataclass(frozen=True)
class Limits:
    max_file_bytes: int
    max_per_question: int
    quota_bytes: int  # 0: none

    @classmethod
    def of(cls, settings: Settings) -> Limits:
        return cls(
            max_file_bytes=settings.max_upload_bytes,
            max_per_question=settings.max_attachments,
            quota_bytes=settings.upload_quota_mb * MB,
        )
