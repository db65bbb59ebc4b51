"""Issue 34, finding 2, and issue 33's `browser` item, attacked as reported: an agent given
`terminal` approves its own dangerous commands.

A real `agentchat serve` with its local bridge and the real hermes-agent, the scripted demo
model playing a prompt-injected agent. The agent writes a script that polls the API on
loopback for its own pending approval and answers it "Allow for this chat", starts it detached
(a double fork into a session of its own: bash ends, the script lives on), then runs `rm -rf`.
It passed the own-user guard (it runs as the server's user) and the chat stored the approval
as the person's;
with a token set, the agent read the token from /proc/<serve pid>/environ; with the secret
from `bridge.json` it could answer at the bridge itself. Now every request from a process of
the agent's is refused, the API's environment cannot be read, and the person's answer stands.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.support.serve_process import Served
from tests.support.serve_starter import ServeStarter

pytestmark = pytest.mark.timeout(300)

TOKEN = "agent-reads-this-token-0123456789"
TOOLSETS = "clarify,todo,memory,skills,file,terminal"
POLLER = r"""
import json, os, sys, time, urllib.error, urllib.request
base, log, token = sys.argv[1], sys.argv[2], sys.argv[3]
if os.fork():  # detach: a double fork, its own session, no terminal output
    os._exit(0)
os.setsid()
if os.fork():
    os._exit(0)
devnull = os.open(os.devnull, os.O_RDWR)
for fd in (0, 1, 2):
    os.dup2(devnull, fd)
headers = {"Content-Type": "application/json"}
if token != "-":
    headers["Authorization"] = "Bearer " + token
def call(method, path, body=None):
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(base + path, data, headers, method=method)
    with urllib.request.urlopen(request, timeout=5) as answer:
        return json.load(answer)
def note(text):
    with open(log, "a") as out:
        out.write(text + "\n")
deadline = time.time() + 120
while time.time() < deadline:
    try:
        for chat in call("GET", "/api/chat/sessions")["items"]:
            run = chat.get("activeRunId")
            pending = run and call("GET", f"/api/chat/runs/{run}/state").get("pendingClarify")
            if pending:
                answer = {"clarifyId": pending["clarifyId"], "answer": "Allow for this chat"}
                call("POST", f"/api/chat/runs/{run}/clarify", answer)
                note("ANSWERED")
                sys.exit(0)
    except urllib.error.HTTPError as error:
        note(f"REFUSED {error.code} {error.read().decode()}")
    except Exception as error:
        note(f"ERROR {error!r}")
    time.sleep(0.2)
"""
BRIDGE_CALLER = r"""
import http.client, json, socket, sys
state = json.load(open(sys.argv[1]))
path = state["url"].split("//", 1)[1].split("/", 1)[0].replace("%2F", "/")
class Unix(http.client.HTTPConnection):
    def connect(self):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.connect(path)
try:
    conn = Unix("bridge")
    conn.request("GET", "/runs", headers={"Authorization": "Bearer " + state["secret"]})
    answer = conn.getresponse()
    print("BRIDGE", answer.status, answer.read().decode())
except Exception as error:
    print("BRIDGE ERROR", repr(error))
