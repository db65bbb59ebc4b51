"""Random sequences of append / edit / activate / new_sibling keep the tree's invariants."""

from __future__ import annotations

from collections import Counter
from itertools import pairwise

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import select

from agentchat.chat import sessions, tree
from agentchat.chat.tables import ChatMessage
from agentchat.core.database import Database
from tests.chat.seed import new_session

EXAMPLES = {"sqlite": 40, "postgresql": 15, "mariadb": 10}

# (operation, which existing message: an index into the ids seen so far)
Step = tuple[str, int]
steps = st.lists(
    st.tuples(
        st.sampled_from(["append", "append_root", "edit", "activate", "sibling"]),
        st.integers(0, 10_000),
    ),
    min_size=1,
    max_size=25,
)


def _apply(db: Database, chat: int, step: Step, ids: list[int]) -> None:
    kind, pick = step
    with db.session() as s:
        leaf = tree.active_leaf(s, chat)
        target = s.get(ChatMessage, ids[pick % len(ids)]) if ids else None
        if kind == "append_root" or leaf is None:
            tree.append_message(s, chat, None, "USER", "root", "SENT")
        elif kind == "append":
            role = "ASSISTANT" if leaf.role == "USER" else "USER"
            status = "SUCCESS" if role == "ASSISTANT" else "SENT"
            tree.append_message(s, chat, leaf.id, role, kind, status)
        elif kind == "edit" and target is not None and target.role == "USER":
            tree.edit_user_message(s, target.id, "edited")
        elif kind == "activate" and target is not None:
            tree.activate(s, target.id)
        elif kind == "sibling" and target is not None:
            tree.new_sibling(s, target.id, "again", status=_final(target.role))


def _final(role: str) -> str:
    return {"USER": "SENT", "ASSISTANT": "SUCCESS", "SYSTEM": "SUMMARY"}[role]


def _check(db: Database, chat: int, before: list[int]) -> list[int]:
    with db.session() as s:
        rows = list(s.scalars(select(ChatMessage).where(ChatMessage.session_id == chat)))
        branch = tree.active_branch(s, chat)
    by_id = {m.id: m for m in rows}
    assert set(before) <= set(by_id), "a message was lost"
    active = Counter(m.parent_id for m in rows if m.is_active)
    groups = {m.parent_id for m in rows}
    assert all(active[parent] == 1 for parent in groups), "not exactly one active sibling"
    for m in rows:
        expected = 0 if m.parent_id is None else by_id[m.parent_id].depth + 1
        assert m.depth == expected
    if rows:
        assert branch[0].parent_id is None and branch[0].is_active
        for parent, child in pairwise(branch):
            assert child.parent_id == parent.id and child.is_active
        assert not any(m.parent_id == branch[-1].id for m in rows if m.is_active)
    return sorted(by_id)


def _run(db: Database, script: list[Step]) -> None:
    chat = new_session(db)
    ids: list[int] = []
    try:
        for step in script:
            _apply(db, chat, step, ids)
            ids = _check(db, chat, ids)
    finally:
        with db.session() as s:
            sessions.delete_session(s, sessions.get_session(s, chat))


def test_tree_invariants_hold_for_random_operations(any_database: Database) -> None:
    dialect = any_database.dialect if any_database.dialect != "mysql" else "mariadb"

    @settings(
        max_examples=EXAMPLES[dialect],
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow],
        database=None,
    )
    @given(script=steps)
    def check(script: list[Step]) -> None:
        _run(any_database, script)

    check()
