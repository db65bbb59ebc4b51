"""Encryption of model API keys at rest (Fernet).

The Fernet key comes from AGENTCHAT_SECRET_KEY (any string; it is hashed into a key) or, when
that is unset, from `<data_dir>/secret.key`, generated once with owner-only permissions.
"""

from __future__ import annotations

import base64
import hashlib
import logging
import os
import stat
from functools import lru_cache
from pathlib import Path

from cryptography.fernet import Fernet, InvalidToken

from agentchat.core.settings import Settings
from agentchat.protocol.errors import AppError

log = logging.getLogger(__name__)

KEY_FILE_NAME = "secret.key"


class UnreadableApiKey(AppError):
    """The stored key was encrypted with another secret key (the secret changed or was lost)."""

    status_code = 409
    code = "api_key_unreadable"


class KeyCipher:
    """Encrypts and decrypts API keys; never logs or repeats them."""

    def __init__(self, fernet: Fernet) -> None:
        self._fernet = fernet

    @classmethod
    def for_settings(cls, settings: Settings) -> KeyCipher:
        secret = settings.secret_key.get_secret_value() if settings.secret_key else None
        return cls(_fernet(secret, str(settings.data_dir.resolve() / KEY_FILE_NAME)))

    def encrypt(self, plain: str) -> str:
        return self._fernet.encrypt(plain.encode("utf-8")).decode("ascii")

    def decrypt(self, token: str) -> str:
        try:
            return self._fernet.decrypt(token.encode("ascii")).decode("utf-8")
        except (InvalidToken, UnicodeError) as exc:
            raise UnreadableApiKey(
                "The stored API key cannot be decrypted with the current secret key "
                "(AGENTCHAT_SECRET_KEY or secret.key changed); enter the key again."
            ) from exc


@lru_cache(maxsize=16)
def _fernet(secret: str | None, key_path: str) -> Fernet:
    if secret:
        digest = hashlib.sha256(secret.encode("utf-8")).digest()
        return Fernet(base64.urlsafe_b64encode(digest))
    return Fernet(load_or_create_key_file(Path(key_path)))


def load_or_create_key_file(path: Path) -> bytes:
    """Read the key file, or create it (mode 0600) when it does not exist yet.

    The key is written to a private temporary file and linked into place, so a second process
    starting at the same time reads either no file or a complete one.
    """
    if path.exists():
        return _read_key_file(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    key = Fernet.generate_key()
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(key)
        os.link(tmp, path)
    except FileExistsError:
        return _read_key_file(path)
    finally:
        tmp.unlink(missing_ok=True)
    log.info("generated a new secret key in %s", path)
    return key


def _read_key_file(path: Path) -> bytes:
    mode = stat.S_IMODE(path.stat().st_mode)
    if mode & 0o077:
        log.warning("%s was readable by others (mode %o); restricting it to 0600", path, mode)
        path.chmod(0o600)
    return path.read_bytes().strip()
