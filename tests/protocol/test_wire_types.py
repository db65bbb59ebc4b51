"""The protocol's typed words (issue 32): one run status from the bridge to the page, a typed
token usage, and the run request the API builds as a model, not a dict."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from agentchat.chat.enums import STATUSES_OF, MessageRole
from agentchat.protocol.bridge_api import ModelConfig, RunRequest
from agentchat.protocol.events import RunEnd, decode, workflow_complete
from agentchat.protocol.status import RunStatus
from agentchat.protocol.usage import Usage, usage_from_json, usage_json


def test_the_bridge_and_the_api_say_a_run_status_with_the_same_words() -> None:
    end = RunEnd(status=RunStatus.STOPPED, final_text="so far")
    assert end.wire()["status"] == "STOPPED"
    assert decode("run_end", end.wire_json()).status is RunStatus.STOPPED
    # an answer's statuses are exactly the run's
    assert STATUSES_OF[MessageRole.ASSISTANT] == set(RunStatus)


def test_an_older_bridges_lowercase_end_reads_as_the_same_status() -> None:
    assert decode("run_end", '{"status": "success"}').status is RunStatus.SUCCESS
    assert decode("run_end", '{"status": "failed"}').status is RunStatus.FAILED


@pytest.mark.parametrize("status", ["RUNNING", "INTERRUPTED", "done"])
def test_a_bridge_ends_a_turn_only_success_failed_or_stopped(status: str) -> None:
    with pytest.raises(ValidationError):
        decode("run_end", f'{{"status": "{status}"}}')


def test_usage_is_typed_and_its_zeros_stay_off_the_wire() -> None:
    end = decode("run_end", '{"status": "SUCCESS", "usage": {"promptTokens": 12, "apiCalls": 0}}')
    assert isinstance(end, RunEnd)
    assert end.usage.prompt_tokens == 12 and end.usage.completion_tokens == 0
    assert end.wire()["usage"] == {"promptTokens": 12}
    done = workflow_complete("r", 1, "ok", end.usage)
    assert done.wire()["usage"] == {"promptTokens": 12}
    assert "usage" not in workflow_complete("r", 1, "ok", Usage()).wire()


def test_a_counter_that_is_no_count_reads_as_zero() -> None:
    usage = Usage.model_validate(
        {"promptTokens": -4, "completionTokens": "7", "apiCalls": True, "totalTokens": 2.9}
    )
    assert (usage.prompt_tokens, usage.completion_tokens, usage.api_calls) == (0, 0, 0)
    assert usage.total_tokens == 2


def test_usage_adds_model_calls_and_counts_growth() -> None:
    before = Usage(prompt_tokens=10, api_calls=1)
    after = before.counted(prompt=5, completion=3, calls=2)
    assert (after.prompt_tokens, after.input_tokens, after.completion_tokens) == (15, 5, 3)
    assert (after.output_tokens, after.total_tokens, after.api_calls) == (3, 8, 3)
    growth = after.since(before)
    assert (growth.prompt_tokens, growth.api_calls) == (5, 2)
    assert before.since(after) == Usage()  # never below 0


def test_usage_is_stored_without_zeros_and_read_back() -> None:
    usage = Usage(total_tokens=42, context_length=131_072)
    raw = usage_json(usage)
    assert raw == '{"totalTokens":42,"contextLength":131072}'
    assert usage_from_json(raw) == usage
    assert usage_json(Usage()) is None
    assert usage_from_json(None) is None and usage_from_json("[1, 2]") is None
    assert usage_from_json("not json") is None


def test_the_run_request_sends_only_what_the_api_set() -> None:
    model = ModelConfig(base_url="http://127.0.0.1:1/v1", model_name="m", provider=None)
    request = RunRequest(run_id="r", session_id="s", user_message="hi", model=model)
    assert request.wire() == {
        "runId": "r",
        "sessionId": "s",
        "userMessage": "hi",
        "model": {"baseUrl": "http://127.0.0.1:1/v1", "modelName": "m", "provider": None},
    }
    with_skill = request.model_copy(update={"skills": ["notes"]})
    assert with_skill.wire()["skills"] == ["notes"]
