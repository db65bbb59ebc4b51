"""The bridge adopts the programs its agent detaches (so they stay known as the agent's) and
reaps them when they end, leaving the children it started to whoever waits for them. Run in
a child process, which becomes the subreaper as the bridge does."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux prctl")

CHILD = r"""
import json, os, subprocess, time
from agentchat.bridge.guards.own_processes import PR_SET_CHILD_SUBREAPER, Reaper, _ended, _prctl
from agentchat.peers.agent_processes import children

assert _prctl(PR_SET_CHILD_SUBREAPER, 1)
told, tell = os.pipe()  # the orphan tells its pid
wait, go = os.pipe()  # and ends when let
if os.fork() == 0:  # a program that detaches: a double fork, the middle one ends at once
    if os.fork() == 0:
        os.write(tell, str(os.getpid()).encode())
        os.read(wait, 1)
        os._exit(0)
    os._exit(0)
os.wait()  # the middle one
orphan = int(os.read(told, 20))
adopted = orphan in children(os.getpid())
started = subprocess.Popen(["sh", "-c", "exit 3"])  # nobody has waited for it yet
os.write(go, b"x")
deadline = time.monotonic() + 30
while not (_ended(orphan) and _ended(started.pid)) and time.monotonic() < deadline:
    time.sleep(0.01)
reaper = Reaper()
first, second = reaper.reap(), reaper.reap()
left = sorted(pid for pid in children(os.getpid()) if _ended(pid))
print(json.dumps({"adopted": adopted, "orphan": orphan, "first": first, "second": second,
                  "left": left, "started": started.pid, "code": started.wait()}))
"""


def test_detached_programs_are_adopted_and_reaped_and_started_ones_left_alone() -> None:
    done = subprocess.run(
        [sys.executable, "-c", CHILD], capture_output=True, text=True, timeout=60, check=True
    )
    seen = json.loads(done.stdout)
    assert seen["adopted"]  # below this process, not init
    assert seen["first"] == []  # an ended child is looked at twice before it is reaped
    assert seen["second"] == [seen["orphan"]]
    assert seen["left"] == [seen["started"]]  # its Popen waits for it...
    assert seen["code"] == 3  # ...and gets its real exit status
