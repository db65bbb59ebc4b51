"""The API's process keeps its environment to itself.

Its environment holds the API token, the database and Redis passwords and the encryption key.
/proc/<pid>/environ shows it to every process of the same user, and the agent's programs run
as that user when `serve` started their bridge: one read the token there. An undumpable
process (prctl PR_SET_DUMPABLE 0) has its /proc files owned by root and readable by no other
process of its user (root's programs too, without CAP_SYS_PTRACE, which a bridge run as root
gives up: bridge/guards/own_processes.py); it writes no core file either.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import logging
import sys

log = logging.getLogger(__name__)

PR_SET_DUMPABLE = 4


def make_undumpable() -> bool:
    """True when this process is undumpable now (Linux); elsewhere False, with a warning."""
    if not sys.platform.startswith("linux"):
        return False
    libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
    if int(libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)) != 0:
        log.warning("could not make the API's process undumpable: its environment is readable")
        return False
    return True
