from __future__ import annotations

import stat
from pathlib import Path

import pytest
from pydantic import SecretStr

from agentchat.core.settings import Settings
from agentchat.models.crypto import KEY_FILE_NAME, KeyCipher, UnreadableApiKey


def _settings(data_dir: Path, secret: str | None = None) -> Settings:
    return Settings(data_dir=data_dir, secret_key=SecretStr(secret) if secret else None)


def test_key_file_is_created_once_with_owner_only_permissions(tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    token = KeyCipher.for_settings(_settings(data_dir)).encrypt("sk-abc")

    key_file = data_dir / KEY_FILE_NAME
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
    first_key = key_file.read_bytes()
    assert KeyCipher.for_settings(_settings(data_dir)).decrypt(token) == "sk-abc"
    assert key_file.read_bytes() == first_key
    assert [p.name for p in data_dir.iterdir()] == [KEY_FILE_NAME]


def test_existing_key_file_is_reused_by_a_fresh_process(tmp_path: Path) -> None:
    from agentchat.models import crypto

    settings = _settings(tmp_path)
    token = KeyCipher.for_settings(settings).encrypt("sk-abc")
    crypto._fernet.cache_clear()  # what a restart does
    assert KeyCipher.for_settings(settings).decrypt(token) == "sk-abc"


def test_key_file_readable_by_others_is_restricted(tmp_path: Path) -> None:
    from agentchat.models import crypto

    KeyCipher.for_settings(_settings(tmp_path))
    key_file = tmp_path / KEY_FILE_NAME
    key_file.chmod(0o644)
    crypto._fernet.cache_clear()
    KeyCipher.for_settings(_settings(tmp_path))
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600


def test_secret_key_setting_is_used_and_no_file_is_written(tmp_path: Path) -> None:
    token = KeyCipher.for_settings(_settings(tmp_path / "a", "my secret")).encrypt("sk-abc")

    assert KeyCipher.for_settings(_settings(tmp_path / "b", "my secret")).decrypt(token) == "sk-abc"
    assert not (tmp_path / "a" / KEY_FILE_NAME).exists()


def test_token_from_another_secret_is_a_clear_error(tmp_path: Path) -> None:
    token = KeyCipher.for_settings(_settings(tmp_path, "one")).encrypt("sk-abc")

    with pytest.raises(UnreadableApiKey) as caught:
        KeyCipher.for_settings(_settings(tmp_path, "two")).decrypt(token)
    assert caught.value.status_code == 409
    assert "sk-abc" not in caught.value.message


def test_encrypted_text_does_not_contain_the_key(tmp_path: Path) -> None:
    cipher = KeyCipher.for_settings(_settings(tmp_path))
    token = cipher.encrypt("sk-very-secret-value")
    assert "secret" not in token
    assert cipher.encrypt("sk-very-secret-value") != token  # random IV per encryption
