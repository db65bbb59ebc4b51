"""A chat exported with its files: a zip of the Markdown and JSON exports and every attachment
of the exported messages under `files/<id>-<name>` (where the Markdown links point). Written to
a temporary file a chunk at a time, never held in memory whole."""

from __future__ import annotations

import tempfile
import zipfile
from typing import IO

from sqlalchemy.orm import Session

from agentchat.attachments.service import blob_of, get_attachment
from agentchat.attachments.store import BlobStore
from agentchat.chat import export as exporter
from agentchat.chat.export_markdown import attachment_path
from agentchat.chat.schemas import ExportBranch
from agentchat.chat.tables import ChatSession
from agentchat.chat.titles import attachment_header

SPOOL_BYTES = 1024 * 1024


def export_archive(
    db: Session, store: BlobStore, chat: ChatSession, branch: ExportBranch
) -> tuple[IO[bytes], str]:
    """The zip (a temporary file, at its start) and its Content-Disposition."""
    markdown = exporter.export_session(db, chat, "md", branch)
    as_json = exporter.export_session(db, chat, "json", branch)
    tree = exporter.load_tree(db, chat.id) if branch == "all" else exporter.load_branch(db, chat.id)
    out = tempfile.SpooledTemporaryFile(max_size=SPOOL_BYTES)  # noqa: SIM115 (closed by the response)
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("chat.md", markdown.body)
        archive.writestr("chat.json", as_json.body)
        written: set[str] = set()
        for message in tree.messages.values():
            for attachment in message.attachments:
                path = attachment_path(attachment)
                if path in written:
                    continue
                written.add(path)
                blob = blob_of(db, get_attachment(db, chat.id, attachment.id).blob_id)
                with archive.open(path, "w") as target:
                    for piece in store.chunks(blob.id, blob.size, db):
                        target.write(piece)
    out.seek(0)
    return out, attachment_header(chat.title, " (with files).zip", fallback=f"chat-{chat.id}")
