"""The helper the run service and the bridge can use to mask an echoed key."""

from __future__ import annotations

from agentchat.runs.drive.redact import redact, redact_value

KEY = "sk-planted-SECRET-1234"


def test_redact_masks_every_occurrence() -> None:
    assert redact(f"bad key {KEY}; again {KEY}.", KEY) == "bad key ***; again ***."


def test_redact_leaves_short_or_missing_secrets_alone() -> None:
    assert redact("the cat sat", "a", "", None) == "the cat sat"


def test_redact_value_walks_json_like_data() -> None:
    data = {"error": [f"x {KEY}", {"meta": KEY, "n": 3}], "ok": None}
    assert redact_value(data, KEY) == {"error": ["x ***", {"meta": "***", "n": 3}], "ok": None}
