"""A deleted chat's agent lives on in the bridges (its pooled agent, its scratch folder with
the files it wrote, per-session state) until they are told. The chat domain does not drive
bridges (runs/ does), so the wiring hands it the callable that tells them
(`app.state.forget_agent`); without one (the chat domain served alone) nobody is told."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Annotated

from fastapi import Depends, Request

ForgetAgent = Callable[[str], Awaitable[None]]


def get_forget_agent(request: Request) -> ForgetAgent | None:
    forget: ForgetAgent | None = getattr(request.app.state, "forget_agent", None)
    return forget


ForgetAgentDep = Annotated[ForgetAgent | None, Depends(get_forget_agent)]