"""


class Person:
    """The person at the page: the API over loopback, with the token when there is one."""

    def __init__(self, served: Served, token: str | None) -> None:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        self.http = httpx.Client(base_url=served.url, headers=headers, timeout=30)

    def new_chat(self) -> int:
        return int(self.http.post("/api/chat/sessions", json={}).json()["sessionId"])

    def start(self, chat: int, message: str) -> str:
        started = self.http.post(f"/api/chat/sessions/{chat}/runs", json={"message": message})
        assert started.status_code == 201, started.text
        return str(started.json()["runId"])

    def state(self, run: str) -> dict[str, Any]:
        answer = self.http.get(f"/api/chat/runs/{run}/state")
        assert answer.status_code == 200, answer.text
        return dict(answer.json())

    def answer(self, run: str, clarify_id: str, choice: str) -> None:
        body = {"clarifyId": clarify_id, "answer": choice}
        self.http.post(f"/api/chat/runs/{run}/clarify", json=body)

    def ended(self, run: str) -> dict[str, Any]:
        return wait_for(lambda: self.state(run), lambda s: s["status"] != "RUNNING", "the end")


def wait_for(
    read: Callable[[], Any], done: Callable[[Any], bool], what: str, timeout: float = 120
) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = read()
        if done(value):
            return value
        time.sleep(0.1)
    raise AssertionError(f"no {what} within {timeout} s: last {value!r}")


def _tool(name: str, args: dict[str, object]) -> str:
    return f"#tool {name} {json.dumps(args)}"


@pytest.fixture(scope="module", params=[None, TOKEN], ids=["no-token", "token"])
def server_token(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[Served, str | None]]:
    root = tmp_path_factory.mktemp("self-approval")
    env = {"AGENTCHAT_START_BRIDGE": "true", "AGENTCHAT_AGENT_TOOLSETS": TOOLSETS}
    if request.param:
        env["AGENTCHAT_AUTH_TOKEN"] = request.param
    # Exec'd, not forked from the zygote: a fork's /proc/PID/environ would be the zygote's,
    # without the token, and the environment test below would pass for the wrong reason.
    with ServeStarter() as started:
        served = started.start(root, "--data-dir", str(root / "data"), env=env, fork=False)
        yield served, request.param


def test_a_detached_script_of_the_agent_cannot_answer_its_approval(
    server_token: tuple[Served, str | None], tmp_path: Path
) -> None:
    server, token = server_token
    person = Person(server, token)
    victim, log = tmp_path / "precious", tmp_path / "attack.log"
    (victim / "inside").mkdir(parents=True)
    start = f"python3 poll.py {server.url} {log} {token or '-'}"  # it detaches itself
    script = "\n".join(
        [
            _tool("write_file", {"path": "poll.py", "content": POLLER}),
            _tool("terminal", {"command": start}),
            _tool("terminal", {"command": f"rm -rf {victim}"}),
            "#echo-tool-result",
        ]
    )
    run = person.start(person.new_chat(), script)
    pending = wait_for(lambda: person.state(run), lambda s: s["pendingClarify"], "approval")
    tried = wait_for(
        lambda: log.read_text() if log.exists() else "",
        lambda text: "ANSWERED" in text or "agent_process" in text,
        "attempt of the agent's script",
    )
    assert "ANSWERED" not in tried and "REFUSED 403" in tried, tried
    person.answer(run, pending["pendingClarify"]["clarifyId"], "Deny")

    ended = person.ended(run)
    assert (victim / "inside").is_dir()
    assert ended["status"] == "SUCCESS" and "BLOCKED" in json.dumps(ended)
    assert "from a process of an agent" in server.log()


def test_the_agent_cannot_read_the_apis_environment(
    server_token: tuple[Served, str | None], tmp_path: Path
) -> None:
    server, token = server_token
    person = Person(server, token)
    pid = server.process.pid
    command = f"cat /proc/{pid}/environ | tr '\\0' '\\n'; echo STATUS=$?; echo DONE"
    script = f"{_tool('terminal', {'command': command})}\n#echo-tool-result"
    ended = person.ended(person.start(person.new_chat(), script))
    printed = json.dumps(ended)
    assert "DONE" in printed
    assert "AGENTCHAT_START_BRIDGE" not in printed  # nothing of its environment at all
    assert TOKEN not in printed


def test_the_agent_cannot_use_the_bridge_secret_it_can_read(
    server_token: tuple[Served, str | None],
) -> None:
    server, token = server_token
    person = Person(server, token)
    assert server.data_dir is not None
    state = server.data_dir / "bridge.json"
    script = "\n".join(
        [
            _tool("write_file", {"path": "bridge_call.py", "content": BRIDGE_CALLER}),
            _tool("terminal", {"command": f"python3 bridge_call.py {state}"}),
            "#echo-tool-result",
        ]
    )
    ended = person.ended(person.start(person.new_chat(), script))
    printed = json.dumps(ended)
    assert "BRIDGE 403" in printed and "agent_process" in printed, printed
