"""The OpenAPI document the page's TypeScript types are generated from (scripts/openapi.py)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
# Routes whose 200 is not JSON (a file, an event stream) or deliberately free-form.
NOT_JSON = {
    "GET /api/chat/sessions/{session_id}/export",
    "GET /api/chat/sessions/{session_id}/export/files",
    "GET /api/chat/sessions/{session_id}/attachments/{attachment_id}",
    "GET /api/chat/sessions/{session_id}/attachments/{attachment_id}/thumbnail",
    "GET /api/chat/runs/{run_id}/stream",
    "GET /api/chat/stream",
    "GET /api/health",
}


@pytest.fixture(scope="module")
def written(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The folder the script ran in, holding the document it wrote."""
    folder = tmp_path_factory.mktemp("openapi")
    subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "openapi.py"), str(folder / "openapi.json")],
        check=True,
        cwd=folder,
        timeout=120,
    )
    return folder


@pytest.fixture(scope="module")
def doc(written: Path) -> dict[str, Any]:
    return json.loads((written / "openapi.json").read_text(encoding="utf-8"))


def _untyped(schema: dict[str, Any] | None) -> bool:
    if schema is None or schema == {}:
        return True
    return schema.get("type") == "object" and "properties" not in schema


def test_script_writes_the_document_without_a_server_and_every_json_answer_is_typed(
    written: Path, doc: dict[str, Any]
) -> None:
    untyped = []
    for path, operations in doc["paths"].items():
        for method, operation in operations.items():
            for status, response in operation["responses"].items():
                if not status.startswith("2") or status == "204":
                    continue
                schema = response.get("content", {}).get("application/json", {}).get("schema")
                name = f"{method.upper()} {path}"
                if name not in NOT_JSON and _untyped(schema):
                    untyped.append(name)
    assert untyped == []
    assert list(written.iterdir()) == [written / "openapi.json"]  # nothing else written


def test_fields_with_defaults_are_required_in_answers(doc: dict[str, Any]) -> None:
    schemas = doc["components"]["schemas"]
    assert {"logs", "usage"} <= set(schemas["MessagePublic"]["required"])
    memory = schemas["MemoryFile"]["required"]
    assert {"entries", "chars", "charLimit"} <= set(memory)
    # Left out of the JSON when None (the route excludes None): optional.
    assert "error" not in schemas["SkillSummary"].get("required", [])
