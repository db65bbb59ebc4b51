"""Hatch build hook: the sdist and the wheel carry the built page (src/agentchat/static/).

Building needs no Node when the page is built; without it the build stops with one clear
message instead of shipping a package whose page says "not built". Editable installs (the
development checkout, which builds the page later) are not checked."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

STATIC = Path("src/agentchat/static")
_ASSET = re.compile(r"""(?:src|href)="/(assets/[^"]+)\"""")


class PageBuildHook(BuildHookInterface):  # type: ignore[type-arg]
    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        if version == "editable":
            return
        static = Path(self.root) / STATIC
        index = static / "index.html"
        if not index.is_file():
            raise RuntimeError(
                f"the page is not built ({STATIC}/index.html is missing): "
                "run `make frontend` (needs Node 20) before building the package"
            )
        missing = [a for a in _ASSET.findall(index.read_text()) if not (static / a).is_file()]
        if missing:
            raise RuntimeError(
                f"the built page is incomplete ({', '.join(missing)} missing): "
                "run `make frontend` again before building the package"
            )
