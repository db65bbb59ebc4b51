"""Issue 15: what hermes does in a turn reaches the stored history and the page exactly."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest

from agentchat.bridge_client.client import BridgeClient, BridgeUnavailable
from tests.bridge.support import Event, Turn, run_turn
from tests.support.own_bridge import own_bridge

pytestmark = pytest.mark.timeout(120)


SKILL_MD = """---
name: demo-skill
description: A skill the app ships in its skills directory.
---
Always answer in haiku.
"""


# terminal: for the approval test
bridge = own_bridge(
    skills={"demo-skill": SKILL_MD}, AGENTCHAT_AGENT_TOOLSETS="clarify,todo,memory,skills,terminal"
)


async def test_a_stalled_stream_is_stored_once_without_the_nudge(
    client: BridgeClient, scripted_model: str
) -> None:
    message = "#say Alpha bravo charlie delta\n#stall\n#say echo foxtrot"
    turn = await run_turn(client, scripted_model, message, session="stall")

    assert turn.result is not None and turn.result.status == "SUCCESS", turn.result
    answer = "Alpha bravo charlie delta\necho foxtrot"
    assert turn.result.final_text == answer
    messages = turn.result.messages
    assert [m["role"] for m in messages] == ["user", "assistant"], messages
    assert messages[-1]["content"] == answer
    assert "[System:" not in str(messages)
    usage = turn.result.usage
    assert usage.api_calls == 2
    # The cut-off attempt reported no usage: it is estimated (hermes' ~4 characters a token)
    # and counted, and said to be estimated.
    assert usage.estimated_completion_tokens == (len("Alpha bravo charlie delta") + 3) // 4
    assert usage.estimated_prompt_tokens > 100  # system prompt, tools and the question
    assert usage.prompt_tokens > usage.estimated_prompt_tokens
    assert usage.completion_tokens > usage.estimated_completion_tokens
    assert usage.total_tokens == usage.prompt_tokens + usage.completion_tokens


async def test_tool_durations_come_from_hermes_tool_progress(
    client: BridgeClient, scripted_model: str
) -> None:
    message = '#tool skills_list {}\n#also skill_view {"name": "no-such-skill"}\n#say ok'
    turn = await run_turn(client, scripted_model, message, session="progress")

    assert turn.result is not None and turn.result.status == "SUCCESS", turn.result
    results = {e.tool_name: e.meta or {} for e in turn.of("tool_result")}
    assert set(results) == {"skills_list", "skill_view"}, turn.kinds()
    for meta in results.values():
        assert meta.get("timedBy") == "hermes", meta
        assert isinstance(meta.get("durationMs"), int) and meta["durationMs"] >= 0


async def test_text_before_a_tool_call_is_an_interim_event_in_order(
    client: BridgeClient, scripted_model: str
) -> None:
    message = "#say Let me look that up.\n#tool skills_list {}\n#say Found them."
    turn = await run_turn(client, scripted_model, message, session="interim")

    assert turn.result is not None and turn.result.status == "SUCCESS"
    kinds = [k for k in turn.kinds() if k not in ("status", "answer_delta", "step")]
    assert kinds[:3] == ["interim", "tool_call", "tool_result"], turn.kinds()
    assert turn.of("interim")[0].content == "Let me look that up."
    assert turn.result.final_text == "Found them."
    stored = turn.result.messages[1]
    assert stored["content"] == "Let me look that up." and stored["tool_calls"]


async def test_inline_think_feeds_the_thinking_panel(
    client: BridgeClient, scripted_model: str
) -> None:
    message = "#think-inline weighing the options\n#say The answer."
    turn = await run_turn(client, scripted_model, message, session="think")

    assert turn.result is not None and turn.result.status == "SUCCESS"
    assert "".join(e.content for e in turn.of("thinking")) == "weighing the options"
    assert turn.result.final_text == "The answer."
    assert "<think>" not in turn.answer()


async def test_a_memory_write_reaches_the_next_turn_of_every_open_chat(
    client: BridgeClient, scripted_model: str
) -> None:
    for chat in ("mem-a", "mem-b"):  # both agents exist (pooled) before any write
        turn = await run_turn(client, scripted_model, "#say hello", session=chat)
        assert turn.result is not None and turn.result.status == "SUCCESS"

    await client.put_memory("mem-a", memory=["The drawer says: teal is the colour."])
    seen = await run_turn(
        client, scripted_model, "#system-contains teal is the colour", session="mem-b"
    )
    assert seen.result is not None and seen.result.final_text == "SYSTEM CONTAINS: yes"

    add = '{"action": "add", "target": "memory", "content": "The tool says: tea at five."}'
    wrote = await run_turn(
        client, scripted_model, f"#tool memory {add}\n#say noted", session="mem-b"
    )
    assert wrote.result is not None and wrote.result.status == "SUCCESS"
    assert "tea at five" in (await client.get_memory("mem-a")).memory.content
    for chat in ("mem-a", "mem-b"):
        seen = await run_turn(client, scripted_model, "#system-contains tea at five", session=chat)
        assert seen.result is not None and seen.result.final_text == "SYSTEM CONTAINS: yes", chat


async def test_a_chosen_skill_is_preloaded_into_the_turn(
    client: BridgeClient, scripted_model: str
) -> None:
    ask = "#system-contains Always answer in haiku."
    plain = await run_turn(client, scripted_model, ask, session="skill")
    chosen = await run_turn(client, scripted_model, ask, session="skill", skills=["demo-skill"])

    assert plain.result is not None and plain.result.final_text == "SYSTEM CONTAINS: no"
    assert chosen.result is not None and chosen.result.final_text == "SYSTEM CONTAINS: yes"
    assert not [e for e in chosen.events if e.kind == "tool_call"]


async def test_an_unknown_skill_fails_the_turn_with_its_name(
    client: BridgeClient, scripted_model: str
) -> None:
    turn = await run_turn(client, scripted_model, "#say hi", session="skill", skills=["nope"])
    assert turn.result is not None and turn.result.status == "FAILED"
    assert "nope" in (turn.result.error or "")


async def test_each_model_call_is_a_step_event(client: BridgeClient, scripted_model: str) -> None:
    turn = await run_turn(client, scripted_model, "#tool skills_list {}\n#say done", session="st")
    steps = [e.meta for e in turn.of("step")]
    assert [(m or {}).get("iteration") for m in steps] == [1, 2]
    assert all((m or {}).get("maxIterations") == 10 for m in steps)


async def test_a_steering_message_reaches_the_running_agent(
    client: BridgeClient, scripted_model: str
) -> None:
    async def steer_then_answer(event: Event, turn: Turn) -> None:
        if event.kind == "clarify_request":
            await client.steer(turn.run_id, "Prefer the blue one.")
            await client.clarify(turn.run_id, (event.meta or {})["clarifyId"], "red")

    message = "#clarify Which colour? | red | blue\n#echo-tool-result"
    turn = await run_turn(
        client, scripted_model, message, session="steer", on_event=steer_then_answer
    )

    assert turn.result is not None and turn.result.status == "SUCCESS"
    assert [e.content for e in turn.of("steered")] == ["Prefer the blue one."]
    assert "Prefer the blue one." in turn.result.final_text


async def test_steering_a_finished_run_is_refused(client: BridgeClient) -> None:
    with pytest.raises(BridgeUnavailable) as caught:
        await client.steer("no-such-run", "hello")
    assert caught.value.status_code == 404


def _answering(client: BridgeClient, choice: str) -> Callable[[Event, Turn], Awaitable[None]]:
    async def answer(event: Event, turn: Turn) -> None:
        if event.kind == "clarify_request" and (event.meta or {}).get("approval"):
            await client.clarify(turn.run_id, (event.meta or {})["clarifyId"], choice)

    return answer


async def _rm(
    client: BridgeClient,
    url: str,
    target: Path,
    session: str,
    choice: str,
    approvals: list[str] | None = None,
) -> Turn:
    """`approvals`: the chat's "allow for this chat" keys, as the API sends them each turn."""
    args = json.dumps({"command": f"rm -rf {target}"})
    return await run_turn(
        client,
        url,
        f"#tool terminal {args}\n#echo-tool-result",
        session=session,
        toolsets=["terminal"],
        on_event=_answering(client, choice),
        approvals=approvals or [],
    )


async def test_a_dangerous_command_waits_for_the_person(
    client: BridgeClient, scripted_model: str, tmp_path: Path
) -> None:
    kept, gone, again = (tmp_path / n for n in ("kept", "gone", "again"))
    for folder in (kept, gone, again):
        (folder / "inside").mkdir(parents=True)

    denied = await _rm(client, scripted_model, kept, "danger", "Deny")
    asks = [e for e in denied.of("clarify_request") if (e.meta or {}).get("approval")]
    assert len(asks) == 1 and str(kept) in asks[0].meta["approval"]["command"]  # type: ignore[index]
    assert asks[0].meta["choices"] == ["Allow once", "Allow for this chat", "Deny"]  # type: ignore[index]
    assert (kept / "inside").is_dir()

    allowed = await _rm(client, scripted_model, gone, "danger", "Allow for this chat")
    assert allowed.of("clarify_request") and not gone.exists()
    assert allowed.result and allowed.result.approvals, "the end gives the API the approvals"
    held = list(allowed.result.approvals)
    silent = await _rm(client, scripted_model, again, "danger", "Deny", approvals=held)
    assert not silent.of("clarify_request") and not again.exists()  # allowed for this chat
