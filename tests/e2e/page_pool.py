"""Browser tabs kept per worker and handed to the next test that asks for the same kind (issue 29).

A new context costs Chromium about 1.6 s of CPU per test (new renderer processes, a cold code
cache for the page's scripts); loading the page again in a kept tab about 0.45 s. A kept tab is
handed on only after it was emptied: the app unloaded, cookies, permissions, local and session
storage, IndexedDB and the tab's history cleared, its size and emulated media (colour scheme,
reduced motion, ...) back to those of its kind; it waits on about:blank like a new tab. Only
its HTTP cache is kept, as a person's browser keeps it.

What cannot be emptied decides which test gets a tab of a new context instead (`may_share`):
- a test whose code, or a helper or fixture of its module that it names, adds a listener, a
  route, an init script, a clock, CDP or a permission, or walks the history
  (`NEEDS_OWN_CONTEXT`); a module that does so outside a function, or imports the
  typing-cost helpers (CDP and clipboard permissions), shares none;
- stored settings asked for before the page loads (`make_page(storage=...)`: an init script);
- a test that also takes `context` gets a tab of that context.
A tab whose test failed, that was closed, or whose context opened another is closed.
AGENTCHAT_TEST_KEEP_TABS=0 turns keeping off.
"""

from __future__ import annotations

import ast
import inspect
import os
import re
from collections import OrderedDict
from collections.abc import Hashable
from dataclasses import dataclass
from types import ModuleType
from typing import Any

import pytest
from playwright.sync_api import Browser, BrowserContext, CDPSession, Page

from tests.e2e.timeouts import EXPECT_TIMEOUT_MS

NEEDS_OWN_CONTEXT = re.compile(
    r"\.clock\b|typing_cost"
    r"|\.(on|once|route\w*|unroute\w*|add_init_script|expose_\w+|new_cdp_session"
    r"|grant_permissions|set_offline|set_geolocation|set_extra_http_headers"
    r"|set_default_\w*timeout|add_locator_handler|go_back|go_forward"
    r"|expect_popup|expect_page|wait_for_event|expect_event)\("
)
KEPT_PER_WORKER = 8  # a kept tab holds a renderer (~60-100 MB)
# What a new context emulates unless its options say otherwise (Playwright's defaults).
MEDIA_DEFAULTS = {
    "media": "null",
    "color_scheme": "light",
    "reduced_motion": "no-preference",
    "forced_colors": "none",
    "contrast": "no-preference",
}
DEFAULT_VIEWPORT = {"width": 1280, "height": 720}

CLEAR_STORAGE = """async () => {
    localStorage.clear();
    sessionStorage.clear();
    const dbs = indexedDB.databases ? await indexedDB.databases() : [];
    await Promise.all(dbs.map((db) => new Promise((done) => {
        const ask = indexedDB.deleteDatabase(db.name);
        ask.onsuccess = ask.onerror = ask.onblocked = () => done(null);
    })));
}"""

_unshareable: dict[str, set[str] | None] = {}


def names_needing_own_context(module: ModuleType) -> set[str] | None:
    """The module's top-level functions and classes that need a context of their own, counting
    those that name one that does; None when code outside them does."""
    source = inspect.getsource(module)
    parts: dict[str, str] = {}
    for node in ast.parse(source).body:
        segment = ast.get_source_segment(source, node) or ""
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            parts[node.name] = segment
        elif NEEDS_OWN_CONTEXT.search(segment):
            return None
    found = {name for name, code in parts.items() if NEEDS_OWN_CONTEXT.search(code)}
    while True:
        named = re.compile(r"\b(" + "|".join(map(re.escape, found)) + r")\b") if found else None
        more = {n for n, code in parts.items() if n not in found and named and named.search(code)}
        if not more:
            return found
        found |= more


def may_share(item: pytest.Item) -> bool:
    """Whether `item` may run on a kept tab: nothing it does outlives it (see the module doc).
    AGENTCHAT_TEST_KEEP_TABS=0: no test does (every tab of a new context, as before)."""
    if os.environ.get("AGENTCHAT_TEST_KEEP_TABS", "1") == "0":
        return False
    module = item.module  # type: ignore[attr-defined]
    if module.__name__ not in _unshareable:
        _unshareable[module.__name__] = names_needing_own_context(module)
    unshareable = _unshareable[module.__name__]
    if unshareable is None:
        return False
    owner = item.cls.__name__ if item.cls is not None else item.originalname  # type: ignore[attr-defined]
    return owner not in unshareable


def new_context(browser: Browser, base_url: str, **options: Any) -> BrowserContext:
    ctx = browser.new_context(base_url=base_url, locale="en-US", **options)
    ctx.set_default_timeout(EXPECT_TIMEOUT_MS)
    return ctx


@dataclass
class KeptPage:
    context: BrowserContext
    page: Page
    cdp: CDPSession
    options: dict[str, Any]

    def usable(self) -> bool:
        return not self.page.is_closed() and self.context.pages == [self.page]

    def empty(self, base_url: str) -> None:
        """Leave the tab as a new tab of a new context would be (its HTTP cache aside)."""
        self.page.goto(f"{base_url}/api/health")  # the app unloads; its origin, without it
        self.page.evaluate(CLEAR_STORAGE)
        self.context.clear_cookies()
        self.context.clear_permissions()
        self.page.goto("about:blank")
        self.cdp.send("Page.resetNavigationHistory")
        if not self.options.get("no_viewport"):
            self.page.set_viewport_size(self.options.get("viewport") or DEFAULT_VIEWPORT)
        media = {name: self.options.get(name) or value for name, value in MEDIA_DEFAULTS.items()}
        self.page.emulate_media(**media)


class PagePool:
    """Kept tabs by kind (address and context options); at most KEPT_PER_WORKER, oldest out."""

    def __init__(self, browser: Browser) -> None:
        self.browser = browser
        self.kept: OrderedDict[Hashable, KeptPage] = OrderedDict()
        self.lent: list[tuple[Hashable, str, KeptPage]] = []
        self.reused = self.opened = 0

    def take(self, base_url: str, **options: Any) -> Page:
        """A kept tab of this kind, or a tab of a new context; given back by `give_back`."""
        key = (base_url, repr(sorted(options.items())))
        kept = self.kept.pop(key, None)
        if kept is None:
            self.opened += 1
            ctx = new_context(self.browser, base_url, **options)
            page = ctx.new_page()
            kept = KeptPage(ctx, page, ctx.new_cdp_session(page), options)
        else:
            self.reused += 1
        self.lent.append((key, base_url, kept))
        return kept.page

    def give_back(self, test_failed: bool) -> None:
        """Keep what the test was lent, emptied, or close it."""
        lent, self.lent = self.lent, []
        for key, base_url, kept in lent:
            if test_failed or not kept.usable() or key in self.kept:
                kept.context.close()
                continue
            try:
                kept.empty(base_url)
            except Exception:
                kept.context.close()
                raise
            self.kept[key] = kept
            while len(self.kept) > KEPT_PER_WORKER:
                self.kept.popitem(last=False)[1].context.close()

    def close(self) -> None:
        for kept in self.kept.values():
            kept.context.close()
        self.kept.clear()
