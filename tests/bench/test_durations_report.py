"""scripts/durations.py: tests/durations.md from pytest's and Vitest's JUnit reports, and the
marking of the tests that start servers (tests/support/kinds.py), which `make check` skips."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

from tests.support import kinds

ROOT = Path(__file__).resolve().parents[2]

PYTEST_XML = """<?xml version="1.0" encoding="utf-8"?>
<testsuites><testsuite name="pytest" tests="3" time="42.5">
<testcase classname="tests.runs.test_a" name="test_slow" file="tests/runs/test_a.py" time="9.0"/>
<testcase classname="tests.runs.test_a" name="test_quick" file="tests/runs/test_a.py" time="1.0">
<failure message="boom"/></testcase>
<testcase classname="tests.chat.test_search.TestX" name="test_c" time="2.5"/>
</testsuite></testsuites>
"""
VITEST_XML = """<?xml version="1.0" encoding="UTF-8" ?>
<testsuites name="vitest tests" tests="1" failures="0" errors="0" time="0.5">
<testsuite name="tests/sse.test.ts" tests="1" time="0.5">
<testcase classname="tests/sse.test.ts" name="sse &gt; parses" time="0.5"></testcase>
</testsuite></testsuites>
"""


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("durations", ROOT / "scripts" / "durations.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["durations"] = module
    spec.loader.exec_module(module)
    return module


def test_the_report_lists_phases_slowest_tests_and_folders(tmp_path: Path) -> None:
    durations = _script()
    (tmp_path / "junit-pytest.xml").write_text(PYTEST_XML)
    (tmp_path / "junit-vitest.xml").write_text(VITEST_XML)
    (tmp_path / "phases.tsv").write_text("lint\t12.250\t0\npytest\t300.000\t1\n")
    out = tmp_path / "durations.md"
    reports = [str(tmp_path / "junit-pytest.xml"), str(tmp_path / "junit-vitest.xml")]
    args = ["--out", str(out), "--phases", str(tmp_path / "phases.tsv"), *reports]
    assert durations.main([*args, str(tmp_path / "junit-missing.xml")]) == 0
    text = out.read_text()
    assert "| lint | 12.2 | 0 |  |" in text and "| pytest | 300.0 | 1 |  |" in text
    assert "Total: 312.2 s." in text
    assert "| pytest | 3 | 1 | 42.5 | 12.5 |" in text  # 3 tests, 1 failed, wall, sum
    slowest = text.split("slowest tests")[1].split("## Time per folder")[0]
    order = [
        "test_a.py::test_slow",
        "test_search.py::test_c",
        "test_a.py::test_quick",
        "sse > parses",
    ]
    positions = [slowest.index(name) for name in order]
    assert positions == sorted(positions)
    assert "`tests/chat/test_search.py::test_c`" in slowest  # the file found from the classname
    assert "`frontend/tests/sse.test.ts::sse > parses`" in slowest
    folders = text.split("## Time per folder")[1]
    assert "| 10.0 | 2 | pytest | tests/runs |" in folders
    assert "| 0.5 | 1 | vitest | frontend/tests |" in folders


def test_phases_run_side_by_side_count_once_in_the_total(tmp_path: Path) -> None:
    durations = _script()
    (tmp_path / "junit-pytest.xml").write_text(PYTEST_XML)
    (tmp_path / "phases.tsv").write_text(
        "install\t60.000\t0\t\n"
        "lint\t7.000\t0\tside by side\n"
        "pytest\t400.000\t1\tside by side\n"
        "pytest e2e\t380.000\t0\tside by side\n"
        "side by side\t400.500\t1\t\n"
    )
    out = tmp_path / "durations.md"
    phases = ["--phases", str(tmp_path / "phases.tsv")]
    assert durations.main(["--out", str(out), *phases, str(tmp_path / "junit-pytest.xml")]) == 0
    text = out.read_text()
    assert "| pytest e2e | 380.0 | 0 | side by side |" in text
    assert "| side by side | 400.5 | 1 |  |" in text
    assert "Total: 460.5 s." in text  # install and the side-by-side block, not their insides


def test_no_report_at_all_is_an_error(tmp_path: Path) -> None:
    durations = _script()
    assert durations.main(["--out", str(tmp_path / "d.md"), str(tmp_path / "none.xml")]) == 1
    assert not (tmp_path / "d.md").exists()


def test_a_module_that_starts_a_process_or_server_counts_as_a_server_module() -> None:
    quick = ModuleType("tests.kinds_quick")
    quick.json = __import__("json")  # type: ignore[attr-defined]
    starter = ModuleType("tests.kinds_starter")
    starter.subprocess = __import__("subprocess")  # type: ignore[attr-defined]
    helper = ModuleType("tests.kinds_helper")

    def run() -> None: ...

    run.__module__ = starter.__name__
    helper.run = run  # type: ignore[attr-defined]
    for module in (quick, starter, helper):
        sys.modules[module.__name__] = module
    try:
        assert not kinds.starts_servers(quick.__name__)
        assert kinds.starts_servers(starter.__name__)
        assert kinds.starts_servers(helper.__name__)  # through a tests/ module it imports from
        assert kinds.starts_servers("tests.support.servers")
        assert not kinds.starts_servers("tests.support.sse")
    finally:
        for module in (quick, starter, helper):
            del sys.modules[module.__name__]
