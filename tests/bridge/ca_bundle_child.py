"""Child process of test_ca_bundles.py: one real bridge app (real hermes-agent) in this process,
SSL_CERT_FILE pointing at a copy of certifi's bundle, a new chat per turn through its routes;
prints, as JSON, how many times each turn loaded that bundle and how it ended. Between turns
the bundle is changed (still valid), then broken. A process of its own: hermes binds
HERMES_HOME at import.

    python -m tests.bridge.ca_bundle_child ROOT MODEL_URL
"""

from __future__ import annotations

import json
import os
import shutil
import ssl
import sys
import uuid
from pathlib import Path
from typing import Any

import certifi
from fastapi.testclient import TestClient

from agentchat.bridge.server.main import create_app
from agentchat.bridge.settings import BridgeSettings
from tests.bridge.support import model

SECRET = "ca-bundle-secret"
HEADERS = {"Authorization": f"Bearer {SECRET}"}
loads: list[str] = []


def count_loads(bundle: Path) -> None:
    """Count every SSL context made from `bundle`, whoever makes it."""
    real = ssl.create_default_context

    def counted(*args: Any, **kwargs: Any) -> ssl.SSLContext:
        if kwargs.get("cafile") == str(bundle):
            loads.append(str(bundle))
        return real(*args, **kwargs)

    ssl.create_default_context = counted  # type: ignore[assignment]


def turn(client: TestClient, model_url: str) -> dict[str, Any]:
    """One turn in a new chat: the bundle loads it made, and its run_end event."""
    before = len(loads)
    run_id = uuid.uuid4().hex
    body = {"runId": run_id, "sessionId": uuid.uuid4().hex, "userMessage": "#say hello",
            "model": model(model_url)}  # fmt: skip
    with client.stream("POST", "/run", json=body, headers=HEADERS) as response:
        response.raise_for_status()
        stream = b"".join(response.iter_bytes()).decode()
    client.delete(f"/runs/{run_id}", headers=HEADERS)
    lines = stream.splitlines()
    end = lines[lines.index("event: run_end") + 1]
    return {"loads": len(loads) - before, "end": end}


def main(root: Path, model_url: str) -> None:
    bundle = root / "bundle.pem"
    shutil.copyfile(certifi.where(), bundle)
    for name in ("HERMES_CA_BUNDLE", "REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE", "SSL_CERT_DIR"):
        os.environ.pop(name, None)
    os.environ["SSL_CERT_FILE"] = str(bundle)
    count_loads(bundle)
    settings = BridgeSettings(hermes_home=root / "hermes-home", secret=SECRET)
    with TestClient(create_app(settings)) as client:
        report = {"atStart": len(loads), "first": turn(client, model_url)}
        report["second"] = turn(client, model_url)
        with bundle.open("a") as changed:
            changed.write("\n# the same certificates, one line longer\n")
        report["changed"] = turn(client, model_url)
        report["afterChanged"] = turn(client, model_url)
        bundle.write_text("not a certificate\n" * 100)
        report["broken"] = turn(client, model_url)
    print(json.dumps(report))


if __name__ == "__main__":
    main(Path(sys.argv[1]), sys.argv[2])
