"""The real build (frontend/ -> static/) as the API serves it. Needs the built page, so `make
test` runs it with the browser tests (the Makefile's WITH_PAGE); it builds the page when it
is missing or older than its sources, as they do. Synchronous: that pytest process runs
Playwright's event loop."""

from __future__ import annotations

import re

from fastapi.testclient import TestClient

from agentchat.web.frontend import STATIC_DIR
from tests.e2e.build import ensure_page_built
from tests.web.test_web import _app


def test_the_real_build_has_no_inline_script_and_all_assets_load() -> None:
    ensure_page_built()
    with TestClient(_app(STATIC_DIR), base_url="http://127.0.0.1") as c:
        page = c.get("/chat")
        assert page.status_code == 200
        scripts = re.findall(r"<script\b([^>]*)>(.*?)</script>", page.text, flags=re.S)
        assert scripts, "the page loads its script"
        for attrs, body in scripts:
            assert 'src="/assets/' in attrs and not body.strip(), "inline script would break CSP"
        assert "http://" not in page.text and "https://" not in page.text
        for ref in re.findall(r'(?:src|href)="(/assets/[^"]+)"', page.text):
            asset = c.get(ref)
            assert asset.status_code == 200, ref
