"""Turn bench/results/*.json into bench/results/latest.md (a table) and latest.json.

Files in the shape of `bench/common.py` (`{"figures": [...]}`) are taken as they are; the
older bench files (bridge, bus, chat_queries) go through small adapters; any other file's
numbers are listed without targets. A figure whose target is missed says MISSED in the table.
"""

from __future__ import annotations

import json
import math
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from bench.common import figure

PERFORMANCE_MD = Path(__file__).resolve().parents[2] / "shared" / "PERFORMANCE.md"
OPS = {">=": "≥", "<=": "≤", "==": "="}


# ---- reading ----------------------------------------------------------------------------------


def evaluate(item: dict[str, Any]) -> str:
    """'met', 'MISSED', or '' when the figure has no target (or no value)."""
    target, value = item.get("target"), item.get("value")
    if not target or target.get("value") is None or not _number(value):
        return "" if not target else "MISSED"
    op, limit = target["op"], float(target["value"])
    ok = {">=": value >= limit, "<=": value <= limit, "==": value == limit}[op]
    return "met" if ok else "MISSED"


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def figures_of(name: str, body: dict[str, Any]) -> list[dict[str, Any]]:
    """The figures of one result file, whatever its shape."""
    if isinstance(body.get("figures"), list):
        return list(body["figures"])
    adapter = ADAPTERS.get(name)
    if adapter is not None:
        return adapter(body)
    return [figure(f"{name}.{key}", f"{name}: {key}", value) for key, value in _leaves(body)]


def _leaves(body: Any, prefix: str = "") -> list[tuple[str, Any]]:
    out: list[tuple[str, Any]] = []
    if isinstance(body, dict):
        for key, value in body.items():
            out += _leaves(value, f"{prefix}.{key}" if prefix else str(key))
    elif _number(body):
        out.append((prefix, body))
    return out


def _bridge(b: dict[str, Any]) -> list[dict[str, Any]]:
    ms = 1000.0
    return [
        figure(
            "bridge.cold_start_s",
            "bridge process start → /health",
            b.get("cold_start_to_health_s"),
            "s",
        ),
        figure(
            "bridge.cold_first_event_ms",
            "bridge: first event, first turn of a fresh bridge",
            _scaled(b.get("cold_first_event_s"), ms),
            "ms",
            target=("<=", 700),
        ),
        figure(
            "bridge.warm_first_event_ms",
            "bridge: first event, warm turn (median)",
            _scaled(b.get("warm_first_event_s"), ms),
            "ms",
            target=("<=", 100),
        ),
        figure(
            "bridge.tokens_per_s",
            "bridge SSE answer tokens/s (#tokens 2000, median of 3)",
            b.get("bridge_tokens_per_s"),
            "tokens/s",
            baseline=("hermes in-process", b.get("inprocess_tokens_per_s")),
        ),
        figure(
            "bridge.ratio", "bridge SSE / hermes in-process", b.get("sse_vs_inprocess_ratio"), "x"
        ),
    ]


def _scaled(value: Any, factor: float) -> float | None:
    return value * factor if _number(value) else None


def _bus(b: dict[str, Any]) -> list[dict[str, Any]]:
    rows = []
    refs = {"memory": "plain asyncio p50/p99 0.08/0.33 ms", "redis": "Redis 0.41/0.94 ms"}
    for bus in ("memory", "redis"):
        r = b.get(bus) or {}
        cond = {"bus": bus}
        rows += [
            figure(
                f"bus.{bus}.events_per_s_single",
                f"{bus} bus: publish → subscriber, ev/s",
                r.get("events_per_s_single"),
                "ev/s",
                conditions=cond,
            ),
            figure(
                f"bus.{bus}.events_per_s_batch50",
                f"{bus} bus: publish_many by 50, ev/s",
                r.get("events_per_s_batch50"),
                "ev/s",
                conditions=cond,
            ),
            figure(
                f"bus.{bus}.replay_events_per_s",
                f"{bus} bus: replay, ev/s",
                r.get("replay_events_per_s"),
                "ev/s",
                conditions=cond,
            ),
            figure(
                f"bus.{bus}.latency_p99_ms",
                f"{bus} bus: latency at 200 ev/s, p99",
                r.get("latency_p99_ms"),
                "ms",
                conditions=cond,
                reference=refs[bus],
                baseline=("p50", r.get("latency_p50_ms")),
            ),
        ]
    return rows


def _chat_queries(b: dict[str, Any]) -> list[dict[str, Any]]:
    rows = []
    for dialect in ("sqlite", "postgresql", "mariadb"):
        r = b.get(dialect)
        if not r:
            continue
        cond = {"database": dialect, "sessions": b.get("sessions"), "depth": b.get("depth")}
        rows += [
            figure(
                f"queries.{dialect}.list_ms",
                f"{dialect}: list page of 10,000 sessions",
                r.get("list_ms"),
                "ms",
                target=("<=", 10),
                conditions=cond,
                note=f"{r.get('list_statements')} SQL statements",
            ),
            figure(
                f"queries.{dialect}.detail_ms",
                f"{dialect}: detail of a 5,000-deep branch",
                r.get("detail_ms"),
                "ms",
                target=("<=", 20),
                conditions=cond,
                baseline=("50-deep branch", r.get("detail_depth50_ms")),
                reference="Open WebUI: 1,000-message chat 36.8 ms, 5,000: 193 ms",
                note=f"{r.get('detail_statements')} statements (50 deep: "
                f"{r.get('detail_depth50_statements')})",
            ),
        ]
    return rows


