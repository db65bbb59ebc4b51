"""Issue 34 item 11: a memory save that fails (a full disk, a file in the way) left an empty
`.mem_*.tmp` behind in `memories/`, one more each try, and answered 500. Now nothing is left,
the old memory stays as it was, and the error says the memory was not saved (503)."""

from __future__ import annotations

import errno
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from agentchat.bridge.hermes.memory_files import MemoryFiles
from agentchat.protocol.bridge_api import MemoryUpdate
from agentchat.protocol.errors import ServiceUnavailable


@pytest.fixture
def full_disk(tmp_path: Path) -> Iterator[Path]:
    """A 1 MiB tmpfs (root only), filled up to the last byte, as a hermes home."""
    disk = tmp_path / "disk"
    disk.mkdir()
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(disk)], capture_output=True
    )
    if mounted.returncode != 0:
        pytest.skip("cannot mount a tmpfs here: needs root")
    try:
        MemoryFiles(disk, 1000, 1000).write(MemoryUpdate(memory="kept"))
        with (disk / "filler").open("wb", buffering=0) as out:
            chunk = 1 << 16
            while chunk:
                try:
                    out.write(b"\0" * chunk)
                except OSError as exc:
                    assert exc.errno == errno.ENOSPC
                    chunk //= 2
        yield disk
    finally:
        subprocess.run(["umount", "-l", str(disk)], check=True)


def _leftovers(home: Path) -> list[str]:
    return sorted(p.name for p in (home / "memories").iterdir() if p.name.startswith("."))


def test_a_save_on_a_full_disk_leaves_no_temporary_file(full_disk: Path) -> None:
    files = MemoryFiles(full_disk, 100_000, 1000)
    for _ in range(3):
        with pytest.raises(ServiceUnavailable) as refused:
            files.write(MemoryUpdate(memory="new " * 5000))
        assert refused.value.code == "memory_not_saved"
        assert "No space left" in refused.value.message
    assert _leftovers(full_disk) == []
    assert files.read().memory.content == "kept"


def test_a_save_blocked_by_a_folder_in_the_way_leaves_no_temporary_file(tmp_path: Path) -> None:
    files = MemoryFiles(tmp_path, 1000, 1000)
    (tmp_path / "memories" / "USER.md").mkdir(parents=True)
    with pytest.raises(ServiceUnavailable):
        files.write(MemoryUpdate(user="me"))
    assert _leftovers(tmp_path) == []
