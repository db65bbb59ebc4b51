"""What each directive plays, checked on the pure event stream."""

from __future__ import annotations

import json
import re
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from agentchat.scripted_llm.play import (
    Event,
    Pause,
    Reply,
    Text,
    ToolCall,
    plan_reply,
    split_words,
)
from agentchat.scripted_llm.script import read_conversation


def _reply(*messages: dict[str, Any]) -> Reply:
    return plan_reply(read_conversation(list(messages)))


def _user(text: str) -> dict[str, Any]:
    return {"role": "user", "content": text}


def _events(*messages: dict[str, Any]) -> list[Event]:
    return list(_reply(*messages).events())


def _text(events: list[Event], channel: str = "content") -> str:
    return "".join(e.text for e in events if isinstance(e, Text) and e.channel == channel)


def _calls(events: list[Event]) -> list[ToolCall]:
    return [e for e in events if isinstance(e, ToolCall)]


def _round(call: ToolCall, result: str) -> list[dict[str, Any]]:
    function = {"name": call.name, "arguments": call.arguments}
    return [
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [{"id": call.call_id, "type": "function", "function": function}],
        },
        {"role": "tool", "tool_call_id": call.call_id, "content": result},
    ]


def test_think_and_say_stream_reasoning_then_answer_in_word_chunks() -> None:
    events = _events(_user("#think let me see\n#say Hello big world"))
    assert [e.channel for e in events if isinstance(e, Text)] == ["reasoning"] * 3 + ["content"] * 3
    assert _text(events, "reasoning") == "let me see"
    assert _text(events) == "Hello big world"
    assert [e.text for e in events if isinstance(e, Text)][3:] == ["Hello", " big", " world"]


def test_consecutive_says_are_separate_lines() -> None:
    assert _text(_events(_user("#say one\n#say two"))) == "one\ntwo"


def test_tokens_stream_one_chunk_per_token() -> None:
    events = _events(_user("#tokens 5"))
    assert [e.text for e in events if isinstance(e, Text)] == ["t1", " t2", " t3", " t4", " t5"]


def test_tokens_k_a_chunk_make_the_same_answer_in_fewer_chunks() -> None:
    chunks = [e.text for e in _events(_user("#tokens 7 3")) if isinstance(e, Text)]
    assert chunks == ["t1 t2 t3", " t4 t5 t6", " t7"]
    assert "".join(chunks) == _text(_events(_user("#tokens 7")))


def test_delay_paces_every_chunk_after_it_and_sleep_waits_once() -> None:
    events = _events(_user("#say a\n#sleep 30\n#delay 10\n#say b c"))
    kinds = [(type(e).__name__, getattr(e, "seconds", None)) for e in events]
    assert kinds == [
        ("Text", None),
        ("Pause", 0.03),
        ("Pause", 0.01),
        ("Text", None),
        ("Pause", 0.01),
        ("Text", None),
    ]


def test_without_delay_there_are_no_pauses() -> None:
    assert not any(isinstance(e, Pause) for e in _events(_user("#tokens 50\n#say x")))


def test_todo_calls_the_todo_tool_with_the_first_item_in_progress() -> None:
    events = _events(_user("#say planning\n#todo Write code; Test it ;Ship\n#say done"))
    assert _text(events) == "planning"
    (call,) = _calls(events)
    assert call.name == "todo"
    assert json.loads(call.arguments) == {
        "todos": [
            {"id": "1", "content": "Write code", "status": "in_progress"},
            {"id": "2", "content": "Test it", "status": "pending"},
            {"id": "3", "content": "Ship", "status": "pending"},
        ]
    }


def test_clarify_calls_the_clarify_tool_with_question_and_choices() -> None:
    (call,) = _calls(_events(_user("#clarify Which colour? | red | blue")))
    assert call.name == "clarify"
    assert json.loads(call.arguments) == {"question": "Which colour?", "choices": ["red", "blue"]}
    (open_call,) = _calls(_events(_user("#clarify Anything else?")))
    assert json.loads(open_call.arguments) == {"question": "Anything else?"}


def test_tool_passes_name_and_arguments_through() -> None:
    (call,) = _calls(_events(_user('#tool memory {"action": "add", "content": "x"}')))
    assert (call.name, json.loads(call.arguments)) == ("memory", {"action": "add", "content": "x"})
    (bare,) = _calls(_events(_user("#tool skills_list")))
    assert (bare.name, bare.arguments) == ("skills_list", "{}")


def test_each_tool_round_plays_the_next_step() -> None:
    user = _user("#todo a\n#say middle\n#tool t {}\n#say end")
    first = _calls(_events(user))[0]
    history = [user, *_round(first, "r1")]
    second = _events(*history)
    assert _text(second) == "middle"
    assert _calls(second)[0].name == "t"
    third = _events(*history, *_round(_calls(second)[0], "r2"))
    assert (_text(third), _calls(third)) == ("end", [])


def test_tool_call_ids_are_unique_within_a_conversation() -> None:
    user = _user("#todo a\n#todo b\n#say end")
    first = _calls(_events(user))[0]
    second = _calls(_events(user, *_round(first, "r")))[0]
    assert first.call_id != second.call_id


