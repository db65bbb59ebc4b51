"""Run hermes-agent turns against a scripted model; print one JSON line per turn.

Usage: python hermes_turns.py BASE_URL. Run in its own process: HERMES_HOME is process-wide
and must be set before hermes-agent is imported.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from typing import Any

CONFIG = """\
model:
  context_length: 64000
  ollama_num_ctx: 64000
agent:
  environment_probe: false
  api_max_retries: 1
memory:
  nudge_interval: 0
skills:
  creation_nudge_interval: 0
"""

TURNS = [
    ("say", "#say hello", False),
    ("todo", "#think hmm\n#todo a; b\n#say done", False),
    ("demo", "What can you do?", False),
    ("fail", "#fail 500", False),
    ("compaction", "#usage 60000\n#todo a; b\n#say done after compaction", True),
]
HISTORY = [
    message
    for i in range(15)
    for message in (
        {"role": "user", "content": f"question {i}"},
        {"role": "assistant", "content": f"answer {i}"},
    )
]


def main(base_url: str) -> None:
    home = tempfile.mkdtemp(prefix="hermes-home-")
    with open(os.path.join(home, "config.yaml"), "w") as config:
        config.write(CONFIG)
    os.environ["HERMES_HOME"] = home
    from run_agent import AIAgent

    events: list[list[Any]] = []
    agent = AIAgent(
        base_url=base_url,
        api_key="unused",
        model="scripted",
        provider="custom",
        quiet_mode=True,
        skip_context_files=True,
        tool_delay=0,
        enabled_toolsets=["clarify", "todo", "memory", "skills"],
        reasoning_callback=lambda text: events.append(["thinking", text]),
        stream_delta_callback=lambda text: events.append(["delta", text]),
        tool_complete_callback=lambda _id, name, _a, result: events.append(["tool", name, result]),
        event_callback=lambda name, _payload: events.append(["event", name]),
    )
    agent._print_fn = lambda *a, **k: None
    for name, text, with_history in TURNS:
        events.clear()
        agent.clear_interrupt()
        result = agent.run_conversation(text, conversation_history=HISTORY if with_history else [])
        turn = {
            "turn": name,
            "final": result.get("final_response"),
            "failed": bool(result.get("failed")),
            "events": events,
            "messages": [str(m.get("content")) for m in result["messages"]],
        }
        print(json.dumps(turn), flush=True)


if __name__ == "__main__":
    main(sys.argv[1])
