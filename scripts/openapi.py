"""Write the API's OpenAPI document (JSON) without starting a server.

    python scripts/openapi.py [OUTPUT]     # stdout when OUTPUT is left out

`make api-types` feeds it to openapi-typescript (frontend/src/api/openapi.d.ts); `make lint`
regenerates into a temporary file and fails when the committed types differ.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from agentchat.app import create_app
from agentchat.core.settings import Settings


def openapi_document() -> dict[str, Any]:
    """The document FastAPI serves at /openapi.json, for a default local configuration."""
    # An in-memory database and a loopback host: the document does not depend on either, and
    # nothing is written or connected to.
    settings = Settings(database_url="sqlite://", host="127.0.0.1")
    return create_app(settings).openapi()


def main(argv: list[str]) -> int:
    text = json.dumps(openapi_document(), indent=2, ensure_ascii=False) + "\n"
    if len(argv) > 1:
        Path(argv[1]).write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
