"""The Chinese page knows every reason hermes gives for a dangerous command: the descriptions of
its patterns (tools/approval.py) each have Chinese words in frontend/src/i18n/dangers.zh.json,
so a hermes upgrade that adds one fails here instead of showing English on the Chinese page."""

from __future__ import annotations

import json
from pathlib import Path

import tools.approval as approval

WORDS = Path(__file__).resolve().parents[2] / "frontend/src/i18n/dangers.zh.json"


def test_every_hermes_danger_description_has_chinese_words() -> None:
    known = json.loads(WORDS.read_text(encoding="utf-8"))
    fixed = [description for _, description in approval.DANGEROUS_PATTERNS]
    fixed += [approval._MALFORMED_EXEC_DESCRIPTION, approval._PARSER_LIMIT_DESCRIPTION]
    missing = sorted({d for d in fixed if d not in known})
    assert missing == []
    assert all(words.strip() and words != key for key, words in known.items())
