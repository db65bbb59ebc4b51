"""A chat's compression model: hermes' summary request goes to the model the chat chose, not
to its own (two scripted model instances, each recording what reached it)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from agentchat.bridge_client.client import BridgeClient
from tests.bridge.support import chat_history, model, run_turn
from tests.support.recording_model import RecordingModel, recording_model

pytestmark = pytest.mark.timeout(120)

FORCE_COMPACTION = "#usage 60000\n#tool skills_list {}\n#say after compaction"


@pytest.fixture(scope="module")
def summarizer() -> Iterator[RecordingModel]:
    with recording_model() as second:
        yield second


def summary_requests(recorder: RecordingModel) -> list[str]:
    bodies = [r.body for r in recorder.requests if r.method == "POST" and isinstance(r.body, dict)]
    return [b["model"] for b in bodies if "TURNS TO SUMMARIZE" in str(b.get("messages"))]


async def test_the_summary_request_goes_to_the_chosen_model(
    client: BridgeClient, recorder: RecordingModel, summarizer: RecordingModel
) -> None:
    history = chat_history([(f"question {i}", f"answer {i}") for i in range(30)])
    writer = {**model(summarizer.url, 131072), "modelName": "summary-writer"}
    turn = await run_turn(
        client,
        recorder.url,
        FORCE_COMPACTION,
        session="s-compress",
        history=history,
        model=model(recorder.url, 64000),
        compressionModel=writer,
    )

    assert turn.result is not None and turn.result.status == "SUCCESS"
    assert turn.result.compacted and turn.of("context_compacted")
    assert summary_requests(summarizer) == ["summary-writer"]
    assert summary_requests(recorder) == []
    # the chosen model wrote the summary the chat keeps
    (compacted,) = turn.of("context_compacted")
    assert compacted.content.strip()


async def test_without_a_choice_the_chats_own_model_writes_it(
    client: BridgeClient, recorder: RecordingModel, summarizer: RecordingModel
) -> None:
    before = len(summary_requests(summarizer))
    history = chat_history([(f"question {i}", f"answer {i}") for i in range(30)])
    turn = await run_turn(
        client,
        recorder.url,
        FORCE_COMPACTION,
        session="s-own",
        history=history,
        model=model(recorder.url, 64000),
    )

    assert turn.result is not None and turn.result.compacted
    assert summary_requests(recorder) == ["scripted"]
    assert len(summary_requests(summarizer)) == before
