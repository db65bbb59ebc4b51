"""What the bridge process keeps per session stays bounded by its pool, not by the number of
chats it ever served (a team's bridge sees tens of thousands): a session's turn lock lasts
while its turns do, and hermes' per-task state of a chat whose agent left the pool goes, to
be registered again when the chat comes back. Growth figures: bench/soak_growth.py."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from agentchat.bridge.hermes.pool import AgentPool, pool_key
from tests.bridge.child import run_child

pytestmark = pytest.mark.timeout(180)


def _key(session: str) -> tuple[str, str, str]:
    return pool_key(session, "/home", "m", "key")


def test_a_session_is_let_go_when_it_has_neither_an_agent_nor_a_turn() -> None:
    idle: list[str] = []
    pool: AgentPool[str] = AgentPool(1, on_idle=idle.append)
    with pool.turn_lock("a") as lock, lock:
        pool.get_or_create(_key("a"), lambda: "agent a")
    assert not pool.in_turn("a") and idle == []  # pooled: kept
    with pool.turn_lock("b") as lock, lock:
        pool.get_or_create(_key("b"), lambda: "agent b")  # evicts a, which runs no turn
        assert idle == ["a"]
    with pool.turn_lock("b") as lock_b:
        with pool.turn_lock("c") as lock_c, lock_c:
            pool.get_or_create(_key("c"), lambda: "agent c")  # evicts b, whose turn waits
        assert idle == ["a"] and pool.in_turn("b")
    assert idle == ["a", "b"] and not lock_b.locked()  # b's turn is over, b is not pooled


def test_a_turn_lock_serialises_turns_and_then_goes() -> None:
    pool: AgentPool[str] = AgentPool(2)
    order: list[str] = []
    with pool.turn_lock("s") as first, first:
        waiter = threading.Thread(target=lambda: _one_turn(pool, order))
        waiter.start()
        order.append("first")
    waiter.join(timeout=10)
    assert order == ["first", "second"]
    assert not pool.in_turn("s")


def _one_turn(pool: AgentPool[str], order: list[str]) -> None:
    with pool.turn_lock("s") as lock, lock:
        order.append("second")


def test_hermes_task_state_is_bounded_by_the_pool(tmp_path: Path, scripted_model: str) -> None:
    """Six new chats through a real bridge with a pool of two: hermes' working-folder
    overrides and cwd records are held for the pooled chats only, no turn lock is left, and a
    chat that comes back after its eviction works in its own scratch folder again."""
    # cwd: a relative path hermes resolved without our override would land there
    report = run_child("tests.bridge.held_state_child", tmp_path, str(tmp_path), scripted_model,
                       "6", "2")  # fmt: skip
    assert report["completed"] == 7
    after_all, after_back = report["afterAll"], report["afterBack"]
    assert after_all["pooled"] == ["chat-4", "chat-5"]
    assert sorted(after_all["taskOverrides"]) == ["agentchat-chat-4", "agentchat-chat-5"]
    assert after_all["sessionCwds"] == ["agentchat-chat-4", "agentchat-chat-5"]
    assert after_all["inTurn"] == [] and after_back["inTurn"] == []
    assert after_back["pooled"] == ["chat-0", "chat-5"]
    workspace = Path(report["workspace"])
    assert after_back["taskOverrides"] == {
        "agentchat-chat-0": str(workspace / "chat-0"),
        "agentchat-chat-5": str(workspace / "chat-5"),
    }
    written = {p.parent.name: p.read_text() for p in workspace.glob("*/note.txt")}
    assert written == {f"chat-{n}": f"chat-{n}" for n in range(1, 6)} | {"chat-0": "back"}
    assert not (tmp_path / "note.txt").exists()
