"""No credential reaches a log: query-string values named like a token, key, secret or
password are masked in uvicorn's access log (a client may put `?token=` in a URL)."""

from __future__ import annotations

import logging
import re

_SENSITIVE_QUERY = re.compile(
    r"([?&][^=&#]*(?:token|key|secret|passw|auth|session|signature|sig)[^=&#]*=)[^&#\s]*",
    re.IGNORECASE,
)


def mask_query(text: str) -> str:
    return _SENSITIVE_QUERY.sub(r"\1***", text)


class AccessLogRedactor(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.args, tuple):
            record.args = tuple(mask_query(a) if isinstance(a, str) else a for a in record.args)
        elif isinstance(record.msg, str):
            record.msg = mask_query(record.msg)
        return True


def install_access_log_redactor() -> None:
    """Idempotent: add the filter to uvicorn's access logger."""
    logger = logging.getLogger("uvicorn.access")
    if not any(isinstance(f, AccessLogRedactor) for f in logger.filters):
        logger.addFilter(AccessLogRedactor())
