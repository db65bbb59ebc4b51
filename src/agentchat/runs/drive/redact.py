"""Mask secrets (model API keys, tokens) in text that is about to be stored, sent or logged:
providers sometimes echo the key back in their error messages."""

from __future__ import annotations

from typing import Any

MASK = "***"
MIN_SECRET_CHARS = 8  # shorter values would mask ordinary words


def redact(text: str, *secrets: str | None) -> str:
    for secret in secrets:
        if secret and len(secret) >= MIN_SECRET_CHARS and secret in text:
            text = text.replace(secret, MASK)
    return text


def redact_value(value: Any, *secrets: str | None) -> Any:
    """`redact` applied to every string inside JSON-like data (dicts, lists, strings)."""
    if isinstance(value, str):
        return redact(value, *secrets)
    if isinstance(value, dict):
        return {key: redact_value(item, *secrets) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [redact_value(item, *secrets) for item in value]
    return value
