"""Attachments on the bridge wire: the files a turn needs in its chat's workspace, and how a
question points at an image it carries.

Before a turn the API asks its bridge which of the turn's files it lacks (`POST
/sessions/{id}/files/missing`) and streams those (`PUT /sessions/{id}/files`); the bridge
keeps them in the chat's workspace, checks each against its SHA-256, and refuses a turn whose
files are not all there. An image the model sees is an `image_url` part whose URL is
`agentchat-file:<path>`: the bridge gives hermes the file's bytes as a data URL, and turns
them back into that reference in the messages it returns, so no stored history holds them."""

from __future__ import annotations

import re

from pydantic import Field, field_validator

from agentchat.protocol.camel import CamelModel

FILE_URL = "agentchat-file:"
FOLDER = "attachments"
# A workspace path the API may name: attachments/<id>-<safe name>, one level, no dot-start.
_PATH = re.compile(r"attachments/[0-9]+-[^/\\\x00]{1,220}")


class WorkspaceFile(CamelModel):
    path: str = Field(max_length=260)
    digest: str = Field(pattern=r"^[0-9a-f]{64}$")
    size: int = Field(ge=0)
    media_type: str = Field(default="application/octet-stream", max_length=100)

    @field_validator("path")
    @classmethod
    def _inside(cls, value: str) -> str:
        if not _PATH.fullmatch(value) or value.split("/", 1)[1].startswith("."):
            raise ValueError("must be attachments/<id>-<name>")
        return value


class FileList(CamelModel):
    files: list[WorkspaceFile] = Field(default_factory=list, max_length=2000)


class MissingFiles(CamelModel):
    missing: list[str]


def file_url(path: str) -> str:
    return FILE_URL + path
