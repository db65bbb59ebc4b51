"""Where attachment bytes live. The `attachment_blob` row (chat, digest, size) is always in the
database; the bytes are the store's. `DatabaseBlobStore` (the default) keeps them in
`attachment_chunk` rows of CHUNK_BYTES, so every API process reads them with no shared disk,
and they go with their chat's rows (and, on SQLite, out of the file: secure_delete and the
scrub after a deletion). An object store implements the same three calls."""

from __future__ import annotations

import hashlib
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import BinaryIO, Protocol

import anyio
from sqlalchemy import insert, select
from sqlalchemy.orm import Session

from agentchat.attachments.tables import CHUNK_BYTES, AttachmentBlob, AttachmentChunk
from agentchat.core.database import Database


class BlobStore(Protocol):
    """The bytes of blobs. `write` runs inside the transaction that inserts the blob row, so a
    blob is stored whole or not at all; `stream` reads in pieces of at most CHUNK_BYTES, each
    in a short transaction of its own; `forget` runs after the rows of deleted blobs are gone
    (an object store deletes their objects then; the database store has nothing left to do)."""

    def write(self, db: Session, blob: AttachmentBlob, source: BinaryIO) -> None: ...

    def stream(self, blob_id: int, size: int) -> AsyncIterator[bytes]: ...

    def chunks(self, blob_id: int, size: int, db: Session | None = None) -> Iterator[bytes]:
        """The same pieces, read on the calling thread (in `db`'s transaction when given: on
        SQLite a second transaction of the same thread would wait for the first)."""
        ...

    def forget(self, blob_ids: list[int]) -> None: ...


class DatabaseBlobStore:
    def __init__(self, database: Database, chunk_bytes: int = CHUNK_BYTES) -> None:
        self.database = database
        self.chunk_bytes = chunk_bytes

    def write(self, db: Session, blob: AttachmentBlob, source: BinaryIO) -> None:
        seq = 0
        while piece := source.read(self.chunk_bytes):
            # Core inserts: the session keeps no object per chunk (memory stays one chunk)
            db.execute(insert(AttachmentChunk), {"blob_id": blob.id, "seq": seq, "data": piece})
            seq += 1

    async def stream(self, blob_id: int, size: int) -> AsyncIterator[bytes]:
        for seq in range(chunk_count(size, self.chunk_bytes)):
            yield await anyio.to_thread.run_sync(self._chunk, blob_id, seq)

    def chunks(self, blob_id: int, size: int, db: Session | None = None) -> Iterator[bytes]:
        for seq in range(chunk_count(size, self.chunk_bytes)):
            if db is not None:
                yield _read_chunk(db, blob_id, seq)
            else:
                yield self._chunk(blob_id, seq)

    def _chunk(self, blob_id: int, seq: int) -> bytes:
        with self.database.session() as db:
            return _read_chunk(db, blob_id, seq)

    def forget(self, blob_ids: list[int]) -> None:
        return None


def _read_chunk(db: Session, blob_id: int, seq: int) -> bytes:
    stmt = select(AttachmentChunk.data).where(
        AttachmentChunk.blob_id == blob_id, AttachmentChunk.seq == seq
    )
    data = db.scalar(stmt)
    if data is None:
        raise LookupError(f"blob {blob_id} has no chunk {seq}")
    return bytes(data)


def store_for(database: Database) -> BlobStore:
    """The store the operator configured: the database (the only one this version has)."""
    return DatabaseBlobStore(database)


def chunk_count(size: int, chunk_bytes: int = CHUNK_BYTES) -> int:
    return -(-size // chunk_bytes)


def file_digest(path: Path) -> str:
    with path.open("rb") as source:
        return hashlib.file_digest(source, "sha256").hexdigest()


def _known(db: Session, session_id: int, digest: str) -> AttachmentBlob | None:
    stmt = select(AttachmentBlob).where(
        AttachmentBlob.session_id == session_id, AttachmentBlob.digest == digest
    )
    return db.scalar(stmt)


def held(db: Session, session_id: int, path: Path) -> bool:
    """Whether the chat already holds the bytes of the file at `path`."""
    return _known(db, session_id, file_digest(path)) is not None


def get_or_write_blob(db: Session, store: BlobStore, session_id: int, path: Path) -> AttachmentBlob:
    """The chat's blob of the file at `path`, written now unless the chat holds those bytes."""
    digest = file_digest(path)
    known = _known(db, session_id, digest)
    if known is not None:
        return known
    blob = AttachmentBlob(session_id=session_id, digest=digest, size=path.stat().st_size)
    db.add(blob)
    db.flush()
    with path.open("rb") as source:
        store.write(db, blob, source)
    return blob
