"""An operator's usual mistakes in the settings of `agentchat serve`: a value that is not a
number, out of range, a database or Redis URL of an unknown kind, a model-host network that
is no network, a data folder that is a file or not this user's to write, a port already taken.

Each is refused before anything starts (no database touched, no bridge left running) with one
line that names the setting and what is wrong, and exit code 2. Before, most printed a rich
traceback of 50 to 90 lines and exited 1; some started and failed later (the port: after the
migration and the bridge start; a deny entry `10.0.0.0/33` denied nothing at all)."""

from __future__ import annotations

import os
import shutil
import socket
import sys
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from agentchat.local_stack import free_port
from tests.support.databases import (
    MY_SERVER,
    PG_SERVER,
    drop_database,
    fresh_database_url,
    worker_tag,
)
from tests.support.serve_process import Served
from tests.support.serve_starter import ServeStarter

OTHER_UID = 65534  # nobody


def _refused_in_one_line(served: Served) -> str:
    assert served.wait_exit() == 2, served.log()
    lines = served.log().strip().splitlines()
    assert len(lines) == 1, lines
    assert lines[0].startswith("agentchat serve: "), lines
    return lines[0]


BAD_VALUES = [
    ("AGENTCHAT_PORT", "abc", "integer"),
    ("AGENTCHAT_PORT", "70000", "65535"),
    ("AGENTCHAT_PORT", "-5", "greater than or equal to 1"),
    ("AGENTCHAT_MAX_ACTIVE_RUNS", "0", "greater than or equal to 1"),
    ("AGENTCHAT_MAX_ACTIVE_RUNS", "five", "integer"),
    ("AGENTCHAT_MAX_BODY_BYTES", "-1", "greater than or equal to 1"),
    ("AGENTCHAT_SHUTDOWN_GRACE_S", "ten", "number"),
    ("AGENTCHAT_MIGRATE", "maybe", "boolean"),
    ("AGENTCHAT_DATABASE_URL", "not-a-url", "not a database URL"),
    ("AGENTCHAT_DATABASE_URL", "oracle://scott@db/orcl", "unknown kind of database"),
    ("AGENTCHAT_DATABASE_URL", "mysql+mysqldb://root@127.0.0.1/x", "not installed"),
    ("AGENTCHAT_DATABASE_URL", "mysql+pymysql://root@127.0.0.1/x?charset=utf8", "utf8mb4"),
    ("AGENTCHAT_REDIS_URL", "http://127.0.0.1:6379", "redis://"),
    ("AGENTCHAT_REDIS_URL", "127.0.0.1:6379", "redis://"),
    ("AGENTCHAT_BRIDGE_URL", "localhost:8200", "http://"),
    ("AGENTCHAT_BRIDGE_URL", "http://10.0.0.5:8201,10.0.0.6:8201", "http://"),
    ("AGENTCHAT_MODEL_HOSTS_DENY", "10.0.0.0/33", "10.0.0.0/33"),
    ("AGENTCHAT_MODEL_HOSTS_ALLOW", "api.openai.com,192.168.1.0/", "192.168.1.0/"),
    ("AGENTCHAT_AGENT_TOOLSETS", "clarify,wbe,memory", "wbe (did you mean web?)"),
]


@pytest.mark.parametrize(
    ("name", "value", "says"), BAD_VALUES, ids=[f"{n[10:]}={v}" for n, v, _ in BAD_VALUES]
)
def test_a_bad_value_is_refused_in_one_line_before_anything_starts(
    tmp_path: Path, served: ServeStarter, name: str, value: str, says: str
) -> None:
    data_dir = tmp_path / "data"
    env = {name: value, "AGENTCHAT_START_BRIDGE": "true"}
    if name != "AGENTCHAT_PORT":
        env["AGENTCHAT_PORT"] = str(free_port())
    served.spawn(tmp_path, "--data-dir", str(data_dir), env=env)
    line = _refused_in_one_line(served[0])
    assert name in line and says in line, line
    assert not data_dir.exists()  # nothing was created, migrated or started


S3 = {"AGENTCHAT_ATTACHMENT_STORE": "s3"}
BAD_STORES = [
    ({"AGENTCHAT_ATTACHMENT_STORE": "disk"}, "ATTACHMENT_STORE", "'database' or 's3'"),
    (S3, "S3_BUCKET", "required with AGENTCHAT_ATTACHMENT_STORE=s3"),
    (
        {**S3, "AGENTCHAT_S3_BUCKET": "b", "AGENTCHAT_S3_ENDPOINT_URL": "minio:9000"},
        "S3_ENDPOINT_URL",
        "not an http(s) URL",
    ),
    (
        {**S3, "AGENTCHAT_S3_BUCKET": "b", "AGENTCHAT_S3_ACCESS_KEY_ID": "key"},
        "S3_SECRET_ACCESS_KEY",
        "required with AGENTCHAT_S3_ACCESS_KEY_ID",
    ),
]


