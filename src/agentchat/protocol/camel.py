"""Base for every JSON schema: camelCase on the wire, snake_case in Python."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict
from pydantic.alias_generators import to_camel


class CamelModel(BaseModel):
    model_config = ConfigDict(
        alias_generator=to_camel,
        populate_by_name=True,
        from_attributes=True,
        # A response field with a default is always sent: required in the OpenAPI document.
        json_schema_serialization_defaults_required=True,
    )


class FieldError(BaseModel):
    """One refused field of a request body, for a form to show beside it."""

    field: str  # as the request named it: baseUrl, contextLength
    code: str  # a stable word for the page's own text: empty, url_scheme, string_too_long...
    message: str  # the same in English
    limit: int | float | None = None  # the bound a too long or out-of-range value missed


class ErrorDetail(BaseModel):
    code: str
    message: str
    fields: list[FieldError] | None = None  # 422: each refused field, when they are known


class ErrorBody(BaseModel):
    error: ErrorDetail


ERROR_RESPONSES: dict[int | str, dict[str, object]] = {
    404: {"model": ErrorBody, "description": "Not found"},
    409: {"model": ErrorBody, "description": "Conflict"},
    422: {"model": ErrorBody, "description": "Invalid input"},
}
