from __future__ import annotations

from collections.abc import Iterator

import pytest
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from agentchat.core.database import Database
from agentchat.core.settings import Settings
from agentchat.models import service
from agentchat.models.crypto import KeyCipher
from agentchat.models.schemas import ModelCreate, ModelUpdate
from agentchat.models.tables import AiModelConfig
from agentchat.protocol.errors import NotFound

SCRIPTED_URL = "http://127.0.0.1:43210/v1"


@pytest.fixture
def session(database: Database) -> Iterator[Session]:
    with database.session() as session:
        yield session


def _add(session: Session, cipher: KeyCipher, name: str, **fields: object) -> AiModelConfig:
    data = ModelCreate(name=name, base_url="http://127.0.0.1:9/v1", model_name=name, **fields)  # type: ignore[arg-type]
    return service.create_model(session, cipher, data)


def _default_count(session: Session) -> int:
    query = select(func.count()).where(AiModelConfig.is_default.is_(True))
    return int(session.scalar(query) or 0)


def test_resolve_model_returns_the_requested_model_with_its_key(
    session: Session, cipher: KeyCipher, settings: Settings
) -> None:
    _add(session, cipher, "a")
    wanted = _add(session, cipher, "b", api_key="sk-b-key", context_length=100000)

    resolved = service.resolve_model(session, wanted.id, settings)

    assert (resolved.id, resolved.model_name, resolved.api_key) == (wanted.id, "b", "sk-b-key")
    assert (resolved.provider, resolved.context_length) == ("openai-compatible", 100000)
    assert resolved.base_url == "http://127.0.0.1:9/v1"
    assert "sk-b-key" not in repr(resolved)


def test_resolve_model_falls_back_to_the_default(
    session: Session, cipher: KeyCipher, settings: Settings
) -> None:
    _add(session, cipher, "a")
    default = _add(session, cipher, "b", is_default=True)

    assert service.resolve_model(session, None, settings).id == default.id
    assert service.resolve_model(session, 987654, settings).id == default.id


def test_resolve_model_after_deleting_the_sessions_model(
    session: Session, cipher: KeyCipher, settings: Settings
) -> None:
    keep = _add(session, cipher, "a")
    gone = _add(session, cipher, "b")
    service.delete_model(session, gone.id)

    resolved = service.resolve_model(session, gone.id, settings)

    assert resolved.id == keep.id
    assert resolved.api_key == ""


def test_resolve_model_without_any_model_is_not_found(session: Session, settings: Settings) -> None:
    with pytest.raises(NotFound):
        service.resolve_model(session, None, settings)


def test_first_start_without_openai_key_registers_the_scripted_model(
    session: Session, settings: Settings
) -> None:
    created = service.ensure_default_model(session, settings, SCRIPTED_URL)

    assert created is not None
    models = service.list_models(session)
    assert [(m.name, m.model_name, m.base_url) for m in models] == [
        ("Scripted demo model (offline, not a real LLM)", "scripted-demo", SCRIPTED_URL)
    ]
    assert models[0].is_builtin and models[0].is_default
    assert models[0].api_key_encrypted is None


def test_first_start_with_openai_key_registers_that_model(
    session: Session, settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-from-env-123456")

    service.ensure_default_model(session, settings, SCRIPTED_URL)

    [model] = service.list_models(session)
    assert (model.base_url, model.model_name) == ("https://api.openai.com/v1", "gpt-4o-mini")
    assert model.provider == "openai"
    assert model.is_default and not model.is_builtin
    assert service.resolve_model(session, None, settings).api_key == "sk-from-env-123456"


def test_first_start_honours_openai_base_url_and_model(
    session: Session, settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-from-env-123456")
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:11434/v1/")
    monkeypatch.setenv("AGENTCHAT_MODEL", "llama3.1:8b")

    service.ensure_default_model(session, settings, None)

    [model] = service.list_models(session)
    assert (model.base_url, model.model_name) == ("http://127.0.0.1:11434/v1", "llama3.1:8b")
    assert model.provider == "openai-compatible"


def test_first_start_without_anything_registers_nothing(
    session: Session, settings: Settings
) -> None:
    assert service.ensure_default_model(session, settings, None) is None
    assert service.list_models(session) == []


def test_later_starts_leave_existing_models_alone(
    session: Session, cipher: KeyCipher, settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    mine = _add(session, cipher, "mine")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-from-env-123456")

    assert service.ensure_default_model(session, settings, SCRIPTED_URL) is None
    assert [m.id for m in service.list_models(session)] == [mine.id]


def test_start_repairs_a_table_without_default(
    session: Session, cipher: KeyCipher, settings: Settings
) -> None:
    first = _add(session, cipher, "a")
    _add(session, cipher, "b")
    first.is_default = False
    session.flush()

    service.ensure_default_model(session, settings, SCRIPTED_URL)

    assert [m.name for m in service.list_models(session) if m.is_default] == ["a"]


def test_update_builtin_base_url_moves_only_the_builtin(
    session: Session, cipher: KeyCipher, settings: Settings
) -> None:
    other = _add(session, cipher, "other")
    service.ensure_default_model(session, settings, None)
    builtin = service.create_model(
        session,
        cipher,
        ModelCreate(name="demo", base_url=SCRIPTED_URL, model_name="s"),
        builtin=True,
    )

    changed = service.update_builtin_base_url(session, "http://127.0.0.1:5555/v1/")

    assert changed == 1
    assert builtin.base_url == "http://127.0.0.1:5555/v1"
    assert other.base_url == "http://127.0.0.1:9/v1"


def test_default_invariants_hold_on_every_database(
    any_database: Database, settings: Settings
) -> None:
    cipher = KeyCipher.for_settings(settings)
    with any_database.session() as session:
        a = _add(session, cipher, "a", api_key="sk-a-0000000000")
        b = _add(session, cipher, "b")
        c = _add(session, cipher, "c", is_default=True)
        assert (a.is_default, b.is_default, c.is_default) == (False, False, True)
        service.update_model(session, cipher, b.id, ModelUpdate(is_default=True))
        assert _default_count(session) == 1
        service.delete_model(session, b.id)
        ids = (a.id, c.id)
    with any_database.session() as session:
        assert [m.id for m in service.list_models(session) if m.is_default] == [ids[0]]
        assert service.resolve_model(session, None, settings).api_key == "sk-a-0000000000"
        service.delete_model(session, ids[0])
        assert [m.is_default for m in service.list_models(session)] == [True]
