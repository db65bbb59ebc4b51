"""Model output is inert (issue 7, promise 6): script tags, event handlers, javascript: links,
remote images and SVG payloads in an answer neither run nor reach another host — live, and again
when the stored answer is replayed after a reload. The page's CSP forbids inline script."""

from __future__ import annotations

import base64
from dataclasses import dataclass, field
from urllib.parse import urlparse

import pytest
from playwright.sync_api import BrowserContext, Dialog, Page, Route, expect
from playwright.sync_api import Error as PlaywrightError

from tests.e2e.pages import last_assistant, open_chat, send, tid, wait_finished
from tests.e2e.stack import E2EStack

pytestmark = pytest.mark.e2e

SVG = '<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"><script>alert(2)</script></svg>'
PAYLOADS = [
    "<script>alert(1)</script>",
    "<img src=x onerror=alert(1)>",
    "[click me](javascript:alert(1))",
    '<a href="javascript:alert(1)">raw link</a>',
    "![remote](http://example.invalid/a.png)",
    "![tracker](//example.invalid/pixel.gif)",
    "<svg onload=alert(1)><circle r=5 /></svg>",
    f"![svg](data:image/svg+xml;base64,{base64.b64encode(SVG.encode()).decode()})",
    '<iframe src="http://example.invalid/frame"></iframe>',
    "<details open ontoggle=alert(1)>x</details>",
    '<form action="http://example.invalid/"><button>go</button></form>',
]
SCRIPT = "\n".join(
    ["#think <img src=x onerror=alert(1)> thinking <script>alert(1)</script>"]
    + [f"#say {p}" for p in PAYLOADS]
    + ["#say ```html", "#say <script>alert(1)</script>", "#say ```", "#say end of payloads"]
)

# Everything in the answer that could run or load: any of these found is a failure.
DANGEROUS = """
(root) => {
  const banned = ['script', 'iframe', 'svg', 'object', 'embed', 'form', 'style', 'link', 'meta']
  const found = []
  for (const el of root.querySelectorAll('*')) {
    const tag = el.tagName.toLowerCase()
    if (banned.includes(tag)) found.push(tag)
    for (const { name, value } of el.attributes) {
      if (name.startsWith('on')) found.push(`${tag}[${name}]`)
      const url = ['href', 'src', 'action'].includes(name)
      if (url && /^\\s*(javascript|vbscript|data:text)/i.test(value)) found.push(`${tag}[${value}]`)
    }
    const src = tag === 'img' ? el.getAttribute('src') : null
    if (src && !src.startsWith('data:image/png')) found.push(`img[src=${src}]`)
  }
  return found
}
"""

INLINE_SCRIPT = """
() => new Promise((resolve) => {
  const blocked = (e) => resolve('blocked:' + e.violatedDirective)
  document.addEventListener('securitypolicyviolation', blocked, { once: true })
  const s = document.createElement('script')
  s.textContent = 'window.__inlineRan = true'
  document.body.appendChild(s)
  setTimeout(() => resolve(window.__inlineRan ? 'ran' : 'silent'), 3000)
})
"""


@dataclass
class Watch:
    dialogs: list[str] = field(default_factory=list)
    remote: list[str] = field(default_factory=list)
    local_host: str = ""

    def follow(self, page: Page) -> None:
        page.on("dialog", self.on_dialog)

    def on_dialog(self, dialog: Dialog) -> None:
        self.dialogs.append(dialog.message)
        dialog.dismiss()

    def route(self, route: Route) -> None:
        host = urlparse(route.request.url).hostname
        if host == self.local_host:
            route.continue_()
        else:
            self.remote.append(route.request.url)
            route.abort()


@pytest.fixture
def watch(context: BrowserContext, e2e_stack: E2EStack) -> Watch:
    w = Watch(local_host=urlparse(e2e_stack.url).hostname or "")
    context.route("**/*", w.route)
    for existing in context.pages:
        w.follow(existing)
    context.on("page", w.follow)
    return w


def check_inert(page: Page, watch: Watch) -> None:
    answer = tid(last_assistant(page), "answer")
    expect(answer).to_contain_text("end of payloads")
    assert answer.evaluate(DANGEROUS) == []
    assert page.locator("script:not([src])").count() == 0
    # both remote images load nothing (markdown-it already refuses the SVG data: URL as a link)
    expect(answer.locator("img[data-blocked-src]")).to_have_count(2)
    expect(answer.locator("img[src]")).to_have_count(0)
    links = answer.locator("a").evaluate_all("(els) => els.map((a) => [a.href, a.rel, a.target])")
    assert all(h.startswith("http") and r == "noopener noreferrer" for h, r, _ in links), links
    expect(answer).to_contain_text("[click me](javascript:alert(1))")
    expect(answer.locator("pre code")).to_contain_text("<script>alert(1)</script>")  # shown as code
    expect(answer).to_contain_text("<img src=x onerror=alert(1)>")  # shown as text
    expect(tid(last_assistant(page), "thinking-summary")).to_be_visible()
    assert page.evaluate("() => window.__inlineRan === undefined")
    assert watch.dialogs == []
    assert watch.remote == []


def test_hostile_markdown_in_an_answer_stays_inert(page: Page, watch: Watch) -> None:
    open_chat(page)
    send(page, SCRIPT)
    reply = last_assistant(page)
    wait_finished(reply, "SUCCESS")
    check_inert(page, watch)
    tid(reply, "thinking-summary").click()
    expect(tid(reply, "thinking-stream")).to_contain_text("<img src=x onerror=alert(1)>")
    expect(tid(reply, "thinking-stream")).to_contain_text("<script>alert(1)</script>")
    expect(page.get_by_test_id("session-title").first).to_contain_text("<img src=x")

    page.reload()  # the stored answer replayed from the database
    wait_finished(last_assistant(page), "SUCCESS")
    check_inert(page, watch)
    answer = tid(last_assistant(page), "answer")
    answer.get_by_text("[click me](javascript:alert(1))").click()  # text, goes nowhere
    answer.locator("img").first.click()
    assert watch.dialogs == [] and watch.remote == []


def test_the_page_policy_blocks_inline_script(page: Page, watch: Watch) -> None:
    response = page.goto("/chat")
    assert response is not None
    policy = response.headers["content-security-policy"]
    assert "script-src 'self'" in policy and "unsafe-inline" not in policy.split("style-src")[0]
    assert "img-src 'self' data:" in policy
    expect(tid(page, "composer")).to_be_visible()
    assert page.evaluate(INLINE_SCRIPT) == "blocked:script-src-elem"
    assert watch.dialogs == []


def test_the_watch_sees_remote_requests_and_dialogs(
    context: BrowserContext, page: Page, watch: Watch
) -> None:
    """The two checks above would notice: a remote load is recorded, a dialog is caught."""
    with pytest.raises(PlaywrightError):
        context.new_page().goto("http://example.invalid/probe")
    assert watch.remote == ["http://example.invalid/probe"]
    open_chat(page)
    page.evaluate("() => alert('probe')")  # returns once the handler dismissed it
    assert watch.dialogs == ["probe"]
