"""hermes caches the images, sounds and files MCP tools return (its gateway prunes them every
hour; the bridge runs no gateway): the bridge sweeps those caches itself, files older than a
day, at start and after turns at most once an hour, and nothing else of hermes' home."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from agentchat.bridge.mcp.media import MEDIA_KEPT_S, MediaSweeper, sweep


def _file(path: Path, age_s: float) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"x")
    then = time.time() - age_s
    os.utime(path, (then, then), follow_symlinks=False)
    return path


def test_old_cached_media_go_and_nothing_else(tmp_path: Path) -> None:
    home, outside = tmp_path / "home", tmp_path / "outside"
    day = MEDIA_KEPT_S
    old = [
        _file(home / "cache" / "images" / "mcp_1.png", day + 60),
        _file(home / "cache" / "documents" / "report.pdf", day + 60),
        _file(home / "audio_cache" / "voice.ogg", day + 60),
    ]
    fresh = _file(home / "cache" / "images" / "mcp_2.png", 60)
    other = _file(home / "cache" / "models.json", day * 3)  # hermes' own cache: not ours
    target = _file(outside / "precious.txt", day * 3)
    link = home / "cache" / "images" / "link.png"
    link.symlink_to(target)
    os.utime(link, (0, 0), follow_symlinks=False)

    assert sweep(home) == 4
    assert not any(p.exists() for p in old) and not link.is_symlink()
    assert fresh.exists() and other.exists() and target.exists()


def test_the_sweeper_runs_at_most_once_an_hour(tmp_path: Path) -> None:
    sweeper = MediaSweeper(tmp_path, every_s=3600)
    _file(tmp_path / "cache" / "images" / "a.png", MEDIA_KEPT_S + 1)
    assert sweeper.maybe() == 1
    _file(tmp_path / "cache" / "images" / "b.png", MEDIA_KEPT_S + 1)
    assert sweeper.maybe() == 0  # swept a moment ago
    assert (tmp_path / "cache" / "images" / "b.png").exists()


def test_the_swept_folders_are_where_hermes_caches_them(tmp_path: Path) -> None:
    code = (
        "from gateway.platforms import base as b; "
        "print(b.get_image_cache_dir()); print(b.get_audio_cache_dir()); "
        "print(b.get_document_cache_dir())"
    )
    env = {**os.environ, "HERMES_HOME": str(tmp_path)}
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    ).stdout.split()
    for folder in out:
        _file(Path(folder) / "cached.bin", MEDIA_KEPT_S + 1)
    assert sweep(tmp_path) == 3
