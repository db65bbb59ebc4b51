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


class ErrorDetail(BaseModel):
    code: str
    message: str


class ErrorBody(BaseModel):
    error: ErrorDetail


ERROR_RESPONSES: dict[int | str, dict[str, object]] = {
    404: {"model": ErrorBody, "description": "Not found"},
    409: {"model": ErrorBody, "description": "Conflict"},
    422: {"model": ErrorBody, "description": "Invalid input"},
}
