"""Promise 1: a model endpoint that times out, fails or breaks its stream ends the run FAILED
with the provider's words, within seconds."""

from __future__ import annotations

import ast
import time
from pathlib import Path

import pytest

from tests.reliability.fake_provider import broken_stream_endpoint
from tests.reliability.helpers import answers
from tests.support.api_stack import Stack

SRC = Path(__file__).resolve().parents[2] / "src" / "agentchat"


def _fails_with(stack: Stack, message: str, words: str, model_id: int | None = None) -> None:
    session_id = stack.new_session()
    extra = {"modelId": model_id} if model_id is not None else {}
    started = time.monotonic()
    _, events = stack.ask(session_id, message, **extra)
    assert time.monotonic() - started < 15
    end = events[-1]
    assert end.event == "workflow_error", end
    assert words in end.data["message"], end.data["message"]
    answer = answers(stack.get(f"/api/chat/sessions/{session_id}"))[-1]
    assert answer["status"] == "FAILED"
    assert words in answer["error"]


@pytest.mark.parametrize(
    ("script", "words"),
    [
        ("#fail 500", "HTTP 500: Scripted failure"),
        ("#fail 429", "HTTP 429: Scripted failure"),
        ("#fail 503", "HTTP 503: Scripted failure"),
        ("#sleep 20000\n#say never", "timed out"),  # 4x the 5 s silence limit
    ],
    ids=["500", "429", "503", "timeout"],
)
def test_a_failing_model_ends_the_run_failed_with_its_words(
    stack: Stack, script: str, words: str
) -> None:
    _fails_with(stack, script, words)


def test_a_broken_stream_ends_the_run_failed(stack: Stack) -> None:
    with broken_stream_endpoint() as base_url:
        model = stack.post(
            "/api/models",
            {"name": "broken", "baseUrl": base_url, "modelName": "broken"},
            expect=201,
        )
        session_id = stack.new_session()
        started = time.monotonic()
        _, events = stack.ask(session_id, "hello", modelId=model["id"])
        assert time.monotonic() - started < 15
    assert events[-1].event == "workflow_error", events[-1]
    answer = answers(stack.get(f"/api/chat/sessions/{session_id}"))[-1]
    assert answer["status"] == "FAILED" and answer["error"], answer


def _client_calls_without_timeout(tree: ast.AST) -> list[int]:
    """Lines of httpx.Client/AsyncClient/get/post/stream/request calls with no timeout=."""
    names = {"Client", "AsyncClient", "get", "post", "put", "delete", "stream", "request"}
    missing = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute):
            continue
        owner = node.func.value
        is_httpx = isinstance(owner, ast.Name) and owner.id == "httpx"
        timed = any(k.arg == "timeout" for k in node.keywords)
        if is_httpx and node.func.attr in names and not timed:
            missing.append(node.lineno)
    return missing


def test_every_outbound_http_client_has_a_timeout() -> None:
    offenders = []
    for path in SRC.rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        offenders += [f"{path.relative_to(SRC)}:{n}" for n in _client_calls_without_timeout(tree)]
        if "urllib.request" in path.read_text(encoding="utf-8"):
            offenders.append(f"{path.relative_to(SRC)}: urllib.request")
    assert offenders == []
