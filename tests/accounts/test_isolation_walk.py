"""Issue 28: no one reaches another person's objects, on any route.

The walk reads every operation of the OpenAPI document and calls it as Carol (a user) and as
Alice (an administrator) against Bob's objects: his chat, a message of it, his run (waiting on
a question, so clarify, steer and stop have something to act on), his private model, his
sign-in session. A route that names one of them must answer 404 or 403; any answer on any
route must not carry Bob's secret words; and afterwards Bob's objects are as they were. A
route whose path names something the walk does not know fails it: a new route has to say
what it names, and so cannot slip by without an owner check."""

from __future__ import annotations

import re
from typing import Any

import httpx
import pytest

from tests.support.team_stack import Person, Team

SECRET = "walnutsecret"  # in Bob's chat title, question, model name and key
CLARIFY = f"#clarify Which {SECRET} colour? | red | blue"
# Routes that act on the caller's own sign-in, not on anyone's object (their effect on the
# caller is tested in test_signin.py): calling them mid-walk would end the walker's session.
OWN_SIGN_IN = {
    ("POST", "/api/auth/logout"),
    ("POST", "/api/auth/logout-everywhere"),
    ("POST", "/api/auth/password"),
    ("POST", "/api/auth/login"),
    ("POST", "/api/auth/signup"),
    ("GET", "/api/auth/oidc/start"),
    ("GET", "/api/auth/oidc/callback"),
}
# Path parameters that name no one's object: skills and MCP servers are the server's (the
# Tools page is an administrator's), invitation tokens are the public door (unknown ones
# answer 404 below anyway).
UNOWNED = {"folder_name", "token", "server_id"}


@pytest.fixture
def bobs(team: Team) -> dict[str, Any]:
    """Bob's objects, one of each kind a path can name."""
    bob = team.add("bob")
    team.add("carol")
    session_id = bob.new_session(title=f"Bob's {SECRET} plans")
    started = bob.start(session_id, CLARIFY)
    bob.events(started["runId"], stop=lambda evs: any(_asks(e.data) for e in evs))
    model = bob.post(
        "/api/models",
        {
            "name": f"{SECRET} model",
            "baseUrl": "http://127.0.0.1:9/v1",
            "modelName": "m",
            "apiKey": f"sk-{SECRET}-0123456789",
        },
        expect=201,
    )
    assert model["shared"] is False
    attached = bob.http.post(
        f"/api/chat/sessions/{session_id}/attachments",
        params={"name": f"{SECRET}.txt"},
        content=f"Bob's {SECRET} notes".encode(),
    )
    assert attached.status_code == 201, attached.text
    own_sessions = bob.get("/api/auth/sessions")
    invitation = team.admin.post("/api/admin/invitations", {"role": "user"}, expect=201)
    return {
        "session_id": session_id,
        "message_id": started["userMessageId"],
        "run_id": started["runId"],
        "model_id": model["id"],
        "user_id": bob.id,
        "invitation_id": invitation["id"],
        "auth_session_id": own_sessions[0]["id"],
        "attachment_id": attached.json()["id"],
    }


def _asks(data: dict[str, Any]) -> bool:
    return data.get("kind") == "clarify_request"


def _operations(person: Person) -> list[tuple[str, str, dict[str, Any]]]:
    document = person.get("/openapi.json")
    found = []
    for path, item in document["paths"].items():
        for method, operation in item.items():
            if path.startswith("/api/"):
                found.append((method.upper(), path, {"doc": document, "op": operation}))
    return sorted(found, key=lambda op: (op[1], op[0]))


def _concrete(path: str, objects: dict[str, Any]) -> tuple[str, bool]:
    """The path with Bob's objects in it; whether it names one of them."""
    names = re.findall(r"\{([^}]+)\}", path)
    unknown = [n for n in names if n not in objects and n not in UNOWNED]
    assert not unknown, f"{path}: the walk does not know what {unknown} names; teach it"
    if path.startswith("/api/auth/sessions/"):
        objects = {**objects, "session_id": objects["auth_session_id"]}
    concrete = path
    for name in names:
        value = objects.get(name, "no-such-thing")
        concrete = concrete.replace("{" + name + "}", str(value))
    return concrete, any(n not in UNOWNED for n in names)


