"""Turn the step a request plays into a stream of events (pure, lazy, no I/O)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Literal

from agentchat.scripted_llm import demo
from agentchat.scripted_llm.script import (
    TOOL_DIRECTIVES,
    Conversation,
    Directive,
    Step,
    parse_directives,
    pick_step,
    plain_text,
    split_steps,
    to_int,
)

Channel = Literal["content", "reasoning"]
_WORDS = re.compile(r"\s*\S+\s*$|\s*\S+", re.DOTALL)
_VISIBLE = frozenset(
    {
        "say",
        "say-escaped",
        "tokens",
        "echo-tool-result",
        "echo-context",
        "echo-tools",
        "echo-parts",
        "think-inline",
        "system-contains",
    }
)

_ANSWERED = _VISIBLE | TOOL_DIRECTIVES | {"empty"}


@dataclass(frozen=True, slots=True)
class Text:
    channel: Channel
    text: str


@dataclass(frozen=True, slots=True)
class ToolCall:
    call_id: str
    name: str
    arguments: str


@dataclass(frozen=True, slots=True)
class Pause:
    seconds: float


@dataclass(frozen=True, slots=True)
class Hold:
    """The stream waits here until the gate `name` is released over HTTP (a test's barrier)."""

    name: str


@dataclass(frozen=True, slots=True)
class Stall:
    """The stream breaks here: no finish_reason, no usage, no [DONE]."""


@dataclass(frozen=True, slots=True)
class Malformed:
    """A `data:` line that is not JSON (a provider or proxy that garbles its stream)."""


Event = Text | ToolCall | Pause | Hold | Stall | Malformed


@dataclass(frozen=True, slots=True)
class Reply:
    """What one request answers: a failure status, or events plus the reported prompt size."""

    step: Step
    conversation: Conversation
    fail_status: int | None
    prompt_tokens: int | None
    retry_after_s: int | None = None  # sent as `Retry-After` with `fail_status`
    context_limit: int | None = None  # `#context N`: a longer prompt is refused (HTTP 400)

    def events(self) -> Iterator[Event]:
        return _play(self.step, self.conversation)


def plan_reply(conversation: Conversation) -> Reply:
    step = pick_step(_script(conversation), conversation.rounds)
    fail = next((d for d in step.directives if d.name == "fail"), None)
    usage = next((d for d in reversed(step.directives) if d.name == "usage"), None)
    return Reply(
        step=step,
        conversation=conversation,
        fail_status=_error_status(fail.arg) if fail else None,
        prompt_tokens=to_int(usage.arg) if usage else None,
        retry_after_s=_retry_after(fail.arg) if fail else None,
        context_limit=_context_limit(conversation),
    )


def _error_status(arg: str) -> int:
    status = to_int(arg, 500)
    return status if 400 <= status <= 599 else 500


def _context_limit(conversation: Conversation) -> int | None:
    """`#context N` anywhere in the latest user message, whatever step is played."""
    if conversation.is_summary_request:
        return None
    found = next(
        (d for d in parse_directives(conversation.latest_user) if d.name == "context"), None
    )
    return to_int(found.arg) or None if found else None


def _retry_after(arg: str) -> int | None:
    """`#fail 429 30`: the second number is the `Retry-After` in seconds."""
    words = arg.split()
    return to_int(words[1]) if len(words) > 1 and words[1].isdigit() else None


def _script(conversation: Conversation) -> list[Step]:
    if conversation.is_summary_request:
        return [Step((Directive("say", demo.summary_text(conversation)),))]
    directives = parse_directives(conversation.latest_user)
    if not directives:
        directives = demo.demo_script(plain_text(conversation.latest_user))
    return split_steps(directives)


def _play(step: Step, conversation: Conversation) -> Iterator[Event]:
    delay = step.carried_delay_ms / 1000
    opened: set[Channel] = set()
    calls = 0
    for directive in _with_fallback_answer(step.directives):
        name, arg = directive.name, directive.arg
        if name == "delay":
            delay = to_int(arg) / 1000
        elif name == "sleep":
            yield Pause(to_int(arg) / 1000)
        elif name == "hold":
            yield Hold(arg.strip() or "default")
        elif name == "stall":
            if not conversation.nudged:
                yield Stall()
                return
        elif name == "malformed":
            yield Malformed()
        elif name in TOOL_DIRECTIVES:
            yield from _paced(delay, [_tool_call(directive, conversation, calls)])
            calls += 1
        else:
            channel: Channel = "reasoning" if name == "think" else "content"
            pieces = _pieces(directive, conversation)
            if pieces is None:
                continue
            if channel in opened:
                pieces = _prepend("\n", pieces)
            opened.add(channel)
            yield from _paced(delay, (Text(channel, p) for p in pieces))


def _with_fallback_answer(directives: tuple[Directive, ...]) -> tuple[Directive, ...]:
    """A final step with nothing visible says "Done." so the agent gets a real answer
    (`#empty` asks for an answer with no content at all)."""
    if any(d.name in _ANSWERED for d in directives):
        return directives
    return (*directives, Directive("say", "Done."))


def _paced(delay: float, events: Iterator[Event] | list[ToolCall]) -> Iterator[Event]:
    for event in events:
        if delay > 0:
            yield Pause(delay)
        yield event


def _pieces(directive: Directive, conversation: Conversation) -> Iterator[str] | None:
    name, arg = directive.name, directive.arg
    if name in ("say", "think"):
        return split_words(arg)
    if name == "say-escaped":
        return code_units(arg)
    if name == "think-inline":
        return iter((f"<think>{arg}</think>",))
    if name == "system-contains":
        found = "yes" if arg and arg in conversation.system_text else "no"
        return iter((f"SYSTEM CONTAINS: {found}",))
    if name == "tokens":
        return token_chunks(arg)
    if name == "echo-tool-result":
        return split_words(conversation.latest_tool_result or "(no tool result)")
    if name == "echo-parts":
        return split_words("PARTS: " + " || ".join(conversation.user_parts))
    if name == "echo-tools":
        return split_words("TOOLS: " + " ".join(conversation.tool_names))
    if name == "echo-context":
        texts = (plain_text(t) for t in conversation.user_texts)
        return split_words("CONTEXT: " + " | ".join(t for t in texts if t))
    return None


def token_chunks(arg: str) -> Iterator[str]:
    """`#tokens N [K]`: the answer "t1 t2 ... tN", one token a chunk, or K (a long answer
    without tens of thousands of chunks for hermes to parse)."""
    words = arg.split()
    count = to_int(arg)
    per_chunk = max(to_int(words[1], 1), 1) if len(words) > 1 else 1
    tokens = [f"t{i}" if i == 1 else f" t{i}" for i in range(1, count + 1)]
    return ("".join(tokens[i : i + per_chunk]) for i in range(0, count, per_chunk))


def code_units(arg: str) -> Iterator[str]:
    """`#say-escaped`: `arg` read as the inside of a JSON string (so `\\u0000` or a lone
    `\\ud800` can be written), streamed one UTF-16 code unit a chunk: a character beyond the
    BMP arrives as its two surrogate halves in two chunks, as some providers send them."""
    try:
        text = json.loads(f'"{arg}"')
    except ValueError:
        text = arg
    for char in text:
        code = ord(char)
        if code > 0xFFFF:
            code -= 0x10000
            yield chr(0xD800 + (code >> 10))
            yield chr(0xDC00 + (code & 0x3FF))
        else:
            yield char


def _prepend(prefix: str, pieces: Iterator[str]) -> Iterator[str]:
    first = True
    for piece in pieces:
        yield prefix + piece if first else piece
        first = False


def split_words(text: str) -> Iterator[str]:
    """Chunks of a word with its leading whitespace; joined they give `text` back."""
    if not text:
        return iter(())
    return (m.group(0) for m in _WORDS.finditer(text))


def _tool_call(directive: Directive, conversation: Conversation, index: int = 0) -> ToolCall:
    call_id = f"call_{conversation.message_count}_{conversation.rounds}"
    if index:
        call_id += f"_{index}"
    name, arguments = tool_arguments(directive)
    return ToolCall(call_id, name, arguments)


def tool_arguments(directive: Directive) -> tuple[str, str]:
    """(tool name, JSON arguments) for `#tool`, `#also`, `#todo` and `#clarify`."""
    if directive.name == "todo":
        return "todo", json.dumps({"todos": todo_items(directive.arg)})
    if directive.name == "clarify":
        return "clarify", json.dumps(clarify_arguments(directive.arg))
    name, _, raw = directive.arg.partition(" ")
    return name, raw.strip() or "{}"


def todo_items(arg: str) -> list[dict[str, str]]:
    contents = [c.strip() for c in arg.split(";") if c.strip()]
    return [
        {"id": str(i), "content": c, "status": "in_progress" if i == 1 else "pending"}
        for i, c in enumerate(contents, start=1)
    ]


def clarify_arguments(arg: str) -> dict[str, Any]:
    question, *choices = (p.strip() for p in arg.split("|"))
    result: dict[str, Any] = {"question": question}
    if any(choices):
        result["choices"] = [c for c in choices if c]
    return result
