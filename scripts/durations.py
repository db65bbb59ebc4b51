"""Write tests/durations.md from the JUnit reports of a test run: the 30 slowest tests, the time
per folder, and each suite's wall time, so the cost of a new test shows in review.

`make test` runs it after pytest and Vitest have written their reports into test-artifacts/
(pytest --junitxml, Vitest's junit reporter); it also prints the slowest tests.

    .venv/bin/python scripts/durations.py [--out tests/durations.md] REPORT.xml ...
"""

from __future__ import annotations

import argparse
import os
import sys
import xml.etree.ElementTree as ET
from collections import defaultdict
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path, PurePosixPath
from typing import NamedTuple

ROOT = Path(__file__).resolve().parents[1]
SLOWEST = 30


@dataclass(frozen=True)
class Case:
    suite: str  # which report: "pytest", "pytest e2e", "vitest"
    file: str  # relative to the repository root
    name: str
    seconds: float
    outcome: str  # passed, failed, error, skipped

    @property
    def folder(self) -> str:
        return str(PurePosixPath(self.file).parent)

    @property
    def test_id(self) -> str:
        return f"{self.file}::{self.name}"


@dataclass(frozen=True)
class Suite:
    name: str
    wall_s: float
    cases: list[Case]


def _outcome(case: ET.Element) -> str:
    for tag, outcome in (("failure", "failed"), ("error", "error"), ("skipped", "skipped")):
        if case.find(tag) is not None:
            return outcome
    return "passed"


def _pytest_file(case: ET.Element) -> str:
    """The test's file: the `file` attribute (junit_family=xunit1), else from the classname."""
    if case.get("file"):
        return case.get("file", "")
    parts = [p for p in case.get("classname", "").split(".") if p]
    for end in range(len(parts), 0, -1):
        candidate = Path(*parts[:end]).with_suffix(".py")
        if (ROOT / candidate).is_file():
            return candidate.as_posix()
    return "/".join(parts) or "?"


def read_report(path: Path) -> Suite:
    """One JUnit XML file, from pytest or from Vitest (its files are relative to frontend/)."""
    tree = ET.parse(path)
    top = tree.getroot()
    suites = [top] if top.tag == "testsuite" else list(top.iter("testsuite"))
    vitest = top.get("name") == "vitest tests" or any(
        s.get("name", "").endswith((".ts", ".js")) for s in suites
    )
    name = path.stem.removeprefix("junit-").replace("-", " ")
    cases: list[Case] = []
    wall = 0.0
    for suite in suites:
        wall = max(wall, float(suite.get("time") or 0)) if not vitest else wall
        for case in suite.iter("testcase"):
            if vitest:
                file = "frontend/" + (case.get("classname") or suite.get("name") or "?")
            else:
                file = _pytest_file(case)
            seconds = float(case.get("time") or 0)
            cases.append(Case(name, file, case.get("name", "?"), seconds, _outcome(case)))
    if vitest:  # its report has the tests' times only: the wall time is the phase's
        wall = float("nan")
    return Suite(name, wall, cases)


def _fmt(seconds: float) -> str:
    return "-" if seconds != seconds else f"{seconds:.1f}"  # NaN: not known


class Phase(NamedTuple):
    name: str
    seconds: float
    status: int
    within: str  # the phase it ran inside of, beside others ("" for none)


def read_phases(path: Path | None) -> list[Phase]:
    """scripts/timed's lines: name, seconds, exit status and (newer lines) the enclosing phase."""
    if path is None or not path.is_file():
        return []
    phases = []
    for line in path.read_text().splitlines():
        name, seconds, status, *within = line.split("\t")
        phases.append(Phase(name, float(seconds), int(status), within[0] if within else ""))
    return phases


def render(suites: list[Suite], phases: list[Phase] | None = None) -> str:
    cases = [c for s in suites for c in s.cases]
    lines = [
        "# Test durations",
        "",
        "Written by `make test` (`scripts/durations.py`, from pytest's and Vitest's JUnit",
        "reports); commit it with the change so the cost of a new test shows in review.",
        f"Last run: {datetime.now(UTC):%Y-%m-%d %H:%M} UTC, {os.cpu_count()} CPUs, load average"
        f" {os.getloadavg()[1]:.1f} over the last 5 minutes (other work on the machine slows"
        " every figure).",
        "A test's time is its setup, call and teardown: a fixture shared by a module or a",
        "worker is paid by the first test that uses it.",
        "",
        *_phase_lines(phases or []),
        "## Suites",
        "",
        "| suite | tests | failed | wall s | sum of test times s |",
        "|---|---:|---:|---:|---:|",
    ]
    for suite in suites:
        failed = sum(c.outcome in ("failed", "error") for c in suite.cases)
        total = sum(c.seconds for c in suite.cases)
        lines.append(
            f"| {suite.name} | {len(suite.cases)} | {failed} | {_fmt(suite.wall_s)} "
            f"| {_fmt(total)} |"
        )
    lines += [
        "",
        f"## The {SLOWEST} slowest tests",
        "",
        "| s | suite | test |",
        "|---:|---|---|",
    ]
    for case in sorted(cases, key=lambda c: -c.seconds)[:SLOWEST]:
        lines.append(f"| {_fmt(case.seconds)} | {case.suite} | `{case.test_id}` |")
    per_folder: dict[tuple[str, str], list[Case]] = defaultdict(list)
    for case in cases:
        per_folder[(case.suite, case.folder)].append(case)
    lines += [
        "",
        "## Time per folder",
        "",
        "| s | tests | suite | folder |",
        "|---:|---:|---|---|",
    ]
    for (suite_name, folder), members in sorted(
        per_folder.items(), key=lambda item: -sum(c.seconds for c in item[1])
    ):
        seconds = sum(c.seconds for c in members)
        lines.append(f"| {_fmt(seconds)} | {len(members)} | {suite_name} | {folder} |")
    return "\n".join(lines) + "\n"


def _phase_lines(phases: list[Phase]) -> list[str]:
    if not phases:
        return []
    lines = [
        "## Phases of `make test`",
        "",
        "A phase run inside another ran beside the others of it, on the same two cores.",
        "",
        "| phase | wall s | exit | inside |",
        "|---|---:|---:|---|",
    ]
    lines += [f"| {p.name} | {_fmt(p.seconds)} | {p.status} | {p.within} |" for p in phases]
    total = sum(p.seconds for p in phases if not p.within)
    return [*lines, "", f"Total: {_fmt(total)} s.", ""]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("reports", nargs="+", type=Path)
    parser.add_argument("--out", type=Path, default=ROOT / "tests" / "durations.md")
    parser.add_argument("--phases", type=Path, help="scripts/timed's file")
    parser.add_argument("--top", type=int, default=10, help="slowest tests to print")
    args = parser.parse_args(argv)
    missing = [str(p) for p in args.reports if not p.is_file()]
    if missing:  # a suite that could not run: the others are still reported
        print(f"durations: no report at {', '.join(missing)}", file=sys.stderr)
    suites = [read_report(p) for p in args.reports if p.is_file()]
    if not suites:
        return 1
    args.out.write_text(render(suites, read_phases(args.phases)))
    cases = sorted((c for s in suites for c in s.cases), key=lambda c: -c.seconds)
    print(f"slowest tests (the {SLOWEST} slowest, per folder, in {args.out}):")
    for case in cases[: args.top]:
        print(f"  {case.seconds:7.1f} s  {case.test_id}")
    for suite in suites:
        print(f"  {suite.name}: {len(suite.cases)} tests, {_fmt(suite.wall_s)} s wall")
    return 0


if __name__ == "__main__":
    sys.exit(main())
