"""Where a bridge keeps one person's agent when the server has accounts: a hermes home of its
own (memory, agent-made skills) below the bridge's, named after the opaque `userId` the API
sends with each run and memory request. The API reads that folder too (the Skills page lists
the person's agent-made skills), so both sides name it here."""

from __future__ import annotations

import hashlib
import re

PEOPLE_DIR = "people"
_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]+")


def person_folder(user_id: str) -> str:
    """The folder name of `user_id` under `<hermes home>/people/`: the id itself when it is a
    plain name ("user-7"), else a cleaned name with a hash of the id (no two ids share one)."""
    cleaned = _UNSAFE.sub("_", user_id).lstrip(".") or "_"
    if cleaned == user_id:
        return cleaned
    return f"{cleaned[:60]}-{hashlib.sha256(user_id.encode()).hexdigest()[:16]}"
