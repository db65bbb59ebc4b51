"""Issue 33: the local bridge's `DATA_DIR/logs/bridge.out` and `HERMES_HOME/logs/bridge.log`
grew for ever. With `serve` running, each is copied aside past AGENTCHAT_LOG_MAX_MB and
emptied in place (the bridge keeps writing to it), three copies kept."""

from __future__ import annotations

from pathlib import Path

from tests.reliability.helpers import wait_for
from tests.support.serve_process import spawn_serve

LIMIT = 100_000


def _grow(path: Path, byte: bytes) -> None:
    with path.open("ab") as out:
        out.write(byte * (3 * LIMIT))


def test_the_local_bridges_log_files_are_kept_small(tmp_path: Path) -> None:
    data = tmp_path / "data"
    env = {
        "AGENTCHAT_START_BRIDGE": "true",
        "AGENTCHAT_LOG_MAX_MB": str(LIMIT / 1024 / 1024),
        "AGENTCHAT_LOG_CHECK_S": "0.2",  # each of the 4 rounds waited for a look (5 s)
    }
    served = spawn_serve(tmp_path, "--data-dir", str(data), env=env)
    logs = [data / "logs" / "bridge.out", data / "hermes-home" / "logs" / "bridge.log"]
    try:
        served.wait_healthy()
        served.wait_until(lambda: all(p.exists() for p in logs), "to write its logs")
        for round_, byte in enumerate((b"a", b"b", b"c", b"d"), 1):
            for path in logs:
                _grow(path, byte)
            for path in logs:
                kept = [path.with_name(f"{path.name}.{n}") for n in range(1, min(round_, 3) + 1)]
                wait_for(
                    lambda path=path, kept=kept: (
                        path.stat().st_size < LIMIT and all(k.exists() for k in kept)
                    ),
                    lambda ok: ok,
                    timeout=30,
                    what=f"{path.name} to be copied aside",
                )
                assert path.with_name(f"{path.name}.1").read_bytes().endswith(byte * 100)
        for path in logs:
            assert not path.with_name(f"{path.name}.4").exists()
        assert served.healthy()
    finally:
        served.stop()
