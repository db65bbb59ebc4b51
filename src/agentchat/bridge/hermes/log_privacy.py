"""hermes logs the first 80 characters of every question to HERMES_HOME/logs/agent.log (INFO,
rotated at 5 MiB, three files kept: tens of thousands of turns). A deleted chat's words must not
stay there, so the preview becomes its length before any handler sees the record."""

from __future__ import annotations

import logging

TURN_LOGGER = "agent.turn_context"
TURN_LINE = "conversation turn:"


class QuestionPreviewFilter(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        args = record.args
        if str(record.msg).startswith(TURN_LINE) and isinstance(args, tuple) and args:
            record.args = (*args[:-1], f"<{len(str(args[-1]))} characters>")
        return True


def install() -> None:
    """Once, when hermes is imported."""
    logger = logging.getLogger(TURN_LOGGER)
    if not any(isinstance(f, QuestionPreviewFilter) for f in logger.filters):
        logger.addFilter(QuestionPreviewFilter())