ADAPTERS = {"bridge": _bridge, "bus": _bus, "chat_queries": _chat_queries}


# ---- writing ----------------------------------------------------------------------------------


def _share(value: float | None) -> str:
    return "" if value is None else f"{value:.0%}"


def fmt(value: Any) -> str:
    if value is None:
        return "—"
    if isinstance(value, bool) or not isinstance(value, int | float):
        return str(value)
    if isinstance(value, int):
        return f"{value:,}"
    if not math.isfinite(value):
        return "n/a"
    if abs(value) >= 100:
        return f"{value:,.0f}"
    if abs(value) >= 1:
        return f"{value:.2f}"
    return f"{value:.3f}"


def _target(item: dict[str, Any]) -> str:
    target = item.get("target")
    if not target:
        return ""
    return f"{OPS.get(target['op'], target['op'])} {fmt(target['value'])}"


def _baseline(item: dict[str, Any]) -> str:
    base = item.get("baseline")
    return f"{base['label']}: {fmt(base['value'])}" if base else ""


def _conditions(item: dict[str, Any]) -> str:
    return ", ".join(f"{k} {v}" for k, v in (item.get("conditions") or {}).items())


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def table(items: list[dict[str, Any]]) -> list[str]:
    lines = [
        "| bench | figure | value | target | result | baseline (same run) | conditions "
        "| machine limit / peer | note |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for item in items:
        value = f"{fmt(item.get('value'))} {item.get('unit') or ''}".strip()
        result = item.get("result", evaluate(item))
        if item.get("stale"):
            result = f"{result} (stale)".strip()
        cells = [
            item.get("bench", ""),
            item["label"],
            value,
            _target(item),
            f"**{result}**" if result.startswith("MISSED") else result,
            _baseline(item),
            _conditions(item),
            item.get("reference") or "",
            item.get("note") or "",
        ]
        lines.append("| " + " | ".join(_cell(str(c)) for c in cells) + " |")
    return lines


def summary_line(item: dict[str, Any]) -> str:
    value = f"{fmt(item.get('value'))} {item.get('unit') or ''}".strip()
    target = _target(item)
    result = item.get("result", evaluate(item))
    tail = f"  [target {target}: {result}]" if target else ""
    return f"{item['label']}: {value}{tail}"


def _peer_sections() -> list[str]:
    if not PERFORMANCE_MD.exists():
        return []
    text = PERFORMANCE_MD.read_text()
    out: list[str] = []
    for header in ("## Limits", "## A peer"):
        start = text.find(header)
        if start < 0:
            continue
        end = text.find("\n## ", start + 1)
        section = text[start : end if end > 0 else len(text)].strip()
        out += ["", section.replace("## ", "### ", 1)]
    return out


def build(
    results_dir: Path, runs: dict[str, dict[str, Any]], machine: dict[str, Any]
) -> list[dict[str, Any]]:
    """Write latest.md and latest.json from the result files; return the figures."""
    items: list[dict[str, Any]] = []
    order = list(runs)
    paths = [p for p in results_dir.glob("*.json") if p.stem != "latest"]
    paths.sort(key=lambda p: (order.index(p.stem) if p.stem in order else len(order), p.stem))
    for path in paths:
        body = json.loads(path.read_text())
        run = runs.get(path.stem, {})
        stale = run.get("status") != "ok"
        for item in figures_of(path.stem, body):
            conditions = {**(body.get("conditions") or {}), **(item.get("conditions") or {})}
            conditions.pop("platform", None)
            conditions.pop("python", None)
            conditions.pop("memory_gib", None)
            items.append(
                {
                    **item,
                    "bench": path.stem,
                    "conditions": conditions,
                    "result": evaluate(item),
                    "stale": stale,
                }
            )
    now = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    missed = sum(1 for i in items if i["result"] == "MISSED")
    md = [
        "# Benchmarks: latest run",
        "",
        f"Generated {now} by `make bench` ({'quick' if machine.get('quick') else 'full'} sizes). "
        f"Machine: {machine.get('cores')} cores, {machine.get('memory_gib')} GiB, "
        f"Python {machine.get('python')}, load average {machine.get('load_1m')} at the start "
        "(other work on the machine shows in the figures; read them as ratios). "
        f"Speed reference: {fmt(machine.get('speed_reference_ms'))} ms for a fixed pure-Python "
        "workload (`bench/common.py` speed_reference_ms; lower is faster, compare runs on "
        "different machines through it); steal: the share of CPU time the hypervisor gave to "
        "other machines while the bench ran.",
        f"{len(items)} figures, {missed} miss their target. A miss is reported, it does not fail "
        "the command. Latencies are measured from the sender's clock to the reader's "
        "(CLOCK_MONOTONIC across processes).",
        "",
        "| bench | status | seconds | steal |",
        "|---|---|---|---|",
        *[
            f"| {name} | {r.get('status')} | {fmt(r.get('seconds'))} | {_share(r.get('steal'))} |"
            for name, r in runs.items()
        ],
        "",
        *table(items),
        *_peer_sections(),
        "",
    ]
    (results_dir / "latest.md").write_text("\n".join(md))
    body = {"generated_at": now, "machine": machine, "runs": runs, "figures": items}
    (results_dir / "latest.json").write_text(json.dumps(body, indent=2, default=str) + "\n")
    return items
