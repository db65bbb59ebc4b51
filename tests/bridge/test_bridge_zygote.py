"""Bridges forked from the worker's bridge zygote (tests/support/zygote.py, issue 29) are the
bridges their start asked for: hermes-agent, imported after the fork, keeps each bridge's memory
in that bridge's own hermes home; the secret arrives on standard input; a signal ends a forked
bridge as it ends an exec'd one."""

from __future__ import annotations

import json
import signal
from pathlib import Path

import httpx

from agentchat.bridge_client.client import BridgeClient
from tests.bridge.support import run_turn
from tests.support.servers import BridgeProcess, start_bridge
from tests.support.zygote import ForkedProcess, zygote_enabled


def _homes_holding(text: str, *bridges: BridgeProcess) -> list[Path]:
    return [
        b.home
        for b in bridges
        if any(text in p.read_text(errors="replace") for p in b.home.rglob("*.md"))
    ]


async def _remember(bridge: BridgeProcess, model: str, fact: str) -> None:
    args = {"action": "add", "target": "memory", "content": fact}
    async with BridgeClient(bridge.url, bridge.secret) as client:
        turn = await run_turn(client, model, f"#tool memory {json.dumps(args)}\n#echo-tool-result")
    assert turn.result is not None and turn.result.status == "SUCCESS", turn.result


async def test_forked_bridges_keep_to_their_own_hermes_home(
    tmp_path: Path, scripted_model: str
) -> None:
    # The first start of a worker is exec'd (its zygote preloads meanwhile), later ones forked.
    execd = start_bridge(tmp_path / "a", fork=False, AGENTCHAT_AGENT_TOOLSETS="memory")
    bridges = [execd] + [
        start_bridge(tmp_path / n, AGENTCHAT_AGENT_TOOLSETS="memory") for n in "bc"
    ]
    try:
        forked = [isinstance(b.process, ForkedProcess) for b in bridges]
        assert forked == [False] + [zygote_enabled()] * 2, forked
        for bridge in bridges:
            refused = httpx.get(f"{bridge.url}/runs", timeout=10)
            assert refused.status_code == 401  # the secret it read on stdin is required
            headers = {"Authorization": f"Bearer {bridge.secret}"}
            assert httpx.get(f"{bridge.url}/runs", headers=headers, timeout=10).status_code == 200

        await _remember(bridges[1], scripted_model, "FACT-OF-B")
        await _remember(bridges[2], scripted_model, "FACT-OF-C")
        assert _homes_holding("FACT-OF-B", *bridges) == [bridges[1].home]
        assert _homes_holding("FACT-OF-C", *bridges) == [bridges[2].home]

        codes = []
        for bridge in (execd, bridges[2]):
            bridge.process.send_signal(signal.SIGTERM)
            codes.append(bridge.process.wait(timeout=30))
            assert "Traceback" not in bridge.log_path.read_text(errors="replace")
        assert codes[0] == codes[1], codes  # uvicorn raises SIGTERM again once shut down
    finally:
        for bridge in bridges:
            bridge.stop()
