"""What grew in the bridge between two memory-probe reports (see sitecustomize.py). Prints it.

.venv/bin/python bench/memprobe/compare.py PROBE_DIR LABEL_A LABEL_B [--top 25]
"""

from __future__ import annotations

import argparse
import json
import tracemalloc
from pathlib import Path
from typing import Any


def grown(before: dict[str, int], after: dict[str, int], top: int) -> list[tuple[str, int, int]]:
    rows = [(k, before.get(k, 0), v) for k, v in after.items() if v != before.get(k, 0)]
    return sorted(rows, key=lambda r: r[2] - r[1], reverse=True)[:top]


def show(title: str, rows: list[tuple[str, int, int]]) -> None:
    print(f"\n== {title} (before -> after, +delta)")
    for key, old, new in rows:
        print(f"  {new - old:+9d}  {old:9d} -> {new:<9d} {key}")


def traced(folder: Path, a: str, b: str, top: int) -> None:
    first, second = folder / f"{a}.snap", folder / f"{b}.snap"
    if not (first.exists() and second.exists()):
        return
    old = tracemalloc.Snapshot.load(str(first))
    new = tracemalloc.Snapshot.load(str(second))
    for key in ("filename", "traceback"):
        print(f"\n== tracemalloc, grouped by {key}")
        for stat in new.compare_to(old, key)[:top]:
            print(f"  {stat.size_diff / 1024:+10.1f} KiB {stat.count_diff:+8d} blocks")
            for line in stat.traceback.format(limit=12 if key == "traceback" else 1):
                print(f"      {line}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folder", type=Path)
    parser.add_argument("a")
    parser.add_argument("b")
    parser.add_argument("--top", type=int, default=25)
    args = parser.parse_args()
    load = lambda label: json.loads((args.folder / f"{label}.json").read_text())  # noqa: E731
    a: dict[str, Any] = load(args.a)
    b: dict[str, Any] = load(args.b)
    print(f"rss KiB {a['rssKiB']} -> {b['rssKiB']}; gc objects {a['gcObjects']} -> "
          f"{b['gcObjects']}; traced KiB {a['tracedKiB']} -> {b['tracedKiB']}; "
          f"threads {a['threads']} -> {b['threads']}")  # fmt: skip
    print(f"malloc {a.get('malloc')}\n    -> {b.get('malloc')}")
    for section in ("modules", "lru", "types"):
        show(section, grown(a[section], b[section], args.top))
    traced(args.folder, args.a, args.b, args.top)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
