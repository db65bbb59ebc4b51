"""A memory probe for the bridge process, loaded only by benches (PYTHONPATH=bench/memprobe);
nothing of this is part of the product.

Active when AGENTCHAT_BRIDGE_MEMPROBE_DIR names a folder and this is an `agentchat bridge`
process. A file `want-LABEL` appearing in that folder makes it write `LABEL.json` (resident
memory, glibc's arena figures, object counts by type, the length of every module-level
container, hermes' and ours, and lru_cache sizes) and `LABEL.malloc.xml` (glibc's
malloc_info). `trim-LABEL` does the same, then calls malloc_trim(0) and reports again as
`LABEL-trimmed`: what the allocator held free comes back then. Objects frozen at start-up
(`agentchat.gc_freeze`) are not in the type counts.

AGENTCHAT_BRIDGE_MEMPROBE_FRAMES=N (>0): tracemalloc starts with N frames at the first report
(tracing hermes' import is too slow) and later reports add `LABEL.snap` (compare.py diffs two).
Experiments: AGENTCHAT_BRIDGE_MEMPROBE_MALLOPT="-8:2,-3:131072" calls mallopt(param, value) for
each pair at start (-8 M_ARENA_MAX, -3 M_MMAP_THRESHOLD); AGENTCHAT_BRIDGE_MEMPROBE_TRIM_S=S
calls malloc_trim(0) every S seconds.
"""

from __future__ import annotations

import collections
import ctypes
import functools
import gc
import json
import os
import sys
import threading
import time
import tracemalloc
from pathlib import Path
from typing import Any

_FOLDER = os.environ.get("AGENTCHAT_BRIDGE_MEMPROBE_DIR")
_FRAMES = int(os.environ.get("AGENTCHAT_BRIDGE_MEMPROBE_FRAMES", "0") or 0)
_MALLOPT = os.environ.get("AGENTCHAT_BRIDGE_MEMPROBE_MALLOPT", "")
_TRIM_S = float(os.environ.get("AGENTCHAT_BRIDGE_MEMPROBE_TRIM_S", "0") or 0)
_CONTAINERS = (dict, list, set, frozenset, collections.deque, collections.OrderedDict)


def _rss_kib() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


class _MallInfo2(ctypes.Structure):
    _fields_ = [
        (name, ctypes.c_size_t)
        for name in (
            "arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks",
            "uordblks", "fordblks", "keepcost",
        )
    ]  # fmt: skip


_LIBC = ctypes.CDLL("libc.so.6")
_LIBC.mallinfo2.restype = _MallInfo2
_LIBC.fopen.restype = ctypes.c_void_p
_LIBC.fopen.argtypes = [ctypes.c_char_p, ctypes.c_char_p]
_LIBC.malloc_info.argtypes = [ctypes.c_int, ctypes.c_void_p]
_LIBC.fclose.argtypes = [ctypes.c_void_p]


def _malloc_info(path: Path) -> None:
    """glibc's own XML account of every arena (free chunks by size, heap sizes)."""
    stream = _LIBC.fopen(str(path).encode(), b"w")
    if stream:
        _LIBC.malloc_info(0, stream)
        _LIBC.fclose(stream)


def _malloc() -> dict[str, int]:
    """glibc's view (KiB): heap in arenas, in use, free inside them, mmapped blocks."""
    info = _LIBC.mallinfo2()
    return {
        "arenaKiB": info.arena // 1024,
        "inUseKiB": info.uordblks // 1024,
        "freeKiB": info.fordblks // 1024,
        "mmapKiB": info.hblkhd // 1024,
        "pyBlocks": sys.getallocatedblocks(),
    }


def _module_containers() -> dict[str, int]:
    sizes: dict[str, int] = {}
    for name, module in list(sys.modules.items()):
        try:
            members = list(vars(module).items())
        except TypeError:
            continue
        for attr, value in members:
            if isinstance(value, _CONTAINERS) and not attr.startswith("__"):
                sizes[f"{name}.{attr}"] = len(value)
            elif isinstance(value, functools._lru_cache_wrapper):  # type: ignore[attr-defined]
                sizes[f"{name}.{attr}()"] = value.cache_info().currsize
    return sizes


def _lru_caches(objects: list[Any]) -> dict[str, int]:
    sizes: dict[str, int] = {}
    for obj in objects:
        if isinstance(obj, functools._lru_cache_wrapper):  # type: ignore[attr-defined]
            key = f"{getattr(obj, '__module__', '?')}.{getattr(obj, '__qualname__', '?')}"
            sizes[key] = sizes.get(key, 0) + obj.cache_info().currsize
    return sizes


def _report(label: str, folder: Path) -> None:
    gc.collect()
    objects = gc.get_objects()
    counts = collections.Counter(type(o).__qualname__ for o in objects)
    body = {
        "label": label,
        "time": time.time(),
        "rssKiB": _rss_kib(),
        "malloc": _malloc(),
        "threads": threading.active_count(),
        "gcObjects": len(objects),
        "types": dict(counts.most_common(400)),
        "modules": _module_containers(),
        "lru": _lru_caches(objects),
        "tracedKiB": tracemalloc.get_traced_memory()[0] // 1024,
    }
    del objects
    if tracemalloc.is_tracing():
        tracemalloc.take_snapshot().dump(str(folder / f"{label}.snap"))
    elif _FRAMES:
        tracemalloc.start(_FRAMES)
    _malloc_info(folder / f"{label}.malloc.xml")
    (folder / f"{label}.json.part").write_text(json.dumps(body))
    (folder / f"{label}.json.part").rename(folder / f"{label}.json")


def _watch(folder: Path) -> None:
    while True:
        for want in sorted([*folder.glob("want-*"), *folder.glob("trim-*")]):
            label = want.name.split("-", 1)[1]
            want.unlink(missing_ok=True)
            try:
                _report(label, folder)
                if want.name.startswith("trim-"):
                    _LIBC.malloc_trim(0)
                    _report(f"{label}-trimmed", folder)
            except Exception as exc:  # a probe never takes the bridge down
                (folder / f"{label}.error").write_text(repr(exc))
        time.sleep(0.2)


def _trim_every(seconds: float) -> None:
    while True:
        time.sleep(seconds)
        _LIBC.malloc_trim(0)


def _start() -> None:
    if not _FOLDER or "bridge" not in sys.argv:
        return
    for pair in filter(None, _MALLOPT.split(",")):
        param, value = (int(v) for v in pair.split(":"))
        _LIBC.mallopt(param, value)
    if _TRIM_S:
        threading.Thread(target=_trim_every, args=(_TRIM_S,), daemon=True).start()
    folder = Path(_FOLDER)
    folder.mkdir(parents=True, exist_ok=True)
    threading.Thread(target=_watch, args=(folder,), name="memprobe", daemon=True).start()


_start()
