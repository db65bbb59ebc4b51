"""A new chat's agent does not load the CA bundle again (bridge/hermes/ca_contexts.py): hermes
checked and loaded it for every agent it built, most of a chat's first-turn CPU in the bridge.
A changed bundle is loaded again, a broken one still fails the turn."""

from __future__ import annotations

from pathlib import Path

from tests.bridge.child import run_child


def test_a_new_chat_reuses_the_loaded_bundle_until_the_file_changes(
    tmp_path: Path, scripted_model: str
) -> None:
    report = run_child("tests.bridge.ca_bundle_child", tmp_path, str(tmp_path), scripted_model)
    assert report["atStart"] >= 1  # the warm-up agent loaded it
    for name in ("first", "second", "changed", "afterChanged"):
        assert '"success"' in report[name]["end"].lower(), (name, report[name])
    # the first turn may load it once more: hermes asks a loopback model's server for its
    # metadata (prices) through a client of its own, once per model address
    assert report["second"]["loads"] == 0
    assert report["changed"]["loads"] >= 1
    assert report["afterChanged"]["loads"] == 0
    assert report["broken"]["loads"] >= 1
    assert '"success"' not in report["broken"]["end"].lower()
    assert "CA bundle" in report["broken"]["end"], report["broken"]
