"""What a long paste and the keys typed after it cost the page, against the browser's own cost
for the same text in a bare <textarea> of the same size on the same page (issue 33: pasting about
500 lines froze the composer for seconds). Used by tests/e2e/test_long_paste.py and
bench/bench_page.py."""

from __future__ import annotations

import time
from dataclasses import dataclass

from playwright.sync_api import CDPSession, Locator, Page

PASTED_LINES = 500
# Lines as long as a log's or a stack trace's: they wrap on a phone, which is what costs.
PASTED = "\n".join(
    f"{i:>4} 2026-12-03 13:50:{i % 60:02} INFO worker-{i % 7} handled request /api/chat/"
    f"sessions/{i}/runs in {i % 97} ms (queue depth {i % 13}, cache hit)"
    for i in range(PASTED_LINES)
)
TYPED = "and then one more line"
TWO_FRAMES = "() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))"
# A bare <textarea> where the composer's box is, with its size, font and padding.
BARE_BOX = """
(el) => {
  const s = getComputedStyle(el), r = el.getBoundingClientRect()
  const bare = document.createElement('textarea')
  bare.dataset.testid = 'bare-box'
  for (const name of ['font', 'lineHeight', 'padding', 'whiteSpace', 'wordBreak', 'boxSizing'])
    bare.style[name] = s[name]
  Object.assign(bare.style, { position: 'fixed', left: r.left + 'px', top: r.top + 'px',
    width: r.width + 'px', height: r.height + 'px', zIndex: 9999, border: 'none', resize: 'none' })
  document.body.append(bare)
}
"""


@dataclass
class PasteCost:
    paste_ms: float  # from the paste key to two frames later (wall clock)
    typing_ms: float  # the TYPED keys, one by one, then two frames (wall clock)
    layout_ms: float  # the page's layout time over both (CDP LayoutDuration)
    task_ms: float  # the page's main-thread task time over both (CDP TaskDuration)


def _metrics(cdp: CDPSession) -> dict[str, float]:
    return {m["name"]: m["value"] for m in cdp.send("Performance.getMetrics")["metrics"]}


def paste_and_type(page: Page, cdp: CDPSession, box: Locator, text: str = PASTED) -> PasteCost:
    """Paste `text` into `box` with the keyboard (as a person does), then type TYPED."""
    box.fill("")
    box.focus()
    page.evaluate("(t) => navigator.clipboard.writeText(t)", text)
    page.evaluate(TWO_FRAMES)
    before = _metrics(cdp)
    started = time.monotonic()
    page.keyboard.press("ControlOrMeta+V")
    box.page.wait_for_function(
        "([el, n]) => el.value.length >= n", arg=[box.element_handle(), len(text)]
    )
    page.evaluate(TWO_FRAMES)
    pasted = time.monotonic()
    for key in TYPED:
        page.keyboard.type(key)
    page.evaluate(TWO_FRAMES)
    typed = time.monotonic()
    after = _metrics(cdp)
    assert box.input_value().endswith(TYPED)
    return PasteCost(
        paste_ms=(pasted - started) * 1000,
        typing_ms=(typed - pasted) * 1000,
        layout_ms=(after["LayoutDuration"] - before["LayoutDuration"]) * 1000,
        task_ms=(after["TaskDuration"] - before["TaskDuration"]) * 1000,
    )


def paste_costs(page: Page, composer_box: Locator) -> tuple[PasteCost, PasteCost]:
    """(the composer's cost, a bare textarea's cost) on the same page, the bare one first."""
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    cdp = page.context.new_cdp_session(page)
    cdp.send("Performance.enable")
    try:
        composer_box.evaluate(BARE_BOX)
        bare = page.get_by_test_id("bare-box")
        baseline = paste_and_type(page, cdp, bare)
        bare.evaluate("(el) => el.remove()")
        ours = paste_and_type(page, cdp, composer_box)
    finally:
        cdp.detach()
    return ours, baseline
