from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest

from agentchat.core.settings import Settings
from agentchat.models.crypto import KeyCipher
from tests.models.fake_provider import build_app, serve


@dataclass
class FakeProvider:
    url: str
    seen: list[dict[str, Any]] = field(default_factory=list)


@pytest.fixture(scope="module")
def fake_provider() -> Iterator[FakeProvider]:
    seen: list[dict[str, Any]] = []
    with serve(build_app(seen)) as url:
        yield FakeProvider(url, seen)


@pytest.fixture
def cipher(settings: Settings) -> KeyCipher:
    return KeyCipher.for_settings(settings)


@pytest.fixture(autouse=True)
def _no_provider_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """The developer's own OPENAI_* variables must not leak into these tests."""
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "AGENTCHAT_MODEL"):
        monkeypatch.delenv(name, raising=False)
