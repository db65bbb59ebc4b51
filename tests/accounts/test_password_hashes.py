"""The password hashes a real process makes, and the rehash of a weaker stored hash at sign-in.

The test processes hash with argon2's CHEAPEST profile (tests/support/cheap_passwords.py): these
tests are the ones that see the production profile, RFC 9106's low-memory one."""

from __future__ import annotations

import subprocess
import sys

from argon2 import PasswordHasher, extract_parameters
from argon2.profiles import CHEAPEST, RFC_9106_LOW_MEMORY
from sqlalchemy import select

from agentchat.accounts.tables import AppUser
from tests.support.cheap_passwords import use_cheapest_password_hashes, use_hasher
from tests.support.team_stack import PASSWORD, Team, sign_in

HASH_IN_A_NEW_PROCESS = (
    "from agentchat.accounts.passwords import hash_password; print(hash_password('a password'))"
)


def _stored_hash(team: Team, name: str) -> str:
    with team.database.session() as db:
        stored = db.scalars(select(AppUser.password_hash).where(AppUser.username == name)).one()
    assert stored is not None
    return stored


def test_a_new_process_hashes_with_the_rfc_9106_low_memory_profile() -> None:
    made = subprocess.run(
        [sys.executable, "-c", HASH_IN_A_NEW_PROCESS],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    ).stdout.strip()
    assert made.startswith("$argon2id$")
    assert extract_parameters(made) == RFC_9106_LOW_MEMORY


def test_a_weaker_stored_hash_is_replaced_at_the_next_sign_in(team: Team) -> None:
    team.add("bob")  # hashed with CHEAPEST: weaker than production's
    assert extract_parameters(_stored_hash(team, "bob")) == CHEAPEST

    use_hasher(PasswordHasher.from_parameters(RFC_9106_LOW_MEMORY))
    try:
        sign_in(team.url, "bob")
        assert extract_parameters(_stored_hash(team, "bob")) == RFC_9106_LOW_MEMORY
        sign_in(team.url, "bob")  # the new hash verifies the same password
        refused = team.admin.http.post(
            "/api/auth/login", json={"username": "bob", "password": PASSWORD + "!"}
        )
        assert refused.status_code == 401, refused.text
    finally:
        use_cheapest_password_hashes()
