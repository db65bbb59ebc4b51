"""The browser the tests get opens no omnibox WebUI per window (tests/e2e/chromium_launch.py)
and keeps the features Playwright turns off turned off."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser

from tests.e2e.chromium_launch import UNSEEN_FEATURES, _disable_features_flag

pytestmark = pytest.mark.e2e


def _omnibox_targets(browser: Browser) -> list[str]:
    session = browser.new_browser_cdp_session()
    try:
        targets = session.send("Target.getTargets")["targetInfos"]
    finally:
        session.detach()
    return [t["url"] for t in targets if t["url"].startswith("chrome://omnibox-popup")]


def test_a_new_context_opens_no_omnibox_popup_pages(browser: Browser) -> None:
    context = browser.new_context()
    try:
        context.new_page()  # its window's popups are there once the page is
        assert _omnibox_targets(browser) == []
    finally:
        context.close()


def test_playwrights_disabled_features_stay_disabled(browser: Browser) -> None:
    flag = _disable_features_flag()
    assert flag is not None
    disabled = flag.removeprefix("--disable-features=").split(",")
    assert set(UNSEEN_FEATURES) <= set(disabled)
    # two of Playwright's own (its chromiumSwitches.ts): beforeunload checks, paint holding
    assert {"AvoidUnnecessaryBeforeUnloadCheckSync", "PaintHolding"} <= set(disabled)
