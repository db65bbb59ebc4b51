"""A small error hierarchy rendered once as {"error": {"code", "message"}}."""

from __future__ import annotations

from typing import Any


class AppError(Exception):
    status_code = 400
    code = "bad_request"
    headers: dict[str, str] | None = None  # sent with the error (Retry-After, say)

    def __init__(self, message: str, *, code: str | None = None, **extra: Any) -> None:
        super().__init__(message)
        self.message = message
        if code:
            self.code = code
        self.extra = extra

    def body(self) -> dict[str, Any]:
        return {"error": {"code": self.code, "message": self.message, **self.extra}}


class NotFound(AppError):
    status_code = 404
    code = "not_found"


class Conflict(AppError):
    status_code = 409
    code = "conflict"


class Invalid(AppError):
    status_code = 422
    code = "invalid"


class TooManyRequests(AppError):
    """429, whatever ran out (run slots, the rate limit): one code for "too many"."""

    status_code = 429
    code = "too_many_requests"


class Unauthorized(AppError):
    status_code = 401
    code = "unauthorized"


class BadGateway(AppError):
    status_code = 502
    code = "bad_gateway"


class ServiceUnavailable(AppError):
    status_code = 503
    code = "unavailable"


class DatabaseUnavailable(ServiceUnavailable):
    """The database cannot be read or written (file gone, disk full, read-only, down)."""

    code = "database_unavailable"


class DatabaseBusy(ServiceUnavailable):
    """A lock the request needs stayed held (by another client) past the lock timeout."""

    code = "database_busy"


class PayloadTooLarge(AppError):
    """413: a body, a file or a person's stored files past a limit."""

    status_code = 413
    code = "payload_too_large"


class UnsupportedMediaType(AppError):
    status_code = 415
    code = "unsupported_type"
