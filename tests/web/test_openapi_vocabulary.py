"""Roles and statuses are closed sets in the OpenAPI document, so the page's generated types are
unions, not `string`."""

from __future__ import annotations

from typing import Any

from agentchat.app import create_app
from agentchat.core.settings import Settings

ROLES = {"USER", "ASSISTANT", "SYSTEM"}
MESSAGE_STATUSES = {
    "SENT",
    "RUNNING",
    "SUCCESS",
    "FAILED",
    "STOPPED",
    "INTERRUPTED",
    "SUMMARY",
    "RESET",
}
SESSION_STATUSES = {"ACTIVE", "ARCHIVED"}


def _openapi(tmp_path: Any) -> dict[str, Any]:
    settings = Settings(_env_file=None, data_dir=tmp_path, start_bridge=False)  # type: ignore[call-arg]
    return create_app(settings).openapi()


def _values(doc: dict[str, Any], schema: dict[str, Any]) -> set[str]:
    """The closed set of strings a property allows (through $ref and nullable anyOf)."""
    if "$ref" in schema:
        name = schema["$ref"].rsplit("/", 1)[1]
        return _values(doc, doc["components"]["schemas"][name])
    if "anyOf" in schema:
        return set().union(*(_values(doc, s) for s in schema["anyOf"] if s.get("type") != "null"))
    assert "enum" in schema, f"an open string, not a closed set: {schema}"
    return set(schema["enum"])


def _prop(doc: dict[str, Any], model: str, name: str) -> set[str]:
    return _values(doc, doc["components"]["schemas"][model]["properties"][name])


def test_roles_and_statuses_are_closed_sets(tmp_path: Any) -> None:
    doc = _openapi(tmp_path)
    assert _prop(doc, "MessagePublic", "role") == ROLES
    assert _prop(doc, "MessagePublic", "status") == MESSAGE_STATUSES
    assert _prop(doc, "VersionPublic", "role") == ROLES
    assert _prop(doc, "VersionPublic", "status") == MESSAGE_STATUSES
    assert _prop(doc, "SessionPublic", "status") == SESSION_STATUSES
    assert _prop(doc, "SessionUpdate", "status") == SESSION_STATUSES


def test_a_run_snapshot_status_is_a_message_status(tmp_path: Any) -> None:
    doc = _openapi(tmp_path)
    ok = doc["paths"]["/api/chat/runs/{run_id}/state"]["get"]["responses"]["200"]
    name = ok["content"]["application/json"]["schema"]["$ref"].rsplit("/", 1)[1]
    assert _prop(doc, name, "status") == MESSAGE_STATUSES