def test_echo_tool_result_answers_with_the_latest_tool_message() -> None:
    user = _user("#tool t {}\n#echo-tool-result")
    call = _calls(_events(user))[0]
    assert _text(_events(user, *_round(call, '{"ok": true}'))) == '{"ok": true}'


def test_echo_context_lists_user_messages_without_directives() -> None:
    events = _events(
        _user("first question"),
        {"role": "assistant", "content": "answer"},
        _user("#say only a directive"),
        {"role": "assistant", "content": "ok"},
        _user("last one\n#echo-context"),
    )
    assert _text(events) == "CONTEXT: first question | last one"


def test_usage_sets_prompt_tokens_and_fail_sets_the_status() -> None:
    assert _reply(_user("#usage 60000\n#todo a\n#say b")).prompt_tokens == 60000
    assert _reply(_user("#say b")).prompt_tokens is None
    assert _reply(_user("#fail 503")).fail_status == 503
    assert _reply(_user("#fail")).fail_status == 500
    assert _reply(_user("#fail 200")).fail_status == 500
    assert _reply(_user("#usage 0\n#say x")).prompt_tokens == 0


def test_usage_and_fail_apply_to_their_own_step_only() -> None:
    user = _user("#usage 60000\n#todo a\n#fail 500")
    call = _calls(_events(user))[0]
    assert _reply(user).fail_status is None
    later = _reply(user, *_round(call, "r"))
    assert (later.prompt_tokens, later.fail_status) == (None, 500)


def test_a_final_step_with_nothing_visible_says_done() -> None:
    user = _user("#think hmm\n#todo a")
    call = _calls(_events(user))[0]
    assert _text(_events(user, *_round(call, "r"))) == "Done."


def test_without_directives_the_demo_plans_then_answers_in_markdown() -> None:
    user = _user("What is the capital of France?")
    first = _events(user)
    assert _text(first, "reasoning")
    (call,) = _calls(first)
    assert call.name == "todo"
    answer = _events(user, *_round(call, "todos"))
    text = _text(answer)
    assert _text(answer, "reasoning")
    assert "scripted model" in text
    assert "What is the capital of France?" in text
    assert "```" in text and "|---|" in text and "\n- " in text
    assert "Models" in text and "OPENAI_API_KEY" in text
    assert not _calls(answer)


def test_summary_requests_get_a_deterministic_summary() -> None:
    prompt = (
        "You are a summarization agent creating a context checkpoint.\n\nTURNS TO SUMMARIZE:\n"
        "[USER]: #usage 60000\n[USER]: tell me about cats\n[ASSISTANT]: cats\n"
        "[TOOL todo]: {}\n\n## Goal\n#say not me"
    )
    first = _text(_events(_user(prompt)))
    assert first == "Summary: the user asked about tell me about cats; 4 messages summarised."
    assert _text(_events(_user(prompt))) == first


def test_a_review_request_is_summarised_not_scripted() -> None:
    events = _events(
        _user("about dogs\n#todo a"),
        {"role": "assistant", "content": "ok"},
        _user("Review the conversation above and consider saving to memory"),
    )
    assert re.fullmatch(
        r"Summary: the user asked about about dogs; \d+ messages summarised\.", _text(events)
    )
    assert not _calls(events)


@given(st.text(alphabet=st.sampled_from("ab \n\t|#"), max_size=40))
def test_split_words_gives_the_text_back_when_joined(text: str) -> None:
    pieces = list(split_words(text))
    if text.strip():
        assert "".join(pieces) == text
    else:
        assert pieces == []


def test_also_adds_calls_to_the_same_assistant_message() -> None:
    user = _user(
        '#tool read_file {"path": "a.txt"}\n#also read_file {"path": "b.txt"}\n#echo-tool-result'
    )
    calls = _calls(_events(user))
    assert [(c.name, json.loads(c.arguments)) for c in calls] == [
        ("read_file", {"path": "a.txt"}),
        ("read_file", {"path": "b.txt"}),
    ]
    assert len({c.call_id for c in calls}) == 2
    answered = [user, *_round(calls[0], "ra"), *_round(calls[1], "rb")[1:]]
    answered[1]["tool_calls"] += _round(calls[1], "rb")[0]["tool_calls"]
    assert (_text(_events(*answered)), _calls(_events(*answered))) == ("rb", [])


def test_also_without_a_tool_before_it_is_a_tool_call_of_its_own() -> None:
    (call,) = _calls(_events(_user('#say hi\n#also memory {"action": "read"}')))
    assert call.name == "memory"


def test_echo_tools_names_the_functions_the_request_offered() -> None:
    offered = [{"type": "function", "function": {"name": n}} for n in ("todo", "clarify")]
    conversation = read_conversation([_user("#echo-tools")], offered)
    assert _text(list(plan_reply(conversation).events())) == "TOOLS: clarify todo"
    assert _text(_events(_user("#echo-tools"))).strip() == "TOOLS:"
