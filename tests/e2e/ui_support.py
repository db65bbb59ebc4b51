"""Helpers of the page-quality tests (issue 16): pages in a given size and colour scheme, a
stored conversation that shows every part of an answer, axe-core and layout checks."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import timedelta
from pathlib import Path
from typing import Any

from playwright.sync_api import Browser, Page
from sqlalchemy import delete, update

from agentchat.chat.tables import ChatMessage
from agentchat.core.database import Database
from agentchat.models.tables import AiModelConfig
from tests.e2e import seed
from tests.e2e.page_pool import PagePool, new_context
from tests.e2e.stack import E2EStack

ROOT = Path(__file__).resolve().parents[2]
AXE = ROOT / "frontend" / "node_modules" / "axe-core" / "axe.min.js"
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1366, "height": 800}
SIZES = {"phone": PHONE, "desktop": DESKTOP}
LONG_TITLE = "x" * 200  # no spaces: it must not widen the page
DEMO_NAME = "Scripted demo model (offline, not a real LLM)"
RATE_LIMIT = "Error code: 429 - {'error': {'message': 'Rate limit reached for gpt-x', 'code': 429}}"

PageFactory = Callable[..., Page]


@contextmanager
def page_factory(
    browser: Browser, stack: E2EStack, shared_tabs: PagePool | None = None
) -> Iterator[PageFactory]:
    """Tabs of a viewport, colour scheme, locale and stored settings: from `shared_tabs` when
    given and no settings are stored before the page loads, else of a context of their own."""
    contexts = []

    def make(
        size: dict[str, int] = DESKTOP,
        scheme: str = "light",
        storage: dict[str, str] | None = None,
        touch: bool | None = None,
    ) -> Page:
        """`touch`: a touch screen; by default below 768 px (a zoomed desktop passes False)."""
        options: dict[str, Any] = {
            "viewport": size,
            "color_scheme": scheme,
            "has_touch": size["width"] < 768 if touch is None else touch,
            "is_mobile": False,
            "bypass_csp": True,  # axe-core is injected as a script tag
        }
        if shared_tabs is not None and not storage:
            return shared_tabs.take(stack.url, **options)
        ctx = new_context(browser, stack.url, **options)
        if storage:
            pairs = storage.items()
            script = "".join(
                f"localStorage.setItem({json.dumps(k)}, {json.dumps(v)});" for k, v in pairs
            )
            ctx.add_init_script(script)
        contexts.append(ctx)
        return ctx.new_page()

    try:
        yield make
    finally:
        for ctx in contexts:
            ctx.close()


@contextmanager
def builtin_demo_model(stack: E2EStack) -> Iterator[dict[str, Any]]:
    """A second model flagged as the built-in demo (as `agentchat serve` creates it)."""
    body = {"name": DEMO_NAME, "baseUrl": stack.scripted_url, "modelName": "scripted-demo"}
    model: dict[str, Any] = stack.call("POST", "/api/models", body, expect=201)
    with stack.database.session() as s:
        row = AiModelConfig.id == model["id"]
        s.execute(update(AiModelConfig).where(row).values(is_builtin=True))
    try:
        yield model
    finally:
        with stack.database.session() as s:
            s.execute(delete(AiModelConfig).where(AiModelConfig.id == model["id"]))


def _log(kind: str, content: str | None, tool: str | None = None, **meta: Any) -> seed.LogLine:
    return (kind, content, tool, meta or None)


SHOWCASE_LOGS = [
    _log("status", "(¬‿¬) pondering..."),
    _log("thinking", "The user wants the weather. I should look it up first."),
    _log("todo_update", json.dumps([{"id": "1", "content": "Find it", "status": "completed"}])),
    _log(
        "tool_call", "{}", "web_search", toolCallId="c1", args={"query": "weather Lyon", "limit": 3}
    ),
    _log(
        "tool_result",
        json.dumps({"results": [{"title": "Lyon forecast", "temp": 21}, {"title": "Radar"}]}),
        "web_search",
        toolCallId="c1",
        durationMs=1240,
    ),
    _log("tool_call", "{}", "clarify", toolCallId="c2", args={"question": "Celsius?"}),
    _log(
        "clarify_request",
        "",
        None,
        clarifyId="k1",
        question="Celsius or Fahrenheit?",
        choices=["Celsius", "Fahrenheit"],
    ),
    _log("clarify_answered", "", None, clarifyId="k1", answer="Celsius"),
    _log("tool_result", "Celsius", "clarify", toolCallId="c2", durationMs=5300),
    _log("thinking", "Now I can write the answer in Celsius."),
    _log("tool_call", "{}", "memory", toolCallId="c3", args={"action": "add", "content": "C"}),
    _log("tool_result", "saved", "memory", toolCallId="c3", durationMs=35),
]
SHOWCASE_ANSWER = "\n".join(
    [
        "**Lyon** will be sunny, about `21 °C`.",
        "",
        "| day | °C |",
        "|---|---|",
        "| Mon | 21 |",
        "",
        "```python",
        "print('forecast', 21)",
        "```",
        "",
        "![radar](https://example.invalid/radar.png)",
    ]
)


def seed_showcase(db: Database, title: str = LONG_TITLE) -> int:
    """A session whose answers show a full thinking panel, a bare answer and a failed one."""
    session_id = seed.new_session(db, title)
    leaf = seed.append(db, session_id, None, "USER", "What is the weather in Lyon?", "SENT")
    leaf = seed.append(db, session_id, leaf, "ASSISTANT", SHOWCASE_ANSWER, "SUCCESS", SHOWCASE_LOGS)
    _took(db, leaf, seconds=43)
    leaf = seed.append(db, session_id, leaf, "USER", "Thanks!", "SENT")
    leaf = seed.append(db, session_id, leaf, "ASSISTANT", "You are welcome.", "SUCCESS")
    leaf = seed.append(db, session_id, leaf, "USER", "And tomorrow?", "SENT")
    leaf = seed.append(db, session_id, leaf, "ASSISTANT", "", "FAILED")
    _took(db, leaf, seconds=2, error=RATE_LIMIT)
    return session_id


def _took(db: Database, message_id: int, seconds: int, error: str | None = None) -> None:
    with db.session() as s:
        message = s.get(ChatMessage, message_id)
        assert message is not None
        message.completed_at = message.created_at + timedelta(seconds=seconds)
        message.error = error


AXE_SERIOUS = """async () => {
  const node = (n) => n.target.join(' ') + ': ' + (n.failureSummary || '').split('\\n')[1]
  const r = await window.axe.run(document, { resultTypes: ['violations'] })
  return r.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.impact} ${v.id}: ${v.nodes.slice(0, 3).map(node).join(' | ')}`)
}"""


# No transition or other finite animation running (a looping spinner never ends): a form that
# fades out was read by axe half-transparent, its title's contrast 1.24 (zh-phone-dark).
SETTLED = """() => document.getAnimations().every((a) =>
  a.playState !== 'running' || a.effect?.getComputedTiming().iterations === Infinity)"""


def run_axe(page: Page) -> list[str]:
    """axe-core's serious and critical violations on the page, one line each, once nothing on
    it is fading or moving."""
    if not page.evaluate("() => Boolean(window.axe)"):
        page.add_script_tag(path=str(AXE))
    page.wait_for_function(SETTLED)
    found = page.evaluate(AXE_SERIOUS)
    return list(found)


def sideways_overflow(page: Page) -> int:
    """How many pixels the page scrolls sideways (0 when it fits the viewport)."""
    return int(
        page.evaluate(
            "() => Math.max(document.documentElement.scrollWidth, document.body.scrollWidth)"
            " - document.documentElement.clientWidth"
        )
    )
