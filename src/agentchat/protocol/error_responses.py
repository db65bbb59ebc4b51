"""Render every error as {"error": {"code", "message"}} with the right status.

Shared by the API and the bridge, so it loads no database code: the API adds its own handlers
on top (see `agentchat.web.error_handlers`)."""

from __future__ import annotations

import logging
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic.alias_generators import to_camel
from starlette.exceptions import HTTPException as StarletteHTTPException

from agentchat.protocol.errors import AppError

log = logging.getLogger(__name__)

_HTTP_CODES = {
    400: "bad_request",
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    406: "not_acceptable",
    409: "conflict",
    413: "payload_too_large",
    415: "unsupported_media_type",
    429: "too_many_requests",
}


_LIMITS = ("max_length", "min_length", "ge", "le", "gt", "lt")
_VALUE_ERROR = "Value error, "  # pydantic's prefix to a plain ValueError's words


def _location(err: dict[str, Any]) -> str:
    """The field as the request names it (camelCase: a default checked on its own field is
    located by its Python name)."""
    parts = [p for p in err.get("loc", ()) if p not in ("body", "query", "path")]
    return ".".join(to_camel(p) if isinstance(p, str) else str(p) for p in parts)


def _words(err: dict[str, Any]) -> str:
    return str(err.get("msg", "")).removeprefix(_VALUE_ERROR)


def _describe(errors: list[dict[str, Any]]) -> str:
    parts = []
    for err in errors[:5]:
        loc = _location(err)
        parts.append(f"{loc}: {_words(err)}" if loc else _words(err))
    return "; ".join(parts) or "invalid request"


def _fields(errors: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The refused fields: where, a stable code, the words, and the bound missed if any."""
    fields = []
    for err in errors:
        field = _location(err)
        if not field:
            continue
        entry: dict[str, Any] = {"field": field, "code": err.get("type"), "message": _words(err)}
        ctx = err.get("ctx") or {}
        limit = next((ctx[k] for k in _LIMITS if isinstance(ctx.get(k), int | float)), None)
        if limit is not None:
            entry["limit"] = limit
        fields.append(entry)
    return fields


def unexpected_error(exc: Exception) -> JSONResponse:
    log.exception("unhandled error", exc_info=exc)
    body = {"error": {"code": "internal", "message": "internal server error"}}
    return JSONResponse(body, status_code=500)


def install_error_handlers(app: FastAPI) -> None:
    @app.exception_handler(AppError)
    async def _app_error(_: Request, exc: AppError) -> JSONResponse:
        return JSONResponse(exc.body(), status_code=exc.status_code, headers=exc.headers)

    @app.exception_handler(RequestValidationError)
    async def _validation(_: Request, exc: RequestValidationError) -> JSONResponse:
        errors = [dict(e) for e in exc.errors()]
        detail = {"code": "invalid", "message": _describe(errors), "fields": _fields(errors)}
        return JSONResponse({"error": detail}, status_code=422)

    @app.exception_handler(StarletteHTTPException)
    async def _http(_: Request, exc: StarletteHTTPException) -> JSONResponse:
        code = _HTTP_CODES.get(exc.status_code, "error")
        body = {"error": {"code": code, "message": str(exc.detail)}}
        return JSONResponse(body, status_code=exc.status_code, headers=exc.headers)

    @app.exception_handler(Exception)
    async def _unexpected(_: Request, exc: Exception) -> JSONResponse:
        return unexpected_error(exc)
