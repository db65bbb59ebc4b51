"""A database password given in the URL's query (`?password=…`, which psycopg and PyMySQL
take as well as `user:password@`; `?sslpassword=` unlocks a client key).

When the database cannot be reached at start, `serve` and `migrate` say so in one line naming
the URL. The line hid only the `user:password@` part: the query's password went to the
operator's logs (a service manager's journal keeps them).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from agentchat.local_stack import free_port
from tests.support.serve_process import spawn_serve

PASSWORD = "db-pw-81f2c3a94d"


@pytest.mark.parametrize(
    ("driver", "name"),
    [
        ("postgresql+psycopg", "password"),
        ("postgresql+psycopg", "sslpassword"),
        ("mysql+pymysql", "password"),
    ],
)
def test_serve_does_not_print_a_password_from_the_query(
    tmp_path: Path, driver: str, name: str
) -> None:
    nobody_listens = free_port()
    url = f"{driver}://agentchat@127.0.0.1:{nobody_listens}/agentchat?{name}={PASSWORD}"
    served = spawn_serve(tmp_path, "--data-dir", str(tmp_path / "data"), "--database-url", url)
    try:
        assert served.wait_exit() == 2
    finally:
        served.stop()
    log = served.log()
    assert "cannot reach the database" in log, log
    assert PASSWORD not in log
