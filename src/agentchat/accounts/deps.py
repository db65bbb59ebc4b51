"""Dependencies of the accounts routes: the gate, where a request comes from, and a short
transaction of its own for work whose outcome must be stored even when the request fails
(a wrong password is counted) or must be committed before the gate is told (ended sessions)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, TypeVar

from fastapi import Depends, Request
from sqlalchemy.orm import Session
from starlette.concurrency import run_in_threadpool

from agentchat.accounts.audit import Origin
from agentchat.accounts.gate import AccountsGate
from agentchat.accounts.sign_in_sessions import client_of
from agentchat.core.database import Database

T = TypeVar("T")


def get_gate(request: Request) -> AccountsGate:
    gate: AccountsGate = request.app.state.accounts
    return gate


def get_origin(request: Request) -> Origin:
    agent = request.headers.get("user-agent")
    return Origin(ip=client_of(request.scope), user_agent=agent[:255] if agent else None)


async def transact(database: Database, work: Callable[[Session], T]) -> T:
    """`work` in one transaction on a worker thread, committed before this returns."""

    def run() -> T:
        with database.session() as db:
            return work(db)

    return await run_in_threadpool(run)


GateDep = Annotated[AccountsGate, Depends(get_gate)]
OriginDep = Annotated[Origin, Depends(get_origin)]
