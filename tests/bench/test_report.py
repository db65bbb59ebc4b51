"""The results table: targets judged, legacy files adapted, the markdown and JSON written."""

from __future__ import annotations

import json
from pathlib import Path

from bench.common import figure
from bench.report import build, evaluate, figures_of, fmt, summary_line, table


def test_evaluate_judges_each_operator() -> None:
    assert evaluate(figure("a", "a", 0.9, target=(">=", 0.8))) == "met"
    assert evaluate(figure("a", "a", 0.7, target=(">=", 0.8))) == "MISSED"
    assert evaluate(figure("a", "a", 3.5, target=("<=", 3))) == "MISSED"
    assert evaluate(figure("a", "a", 0, target=("==", 0))) == "met"
    assert evaluate(figure("a", "a", 1, target=("==", 0))) == "MISSED"
    assert evaluate(figure("a", "a", 5.0)) == ""
    assert evaluate(figure("a", "a", None, target=("<=", 1))) == "MISSED"
    assert evaluate(figure("a", "a", float("nan"), target=("<=", 1))) == "MISSED"


def test_fmt_keeps_numbers_readable() -> None:
    assert fmt(12345) == "12,345"
    assert fmt(12345.6) == "12,346"
    assert fmt(2.345) == "2.35"
    assert fmt(0.0521) == "0.052"
    assert fmt(None) == "—"
    assert fmt(float("nan")) == "n/a"


def test_table_marks_a_miss_and_shows_target_and_baseline() -> None:
    item = figure("relay.ratio", "ratio c/a", 0.5, "x", target=(">=", 0.8), baseline=("a", 2000.0))
    lines = table([{**item, "bench": "relay"}])
    assert lines[0].startswith("| bench | figure | value | target | result")
    row = lines[2]
    assert "| relay | ratio c/a | 0.500 x | ≥ 0.800 | **MISSED** | a: 2,000 |" in row
    assert summary_line(item) == "ratio c/a: 0.500 x  [target ≥ 0.800: MISSED]"


def test_legacy_and_unknown_files_become_figures() -> None:
    queries = {"sessions": 10000, "depth": 5000, "sqlite": {"list_ms": 12.0, "detail_ms": 5.0}}
    rows = {r["key"]: r for r in figures_of("chat_queries", queries)}
    assert evaluate(rows["queries.sqlite.list_ms"]) == "MISSED"
    assert evaluate(rows["queries.sqlite.detail_ms"]) == "met"
    other = figures_of("scale", {"two": {"events_per_s": 10.0}, "label": "x"})
    assert [(r["key"], r["value"]) for r in other] == [("scale.two.events_per_s", 10.0)]


def test_build_writes_markdown_and_json(tmp_path: Path) -> None:
    body = {"conditions": {"cores": 2}, "figures": [figure("w.b", "bytes", 3.0, target=("<=", 2))]}
    (tmp_path / "wire.json").write_text(json.dumps(body))
    (tmp_path / "old.json").write_text(json.dumps({"figures": [figure("o", "old", 1.0)]}))
    runs = {"wire": {"status": "ok", "seconds": 1.0, "steal": 0.15}}
    items = build(tmp_path, runs, {"cores": 2, "quick": True, "speed_reference_ms": 211.0})
    assert [i["bench"] for i in items] == ["wire", "old"]
    assert items[0]["result"] == "MISSED" and not items[0]["stale"]
    assert items[1]["stale"]  # not run this time
    markdown = (tmp_path / "latest.md").read_text()
    assert "1 miss their target" in markdown and "**MISSED**" in markdown
    assert "| wire | ok | 1.00 | 15% |" in markdown and "Speed reference: 211 ms" in markdown
    saved = json.loads((tmp_path / "latest.json").read_text())
    assert saved["figures"][0]["conditions"] == {"cores": 2}
