"""Debian's Chromium for the browser tests, without the omnibox's WebUI popups (issue 29).

Headless Chromium opens a window per browser context, and each window loads two WebUI pages
for its address bar's popups (chrome://omnibox-popup.top-chrome, ~100 resources and custom
elements each, in renderers of their own) that no test can see. Turning their features off
took Chromium's CPU in four browser-test modules from 85-95 to 66-75 s.

Chromium keeps only the last --disable-features it is given, and Playwright gives its own list
(features that keep navigations, routes and screenshots as the tests expect). So the list
Playwright passes is read off the launched browser's command line, and the browser is launched
again with that list and ours: once per process, the merged flag is kept for later launches.
"""

from __future__ import annotations

import os
from pathlib import Path

from playwright.sync_api import Browser, BrowserType

from agentchat.peers.agent_processes import command_of, descendants

UNSEEN_FEATURES = ("WebUIOmniboxPopup", "WebUIOmniboxAimPopup")
FLAG = "--disable-features="

_merged: tuple[str, str] | None = None  # (Playwright's flag, the flag with ours added)


def launch_chromium(browser_type: BrowserType, executable: str, args: list[str]) -> Browser:
    """`browser_type.launch(executable_path=executable, args=args)`, with UNSEEN_FEATURES off
    and Playwright's disabled features still off."""
    global _merged
    if _merged is None:
        browser = browser_type.launch(executable_path=executable, args=args)
        theirs = _disable_features_flag()
        if theirs is None:  # not found: Playwright's flags as they are, the popups on
            return browser
        browser.close()
        _merged = (theirs, theirs + "," + ",".join(UNSEEN_FEATURES))
    theirs, ours = _merged
    return browser_type.launch(
        executable_path=executable, args=[*args, ours], ignore_default_args=[theirs]
    )


def _disable_features_flag() -> str | None:
    """The --disable-features of the newest browser process Playwright started below this
    process (its driver is the browser's parent; renderers and helpers have a --type)."""
    found: tuple[int, str] | None = None
    for pid in descendants([os.getpid()]):
        argv = [word.decode(errors="replace") for word in command_of(pid)]
        if "--remote-debugging-pipe" not in argv or any(a.startswith("--type=") for a in argv):
            continue
        flags = [a for a in argv if a.startswith(FLAG)]
        started = _start_time(pid)
        if flags and started is not None and (found is None or started > found[0]):
            found = (started, flags[-1])
    return None if found is None else found[1]


def _start_time(pid: int) -> int | None:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return int(stat[stat.rfind(")") + 2 :].split()[19])
