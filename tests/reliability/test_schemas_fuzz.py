"""Promise 2: schemathesis drives the OpenAPI schemas of the API and of the bridge with
generated input (valid and invalid) and finds no 500, no answer that breaks its own schema,
and no hang. Bounded: a few examples per operation and mode, a timeout per call, no stateful
phase. Each operation's failures are collected so one run reports all of them."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from hypothesis.errors import Unsatisfiable
from schemathesis import GenerationMode, checks

from agentchat.app import create_app
from agentchat.core.database import Database
from tests.support.api_stack import api_settings
from tests.support.databases import fresh_database_url
from tests.support.servers import BridgeProcess, serve_app

EXAMPLES = 10
EXAMPLES_FOR = {"/run": 4}  # each one is a real agent turn
CALL_TIMEOUT_S = 15
STREAMS = {"/api/chat/runs/{run_id}/stream", "/api/chat/stream", "/run", "/runs/{run_id}/events"}
FULL_CHECKS = [
    checks.not_a_server_error,
    checks.response_schema_conformance,
    checks.content_type_conformance,
]
Prepare = Callable[[Any], dict[str, str]]


@pytest.fixture(scope="module")
def api_url(
    tmp_path_factory: pytest.TempPathFactory, bridge: BridgeProcess, scripted_url: str
) -> Iterator[str]:
    """The API on a database of its own, wired to the shared bridge, rate limit off."""
    root = tmp_path_factory.mktemp("fuzz-api")
    database = Database(fresh_database_url("sqlite", root, tag="fuzz"))
    config = api_settings(root / "data", bridge, run_rate_per_minute=0)
    url, stop = serve_app(create_app(config, database=database))
    yield url
    stop()
    database.dispose()


def _fuzz_operation(operation: Any, mode: GenerationMode, prepare: Prepare) -> list[str]:
    failures: list[str] = []
    used = [checks.not_a_server_error] if operation.path in STREAMS else FULL_CHECKS

    @given(case=operation.as_strategy(generation_mode=mode))
    @settings(
        max_examples=EXAMPLES_FOR.get(operation.path, EXAMPLES),
        deadline=None,
        derandomize=True,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    def run(case: Any) -> None:
        case.call_and_validate(headers=prepare(case), checks=used, timeout=CALL_TIMEOUT_S)

    try:
        run()
    except Unsatisfiable:
        pass  # nothing to break: no parameters to make invalid in this mode
    except Exception as exc:  # a check failure or a timeout: note it, fuzz the next one
        failures.append(f"{operation.method.upper()} {operation.path} [{mode.value}]: {exc}")
    return failures


def _fuzz_schema(schema: Any, prepare: Prepare) -> list[str]:
    failures: list[str] = []
    for result in schema.get_all_operations():
        operation = result.ok()
        for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE):
            failures += _fuzz_operation(operation, mode, prepare)
    return failures


def _report(failures: list[str]) -> str:
    unique = sorted(set(failures))
    return f"{len(unique)} failure(s):\n" + "\n\n".join(f[:1500] for f in unique[:20])


def test_the_api_answers_generated_requests_within_its_schema(api_url: str) -> None:
    schema = schemathesis.openapi.from_url(f"{api_url}/openapi.json")
    failures = _fuzz_schema(schema, lambda case: {})
    assert not failures, _report(failures)


def test_the_bridge_answers_generated_requests_within_its_schema(
    bridge: BridgeProcess, scripted_url: str
) -> None:
    headers = {"Authorization": f"Bearer {bridge.secret}"}
    schema = schemathesis.openapi.from_url(f"{bridge.url}/openapi.json", headers=headers)

    def prepare(case: Any) -> dict[str, str]:
        model = case.body.get("model") if isinstance(case.body, dict) else None
        if case.operation.path == "/run" and isinstance(model, dict):
            # A generated turn talks to the scripted model only, and briefly.
            model["baseUrl"] = scripted_url
            case.body["userMessage"] = "#say fuzzed"
        return {"Authorization": f"Bearer {bridge.secret}"}

    failures = _fuzz_schema(schema, prepare)
    assert not failures, _report(failures)
