"""Promise 2: random sequences of run / regenerate / edit / activate / stop / delete through the
API keep the tree invariants of DESIGN.md after every step: exactly one active sibling, the
active branch is a root-to-leaf path, nothing lost but by deleting the session, and every
answer settles as SUCCESS, FAILED or STOPPED."""

from __future__ import annotations

from collections import Counter
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import select

from agentchat.chat.tables import ChatMessage
from tests.reliability.helpers import SETTLED, wait_for
from tests.support.api_stack import Stack

SCRIPTS = ["#say x", "#delay 5\n#tokens 20", "#fail 500", "#think hm\n#say y"]
OPS = ["run", "run", "regenerate", "edit", "activate", "stop", "delete"]
Step = tuple[str, int]
steps = st.lists(st.tuples(st.sampled_from(OPS), st.integers(0, 1000)), min_size=1, max_size=8)
OK = {200, 201, 204}
REFUSED = {404, 409}


class Walk:
    """One session driven through the API; `seen` are the message ids it must keep."""

    def __init__(self, stack: Stack) -> None:
        self.stack = stack
        self.session_id = stack.new_session()
        self.seen: set[int] = set()

    def rows(self) -> list[ChatMessage]:
        with self.stack.database.session() as db:
            stmt = select(ChatMessage).where(ChatMessage.session_id == self.session_id)
            return list(db.scalars(stmt))

    def branch(self) -> list[dict[str, Any]]:
        detail = self.stack.get(f"/api/chat/sessions/{self.session_id}")
        return list(detail["messages"])

    def running(self) -> str | None:
        detail = self.stack.get(f"/api/chat/sessions/{self.session_id}")
        return detail["session"]["activeRunId"] if detail["session"]["hasActiveRun"] else None

    def apply(self, op: str, pick: int) -> None:
        http, base = self.stack.http, f"/api/chat/sessions/{self.session_id}"
        branch = self.branch()
        users = [m for m in branch if m["role"] == "USER"]
        answers = [m for m in branch if m["role"] == "ASSISTANT"]
        if op == "run":
            body = {"message": SCRIPTS[pick % len(SCRIPTS)]}
            status = http.post(f"{base}/runs", json=body).status_code
        elif op == "regenerate" and answers:
            target = answers[pick % len(answers)]["id"]
            status = http.post(f"/api/chat/messages/{target}/regenerate").status_code
        elif op == "edit" and users:
            target = users[pick % len(users)]["id"]
            response = http.patch(f"/api/chat/messages/{target}", json={"content": "#say e"})
            status = response.status_code
            if status == 200:
                new_id = response.json()["newMessageId"]
                run = {"message": "", "parentMessageId": new_id}
                assert http.post(f"{base}/runs", json=run).status_code in OK | REFUSED
        elif op == "activate" and branch:
            message = branch[pick % len(branch)]["id"]
            versions = self.stack.get(f"/api/chat/messages/{message}/versions")
            target = versions[pick % len(versions)]["messageId"]
            status = http.post(f"/api/chat/messages/{target}/activate").status_code
        elif op == "stop":
            run_id = self.running()
            if run_id is None:
                return
            status = http.post(f"/api/chat/runs/{run_id}/stop").status_code
        elif op == "delete":
            self.settle()
            status = http.delete(base).status_code
            assert status == 204
            assert http.get(base).status_code == 404
            self.__init__(self.stack)  # type: ignore[misc]
            return
        else:
            return
        assert status in OK | REFUSED, (op, status)

    def settle(self) -> None:
        wait_for(self.running, lambda run: run is None, timeout=30, what="runs to settle")

    def check(self, settled: bool = False) -> None:
        rows = self.rows()
        by_id = {m.id: m for m in rows}
        assert self.seen <= set(by_id), "a message was lost"
        self.seen = set(by_id)
        groups = Counter(m.parent_id for m in rows)
        active = Counter(m.parent_id for m in rows if m.is_active)
        assert {p: active[p] for p in groups} == dict.fromkeys(groups, 1), "active siblings"
        path, parent = [], None
        while parent in groups:
            node = next(m for m in rows if m.parent_id == parent and m.is_active)
            path.append(node.id)
            parent = node.id
        assert [m["id"] for m in self.branch()] == path[-50:], "active branch is not a path"
        if settled:
            statuses = {m.status for m in rows if m.role == "ASSISTANT"}
            assert statuses <= SETTLED, statuses


@given(plan=steps)
@settings(
    max_examples=10,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
def test_random_run_sequences_keep_the_tree_invariants(stack: Stack, plan: list[Step]) -> None:
    walk = Walk(stack)
    for op, pick in plan:
        walk.apply(op, pick)
        walk.check()
    walk.settle()
    walk.check(settled=True)
