"""The scripted model's canned answers: the demo turn and the summary for non-chat requests."""

from __future__ import annotations

import re

from agentchat.scripted_llm.script import Conversation, Directive, plain_text

_MAX_ECHO = 200

_ANSWER = """\
Hello! I am the **built-in scripted model** of Agent Chat: a deterministic demo, not a real \
LLM. I do not understand your message, but here it is back:

> {question}

Here is what a real answer can contain:

- **Markdown** lists, *emphasis* and `inline code`
- tables and fenced code blocks
- a plan kept in the todo list next to the answer

| Feature | Shown here |
|---|---|
| Thinking | yes, in the collapsible block above |
| Todo list | yes, updated by a tool call |
| Real reasoning | no, I am scripted |

```python
def hello(name: str) -> str:
    return f"Hello, {{name}}!"
```

**To chat with a real model**, open the **Models** page and add an OpenAI-compatible or \
Anthropic endpoint (base URL, model name, API key), then choose it for this chat. You can also \
start the app with the `OPENAI_API_KEY`, `OPENAI_BASE_URL` and `AGENTCHAT_MODEL` environment \
variables set."""

_PLAN = "Read the question; Show a Markdown example; Explain how to add a real model"


def demo_script(question: str) -> list[Directive]:
    """One todo round, then the Markdown answer that echoes the question."""
    echoed = _short(question) or "(an empty message)"
    return [
        Directive("think", "This is the scripted demo model. I will plan, then answer."),
        Directive("say", "Let me plan this first."),
        Directive("todo", _PLAN),
        Directive("think", "The plan is ready; now the answer with a little Markdown."),
        Directive("say", _ANSWER.format(question=echoed)),
    ]


def summary_text(conversation: Conversation) -> str:
    """A short deterministic summary for the compressor and background reviews."""
    turns = re.findall(r"^\[(USER|ASSISTANT|TOOL)[^\]]*\]", conversation.latest_user, re.M)
    count = len(turns) or max(conversation.message_count - 1, 1)
    topic = _short(_last_user_turn(conversation)) or "the conversation"
    return f"Summary: the user asked about {topic}; {count} messages summarised."


def _last_user_turn(conversation: Conversation) -> str:
    blocks = re.findall(r"^\[USER\]: (.*)$", conversation.latest_user, re.M)
    plain = [b for b in blocks if b.strip() and not b.lstrip().startswith("#")]
    if plain:
        return plain[-1]
    earlier = [plain_text(t) for t in conversation.user_texts[:-1] if plain_text(t)]
    return earlier[-1] if earlier else ""


def _short(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= _MAX_ECHO else flat[: _MAX_ECHO - 1] + "…"
