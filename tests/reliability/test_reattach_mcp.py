"""A run re-attached by an API that came back still scrubs the secrets of its MCP servers from
what it publishes and stores (the first API knew them from the run request; the one that
comes back reads them from the database)."""

from __future__ import annotations

import signal

from tests.reliability.helpers import last_answer
from tests.reliability.test_reattach import Api, api  # noqa: F401 (fixture)
from tests.support.mcp_servers import stdio_server
from tests.support.sse import until_terminal

TOKEN = "mcp-secret-after-restart-42"
# The API dies while the first tool runs (tool time is not the model's silence); the secret
# comes after, through the API that comes back.
MESSAGE = (
    '#tool mcp__tools__wait {"seconds": 5}\n'
    '#tool mcp__tools__env_value {"name": "SERVICE_TOKEN"}\n#echo-tool-result'
)


def test_a_reattached_run_still_scrubs_its_mcp_secrets(api: Api) -> None:  # noqa: F811
    with api.http() as http:
        server = stdio_server(env={"SERVICE_TOKEN": TOKEN})
        assert http.post("/api/mcp/servers", json=server).status_code == 201
    session_id, run_id = api.start(MESSAGE)
    before = api.events(
        run_id, stop=lambda evs: any(e.data.get("kind") == "tool_call" for e in evs)
    )
    api.restart_after(signal.SIGKILL)

    after = api.events(run_id, before[-1].num, stop=until_terminal, timeout=90)
    assert after[-1].event == "workflow_complete", after[-1].data
    assert "***" in after[-1].data["finalText"]  # the echoed result, scrubbed
    assert TOKEN not in str([e.data for e in before + after])
    with api.http() as http:
        answer = last_answer(http, session_id)
        assert TOKEN not in str(answer)
