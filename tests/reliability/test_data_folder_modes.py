"""Issue 34 item 9: a data folder that already existed kept its permissions. Made by hand
(`mkdir data`, 0755) or by an older version, it let every user of the machine read into it:
`skills/`, `logs/`, `hermes-home/workspaces/` stayed 0755, `demo-model.port` and the migration
lock 0644. `agentchat serve` now makes the folder and what it keeps there private (0700
folders, 0600 files) at every start; a shared folder that is not its own (sticky, like /tmp)
keeps its mode and the other files in it."""

from __future__ import annotations

import stat
from pathlib import Path

from tests.support.serve_process import spawn_serve

LOOSE_DIRS = ("", "skills", "logs", "hermes-home", "hermes-home/workspaces")
LOOSE_FILES = ("demo-model.port", "agentchat.db.migrate-lock")


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def _start(tmp_path: Path, data: Path) -> None:
    served = spawn_serve(tmp_path, "--data-dir", str(data))
    try:
        served.wait_healthy()
    finally:
        served.stop()


def test_an_existing_loose_data_folder_is_made_private(tmp_path: Path) -> None:
    data = tmp_path / "data"
    for name in LOOSE_DIRS:
        (data / name).mkdir(parents=True, exist_ok=True)
        (data / name).chmod(0o755)
    for name in LOOSE_FILES:
        (data / name).write_text("x")
        (data / name).chmod(0o644)
    _start(tmp_path, data)
    modes = {name: oct(_mode(data / name)) for name in LOOSE_DIRS + LOOSE_FILES}
    assert modes == {
        **{name: oct(0o700) for name in LOOSE_DIRS},
        **{name: oct(0o600) for name in LOOSE_FILES},
    }


def test_a_shared_folder_keeps_its_mode_and_the_files_of_others(tmp_path: Path) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o1777)
    other = shared / "someone-elses.txt"
    other.write_text("x")
    other.chmod(0o644)
    _start(tmp_path, shared)
    assert _mode(shared) == 0o1777 and _mode(other) == 0o644
    assert _mode(shared / "agentchat.db") == 0o600 and _mode(shared / "skills") == 0o700
