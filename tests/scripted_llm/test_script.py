"""Parsing directives into steps and reading what a request needs from its messages."""

from __future__ import annotations

from typing import Any

from agentchat.scripted_llm.script import (
    Directive,
    parse_directives,
    pick_step,
    plain_text,
    read_conversation,
    split_steps,
)


def _tool_round(name: str = "todo") -> list[dict[str, Any]]:
    call = {"id": "c1", "type": "function", "function": {"name": name, "arguments": "{}"}}
    return [
        {"role": "assistant", "content": "", "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "c1", "content": f"{name} result"},
    ]


def test_parse_keeps_known_directives_in_order_and_skips_the_rest() -> None:
    text = "hello\n#think why\n# A heading\n#SAY Hi there \n#unknown x\n  #tokens 3"
    assert parse_directives(text) == [
        Directive("think", "why"),
        Directive("say", "Hi there"),
        Directive("tokens", "3"),
    ]


def test_plain_text_drops_directive_lines() -> None:
    assert plain_text("#say x\nkeep me\n#todo a\nand me") == "keep me\nand me"


def test_a_tool_directive_ends_a_step_and_the_rest_is_the_final_step() -> None:
    steps = split_steps(parse_directives("#say a\n#todo x; y\n#say b\n#tool t {}\n#say c"))
    assert [[d.name for d in s.directives] for s in steps] == [
        ["say", "todo"],
        ["say", "tool"],
        ["say"],
    ]


def test_a_script_ending_with_a_tool_still_has_an_empty_final_step() -> None:
    steps = split_steps(parse_directives("#todo a"))
    assert len(steps) == 2
    assert steps[1].directives == ()


def test_delay_carries_into_later_steps() -> None:
    steps = split_steps(parse_directives("#delay 5\n#todo a\n#delay 7\n#tool t {}\n#say b"))
    assert [s.carried_delay_ms for s in steps] == [0, 5, 7]


def test_pick_step_plays_the_final_step_once_rounds_run_past_the_script() -> None:
    steps = split_steps(parse_directives("#todo a\n#say b"))
    assert pick_step(steps, 0) is steps[0]
    assert pick_step(steps, 1) is steps[1]
    assert pick_step(steps, 5) is steps[1]


def test_rounds_count_tool_calls_after_the_latest_user_message_only() -> None:
    messages = [
        {"role": "system", "content": "sys"},
        {"role": "user", "content": "first"},
        *_tool_round(),
        {"role": "assistant", "content": "answer"},
        {"role": "user", "content": "#todo a\n#tool b {}\n#say c"},
        *_tool_round(),
        *_tool_round("b"),
    ]
    conversation = read_conversation(messages)
    assert conversation.rounds == 2
    assert conversation.latest_user.startswith("#todo a")
    assert conversation.latest_tool_result == "b result"
    assert conversation.user_texts == ("first", "#todo a\n#tool b {}\n#say c")


def test_content_given_as_parts_is_read_as_text() -> None:
    parts = [{"type": "text", "text": "#say one"}, {"type": "image_url", "image_url": {}}]
    conversation = read_conversation([{"role": "user", "content": parts}])
    assert conversation.latest_user == "#say one"


def test_hermes_scaffolding_user_messages_are_not_the_latest_user_message() -> None:
    messages = [
        {"role": "user", "content": "#todo a\n#say done"},
        *_tool_round(),
        {
            "role": "user",
            "content": "[Your active task list was preserved across context "
            "compression]\n- [>] 1. a (in_progress)",
        },
    ]
    conversation = read_conversation(messages)
    assert conversation.latest_user == "#todo a\n#say done"
    assert conversation.rounds == 1
    assert len(conversation.user_texts) == 1


def test_a_message_merged_with_a_summary_keeps_its_own_text() -> None:
    merged = (
        "[PRIOR CONTEXT — for reference only; not a new message]\n#say mine\n\n"
        "[END OF PRIOR CONTEXT — COMPACTION SUMMARY BELOW]\n\n[CONTEXT COMPACTION] ..."
    )
    conversation = read_conversation([{"role": "user", "content": merged}])
    assert conversation.latest_user == "#say mine"


def test_summariser_and_review_prompts_are_summary_requests() -> None:
    summariser = [{"role": "user", "content": "You are a summarization agent creating..."}]
    review = [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": "hello"},
        {"role": "user", "content": "Review the conversation above and update two things"},
    ]
    chat = [{"role": "user", "content": "#say hi"}]
    assert read_conversation(summariser).is_summary_request
    assert read_conversation(review).is_summary_request
    assert not read_conversation(chat).is_summary_request


def test_no_user_message_at_all_reads_as_empty() -> None:
    conversation = read_conversation([{"role": "system", "content": "sys"}])
    assert conversation.latest_user == ""
    assert conversation.rounds == 0