@pytest.mark.parametrize(("env", "name", "says"), BAD_STORES, ids=[n for _, n, _ in BAD_STORES])
def test_an_object_store_without_what_it_needs_is_refused_in_one_line(
    tmp_path: Path, served: ServeStarter, env: dict[str, str], name: str, says: str
) -> None:
    data_dir = tmp_path / "data"
    env = {**env, "AGENTCHAT_PORT": str(free_port()), "AGENTCHAT_START_BRIDGE": "true"}
    served.spawn(tmp_path, "--data-dir", str(data_dir), env=env)
    line = _refused_in_one_line(served[0])
    assert f"AGENTCHAT_{name}" in line and says in line, line
    assert not data_dir.exists()


def test_a_bad_flag_is_named_as_the_flag_and_its_password_is_not_shown(
    tmp_path: Path, served: ServeStarter
) -> None:
    url = "postgres+nodriver://agentchat:hidden-pw@127.0.0.1/db"
    served.spawn(tmp_path, "--database-url", url)
    line = _refused_in_one_line(served[0])
    assert line.startswith("agentchat serve: --database-url: "), line
    assert "hidden-pw" not in line


@pytest.fixture
def plain_urls(tmp_path: Path) -> Iterator[dict[str, str]]:
    """A fresh PostgreSQL schema and MariaDB database, as URLs without a driver name."""
    tag = f"plain_{worker_tag()}_{uuid.uuid4().hex[:6]}"
    pg = fresh_database_url("postgresql", tmp_path, tag=tag, migrate=False)
    my = fresh_database_url("mariadb", tmp_path, tag=tag, migrate=False)
    yield {
        "postgres": pg.replace(PG_SERVER.split("://")[0], "postgres", 1),
        "postgresql": pg.replace(PG_SERVER.split("://")[0], "postgresql", 1),
        "mysql": my.replace(MY_SERVER.split("://")[0], "mysql", 1),
    }
    drop_database("postgresql", tag)
    drop_database("mariadb", tag)


@pytest.mark.parametrize("scheme", ["postgres", "postgresql", "mysql"])
def test_a_database_url_without_a_driver_name_uses_the_installed_driver(
    tmp_path: Path, served: ServeStarter, plain_urls: dict[str, str], scheme: str
) -> None:
    """`postgres://`, `postgresql://` and `mysql://` (what hosting panels print) name drivers
    that are not installed (psycopg2, mysqlclient): it printed a traceback and exited 1."""
    url = plain_urls[scheme]
    served.spawn(tmp_path, "--database-url", url)
    served[0].wait_healthy()
    assert "Traceback" not in served[0].log()


# -- the data folder ------------------------------------------------------------------------


@pytest.fixture
def open_dir() -> Iterator[Path]:
    """A folder every user may enter (pytest's tmp_path is 0700: no other user gets in)."""
    folder = Path(tempfile.mkdtemp(prefix="agentchat-datadir-"))
    folder.chmod(0o755)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def _as_other_user() -> list[str]:
    """The `agentchat` command run as another user (this test runs as root) or as this one."""
    base = [sys.executable, "-m", "agentchat.cli"]
    if os.geteuid() != 0:
        return base
    drop = f"--reuid={OTHER_UID}", f"--regid={OTHER_UID}", "--clear-groups"
    return ["setpriv", *drop, *base]


def test_a_data_folder_that_is_a_file_is_refused_in_one_line(
    tmp_path: Path, served: ServeStarter
) -> None:
    data_file = tmp_path / "data"
    data_file.write_text("not a folder")
    served.spawn(tmp_path, "--data-dir", str(data_file))
    line = _refused_in_one_line(served[0])
    assert "--data-dir" in line and "not a folder" in line, line


@pytest.mark.parametrize("case", ["read-only parent", "another user's folder"])
def test_a_data_folder_this_user_cannot_write_is_refused_in_one_line(
    open_dir: Path, served: ServeStarter, case: str
) -> None:
    """It printed a traceback (PermissionError) or "cannot reach the database ... unable to
    open database file", which sent the operator looking at the database."""
    if case == "read-only parent":
        open_dir.joinpath("ro").mkdir(mode=0o555)
        data_dir = open_dir / "ro" / "data"
    else:
        data_dir = open_dir / "root-owned"
        data_dir.mkdir(mode=0o755)
        if os.geteuid() != 0:
            data_dir.chmod(0o555)
    served.spawn(open_dir, env={"AGENTCHAT_DATA_DIR": str(data_dir)}, command=_as_other_user())
    line = _refused_in_one_line(served[0])
    assert "AGENTCHAT_DATA_DIR" in line and str(data_dir) in line, line
    assert "cannot" in line and "database" not in line, line


# -- the port --------------------------------------------------------------------------------


def test_a_port_in_use_is_refused_in_one_line_before_the_bridge_starts(
    tmp_path: Path, served: ServeStarter
) -> None:
    """It migrated the database, started a bridge (left running: it outlives the API), logged
    `address already in use` among ten lines and exited 3."""
    data_dir = tmp_path / "data"
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        env = {"AGENTCHAT_START_BRIDGE": "true"}
        served.spawn(tmp_path, "--data-dir", str(data_dir), "--port", str(port), env=env)
        line = _refused_in_one_line(served[0])
    assert f"127.0.0.1:{port}" in line and "in use" in line and "--port" in line, line
    assert not (data_dir / "bridge.json").exists()
    assert not (data_dir / "agentchat.db").exists()
