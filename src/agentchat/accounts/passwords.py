"""Passwords: argon2id (argon2-cffi, RFC 9106's low-memory profile), never a hand-made hash.

A stored hash made with weaker parameters than today's is replaced at the next sign-in.
"""

from __future__ import annotations

from functools import cache

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError
from argon2.profiles import RFC_9106_LOW_MEMORY

from agentchat.protocol.errors import Invalid

MIN_CHARS = 8
MAX_CHARS = 1024  # argon2 takes any length; a bound keeps a megabyte "password" cheap to refuse

# Tests hash with argon2's CHEAPEST profile instead (tests/support/cheap_passwords.py).
_hasher = PasswordHasher.from_parameters(RFC_9106_LOW_MEMORY)


@cache
def _absent() -> str:
    """Verified against when the account does not exist, so both answers take the same time.
    Made at the first sign-in, not at import: every process that imports the app paid 0.12 s."""
    return _hasher.hash("no account has this password")


class PasswordInvalid(Invalid):
    code = "password_invalid"


def check_policy(password: str) -> None:
    if len(password) < MIN_CHARS:
        raise PasswordInvalid(f"A password has at least {MIN_CHARS} characters.")
    if len(password) > MAX_CHARS:
        raise PasswordInvalid(f"A password has at most {MAX_CHARS} characters.")


def hash_password(password: str) -> str:
    check_policy(password)
    return _hasher.hash(password)


def verify(stored: str | None, password: str) -> bool:
    """Whether `password` matches `stored` (None: no password, still costs one verification)."""
    if len(password) > MAX_CHARS:
        return False
    try:
        return _hasher.verify(stored or _absent(), password) and stored is not None
    except (VerifyMismatchError, VerificationError, InvalidHashError):
        return False


def needs_rehash(stored: str) -> bool:
    return _hasher.check_needs_rehash(stored)
