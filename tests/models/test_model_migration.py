"""Migration 0004 on SQLite, PostgreSQL and MariaDB: the new model columns, and "openai" rows
that meant "any OpenAI-compatible endpoint" renamed unless they point at OpenAI itself."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import create_engine, text

from agentchat.migrations import downgrade, upgrade
from tests.support.databases import DIALECTS, fresh_database_url

_INSERT = text(
    "INSERT INTO ai_model_config (name, provider, base_url, model_name, context_length, "
    "is_default, is_builtin, created_at, updated_at) VALUES (:name, :provider, :url, 'm', "
    "131072, :default, false, CURRENT_TIMESTAMP, CURRENT_TIMESTAMP)"
)


@pytest.mark.db
@pytest.mark.parametrize("dialect", DIALECTS)
def test_0004_adds_the_options_and_renames_compatible_endpoints(
    dialect: str, tmp_path: Path
) -> None:
    url = fresh_database_url(dialect, tmp_path, "models_migration", migrate=False)
    upgrade(url, "0003")
    engine = create_engine(url)
    rows = [
        ("local", "openai", "http://127.0.0.1:8000/v1", True),
        ("gpt", "openai", "https://api.openai.com/v1", False),
        ("claude", "anthropic", "https://api.anthropic.com", False),
    ]
    with engine.begin() as conn:
        for name, provider, base_url, default in rows:
            conn.execute(
                _INSERT, {"name": name, "provider": provider, "url": base_url, "default": default}
            )
    try:
        upgrade(url)
        query = "SELECT name, provider, max_output_tokens, temperature, reasoning_effort, "
        query += "fallback_model_id FROM ai_model_config ORDER BY name"
        with engine.connect() as conn:
            found = [tuple(row) for row in conn.execute(text(query))]
        assert found == [
            ("claude", "anthropic", None, None, None, None),
            ("gpt", "openai", None, None, None, None),
            ("local", "openai-compatible", None, None, None, None),
        ]
        downgrade(url, "0003")
        with engine.connect() as conn:
            providers = conn.execute(text("SELECT provider FROM ai_model_config")).scalars()
            assert set(providers) == {"openai", "anthropic"}
    finally:
        engine.dispose()
