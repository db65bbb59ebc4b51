"""The API's error handlers: the shared ones, values the database cannot hold, a database that
cannot be used (503), and 500s that carry the security headers."""

from __future__ import annotations

import logging

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse
from sqlalchemy.exc import DataError, OperationalError

from agentchat.core.database import is_lock_timeout
from agentchat.events.redis_health import REDIS_DOWN
from agentchat.protocol.error_responses import install_error_handlers, unexpected_error
from agentchat.web.headers import with_security_headers

log = logging.getLogger(__name__)


def install_api_error_handlers(app: FastAPI) -> None:
    install_error_handlers(app)

    @app.exception_handler(OverflowError)
    @app.exception_handler(DataError)
    async def _out_of_range(_: Request, exc: Exception) -> JSONResponse:
        # An id or value the database cannot hold (SQLite raises OverflowError, others DataError).
        log.info("value out of range for the database: %s", exc)
        message = "a number or value in the request is out of range"
        return JSONResponse({"error": {"code": "invalid", "message": message}}, status_code=422)

    @app.exception_handler(OperationalError)
    async def _unavailable(_: Request, exc: OperationalError) -> JSONResponse:
        if is_lock_timeout(exc):  # another client holds a lock past the lock timeout
            log.warning("database lock wait timed out: %s", exc.orig)
            message = "the database is busy (a lock held by another client); try again"
            body = {"error": {"code": "database_busy", "message": message}}
            return JSONResponse(body, status_code=503, headers={"Retry-After": "5"})
        # Disk full, read-only file, I/O error, server gone: the request was fine.
        log.error("database error: %s", exc.orig)
        message = f"the database cannot be used right now: {exc.orig}"
        body = {"error": {"code": "database_unavailable", "message": message}}
        return JSONResponse(body, status_code=503)

    async def _bus_unavailable(_: Request, exc: Exception) -> JSONResponse:
        # Redis (the event bus of several API processes) does not answer: nothing is lost.
        log.error("the event bus does not answer: %s", exc)
        message = "the event bus (Redis) does not answer right now; try again in a moment"
        body = {"error": {"code": "bus_unavailable", "message": message}}
        return JSONResponse(body, status_code=503, headers={"Retry-After": "5"})

    for error in REDIS_DOWN:
        app.add_exception_handler(error, _bus_unavailable)

    @app.exception_handler(Exception)
    async def _unexpected(_: Request, exc: Exception) -> JSONResponse:
        # Rendered outside every middleware (Starlette's ServerErrorMiddleware), so the
        # security headers are added here.
        response = unexpected_error(exc)
        response.raw_headers = with_security_headers(response.raw_headers)
        return response
