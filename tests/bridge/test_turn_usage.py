"""A turn's usage counts hermes' compaction summariser (issue 15, finding 6): hermes leaves the
summariser's tokens out of its own counters; the bridge adds them, shown apart and in the
totals. The summariser request is recorded on the wire to know its exact prompt tokens."""

from __future__ import annotations

import pytest

from agentchat.bridge_client.client import BridgeClient
from agentchat.scripted_llm.wire import estimate_prompt_tokens
from tests.bridge.support import chat_history, model, run_turn
from tests.support.recording_model import RecordingModel

pytestmark = pytest.mark.timeout(120)


async def test_the_compaction_summariser_is_in_the_turns_usage(
    client: BridgeClient, recorder: RecordingModel
) -> None:
    history = chat_history([(f"question {i}", f"answer {i}") for i in range(30)])
    message = "#usage 60000\n#tool skills_list {}\n#say after compaction"
    turn = await run_turn(
        client, recorder.url, message, history=history, model=model(recorder.url, 64000)
    )

    assert turn.result is not None and turn.result.status == "SUCCESS"
    assert turn.result.compacted
    summaries = [
        r for r in recorder.posts("scripted") if "TURNS TO SUMMARIZE" in str(r.body["messages"])
    ]
    assert len(summaries) == 1
    expected = estimate_prompt_tokens(summaries[0].body["messages"])
    usage = turn.result.usage
    assert usage.summary_prompt_tokens == expected
    assert usage.summary_completion_tokens > 0
    turn_calls = len(recorder.posts("scripted")) - 1
    assert usage.api_calls == turn_calls + 1
    assert usage.prompt_tokens >= 60000 + expected
