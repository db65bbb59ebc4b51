"""Password hashes with argon2-cffi's CHEAPEST profile in the test processes (issue 29), as
argon2-cffi and Django advise for test suites: an RFC 9106 hash costs ~0.19 s of CPU, and each
account a test adds costs a hash and a sign-in's verification. The code path is the same; only
the parameters differ. The production parameters and the rehash of a weaker stored hash at
sign-in are tested with the real profile (tests/accounts/test_password_hashes.py)."""

from __future__ import annotations

from argon2 import PasswordHasher
from argon2.profiles import CHEAPEST

from agentchat.accounts import passwords


def use_cheapest_password_hashes() -> None:
    """This process hashes and verifies with CHEAPEST from now on."""
    use_hasher(PasswordHasher.from_parameters(CHEAPEST))


def use_hasher(hasher: PasswordHasher) -> None:
    passwords._hasher = hasher
    passwords._absent.cache_clear()  # made with the hasher before
