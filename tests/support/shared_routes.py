"""The routes' built state shared by every app a test process makes (issue 29).

FastAPI 0.165 builds each included route's state for each app (its dependant, and a pydantic
TypeAdapter per body and response field) as the app's first requests are matched: 0.1-0.2 s of
CPU per app. Production makes one app per process; the tests make one per test, hundreds per
worker, all with the same routes (a profile of the late lane: 16 of its workers' 72 CPU-s).

`share_built_routes()` builds a route's state for the first app and hands it to the next ones
whose include is the same. What two apps' includes differ in is only their
`dependency_overrides_provider` (the app itself, read for `app.dependency_overrides`, which
this project never sets): an app with overrides set builds its own. A FastAPI without this
private structure is left as it is (`share_built_routes` answers False, and a test fails).
"""

from __future__ import annotations

import dataclasses
from typing import Any

from fastapi import routing

PER_APP = ("dependency_overrides_provider", "included_router")


def _include_key(context: Any) -> tuple[object, ...]:
    same = tuple(
        repr(getattr(context, f.name)) for f in dataclasses.fields(context) if f.name not in PER_APP
    )
    return (id(context.included_router), *same)


def share_built_routes() -> bool:
    """Reuse included routes' built state across the apps of this process (see above)."""
    included = getattr(routing, "_IncludedRouter", None)
    build = getattr(included, "_build_effective_context", None)
    if included is None or build is None or getattr(build, "shared", False):
        return build is not None
    built: dict[tuple[object, ...], tuple[object, Any]] = {}

    def shared(self: Any, route: Any) -> Any:
        context = self.include_context
        provider = getattr(context, "dependency_overrides_provider", None)
        if getattr(provider, "dependency_overrides", None) or not dataclasses.is_dataclass(context):
            return build(self, route)
        key = (id(route), *_include_key(context))
        found = built.get(key)
        if found is None:
            found = built[key] = (route, build(self, route))  # the route kept: its id stays
        return found[1]

    shared.shared = True  # type: ignore[attr-defined]
    included._build_effective_context = shared
    return True