def _body(doc: dict[str, Any], operation: dict[str, Any]) -> Any:
    content = operation.get("requestBody", {}).get("content", {})
    schema = content.get("application/json", {}).get("schema")
    return _example(doc, schema) if schema else None


def _example(doc: dict[str, Any], schema: dict[str, Any], depth: int = 0) -> Any:
    """A small value that fits `schema` (required fields only)."""
    if "$ref" in schema:
        name = schema["$ref"].rsplit("/", 1)[1]
        return _example(doc, doc["components"]["schemas"][name], depth)
    for key in ("anyOf", "oneOf"):
        if key in schema:
            options = [s for s in schema[key] if s.get("type") != "null"]
            return _example(doc, options[0], depth) if options else None
    if "enum" in schema:
        return schema["enum"][0]
    if "const" in schema:
        return schema["const"]
    kind = schema.get("type")
    if kind == "object" and depth < 4:
        props = schema.get("properties", {})
        return {k: _example(doc, props[k], depth + 1) for k in schema.get("required", [])}
    return {
        "string": "walk-" + "x" * max(0, int(schema.get("minLength", 0)) - 5),
        "integer": max(1, int(schema.get("minimum", 1))),
        "number": 1,
        "boolean": False,
        "array": [],
    }.get(kind or "")


def _walk(walker: Person, objects: dict[str, Any], admin: bool) -> list[str]:
    problems = []
    for method, path, spec in _operations(walker):
        if (method, path) in OWN_SIGN_IN or (admin and path.startswith("/api/admin/")):
            continue
        concrete, names_object = _concrete(path, objects)
        params = {"runs": objects["run_id"]} if path == "/api/chat/stream" else {"q": SECRET}
        body = _body(spec["doc"], spec["op"])
        try:
            response = walker.http.request(method, concrete, params=params, json=body, timeout=10)
        except httpx.ReadTimeout:
            problems.append(f"{method} {concrete}: kept the connection open (a stream?)")
            continue
        refused = response.status_code in (403, 404)
        must_refuse = (
            names_object
            or path == "/api/chat/stream"
            or (path.startswith("/api/admin/") and not admin)
        )
        if must_refuse and not refused:
            problems.append(f"{method} {concrete}: {response.status_code} {response.text[:200]}")
        if SECRET in response.text:
            problems.append(f"{method} {concrete}: answered with Bob's words")
    return problems


def _unchanged(team: Team, bob: Person, objects: dict[str, Any], title: str) -> None:
    chat = bob.get(f"/api/chat/sessions/{objects['session_id']}")
    assert chat["session"]["title"] == title
    assert len(chat["messages"]) == 2
    state = bob.get(f"/api/chat/runs/{objects['run_id']}/state")
    assert state["status"] == "RUNNING" and state["pendingClarify"] is not None
    model = bob.get(f"/api/models/{objects['model_id']}")
    assert model["name"] == f"{SECRET} model" and model["hasApiKey"]
    assert bob.get("/api/auth/me")["username"] == "bob"
    file = f"/api/chat/sessions/{objects['session_id']}/attachments/{objects['attachment_id']}"
    assert bob.http.get(file).text == f"Bob's {SECRET} notes"
    assert any(u["username"] == "bob" for u in team.admin.get("/api/admin/users"))


def test_every_route_refuses_another_persons_objects(team: Team, bobs: dict[str, Any]) -> None:
    bob, carol = team.people["bob"], team.people["carol"]
    title = bob.get(f"/api/chat/sessions/{bobs['session_id']}")["session"]["title"]

    problems = _walk(carol, bobs, admin=False) + _walk(team.admin, bobs, admin=True)

    assert not problems, "\n".join(problems)
    _unchanged(team, bob, bobs, title)
    operations = {(m, p) for m, p, _ in _operations(carol)}
    assert len(operations) >= 45
    assert ("POST", "/api/chat/runs/{run_id}/clarify") in operations
    run = bobs["run_id"]
    clarify_id = bob.get(f"/api/chat/runs/{run}/state")["pendingClarify"]["clarifyId"]
    bob.post(f"/api/chat/runs/{run}/clarify", {"clarifyId": clarify_id, "answer": "red"}, 200)
    assert bob.events(run, timeout=30)[-1].event == "workflow_complete"
