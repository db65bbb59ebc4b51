"""Where attachment bytes live. The `attachment_blob` row (chat, digest, size) is always in the
database; the bytes are the store's. `DatabaseBlobStore` (the default) keeps them in
`attachment_chunk` rows of CHUNK_BYTES, so every API process reads them with no shared disk,
and they go with their chat's rows (and, on SQLite, out of the file: secure_delete and the
scrub after a deletion). `object_store.S3BlobStore` implements the same calls on an
S3-compatible object store."""

from __future__ import annotations

import hashlib
import logging
import sqlite3
import weakref
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import BinaryIO, Protocol

import anyio
from sqlalchemy import Engine, event, func, insert, select
from sqlalchemy.orm import Session

from agentchat.attachments.tables import CHUNK_BYTES, AttachmentBlob, AttachmentChunk
from agentchat.core.database import Database
from agentchat.core.settings import Settings

log = logging.getLogger(__name__)


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

    def forget(self, blobs: list[tuple[int, str]]) -> None:
        """The (chat, digest) of blob rows whose deletion has committed."""
        ...


# What is read from a file or written to a chunk at a time: a quarter of a chunk, so that
# writing a blob holds far less than a chunk (on SQLite; see DatabaseBlobStore.write).
PIECE_BYTES = 64 * 1024


class DatabaseBlobStore:
    def __init__(self, database: Database, chunk_bytes: int = CHUNK_BYTES) -> None:
        self.database = database
        self.chunk_bytes = chunk_bytes

    def write(self, db: Session, blob: AttachmentBlob, source: BinaryIO) -> None:
        if db.get_bind().dialect.name == "sqlite":
            self._write_sqlite(db, blob, source)
            return
        seq = 0
        while piece := source.read(self.chunk_bytes):
            # Core inserts: the session keeps no object per chunk (memory stays one chunk)
            db.execute(insert(AttachmentChunk), {"blob_id": blob.id, "seq": seq, "data": piece})
            seq += 1

    def _write_sqlite(self, db: Session, blob: AttachmentBlob, source: BinaryIO) -> None:
        """Each chunk row inserted as zeros of its size, then filled through SQLite's
        incremental blob I/O a PIECE_BYTES at a time: neither the driver's copy of a bound
        value nor SQLite's record of it (a chunk each) is ever made."""
        connection = db.connection()
        raw = connection.connection.driver_connection
        assert isinstance(raw, sqlite3.Connection)
        remaining, seq = blob.size, 0
        while remaining > 0:
            size = min(self.chunk_bytes, remaining)
            zeros = {"blob_id": blob.id, "seq": seq, "data": func.zeroblob(size)}
            row = connection.execute(insert(AttachmentChunk).values(zeros))
            with raw.blobopen("attachment_chunk", "data", row.lastrowid) as chunk:
                filled = 0
                while filled < size:
                    piece = source.read(min(PIECE_BYTES, size - filled))
                    if not piece:
                        raise ValueError(f"blob {blob.id}: the file ended before {blob.size} bytes")
                    chunk.write(piece)
                    filled += len(piece)
            remaining -= size
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

    def forget(self, blobs: list[tuple[int, str]]) -> None:
        return None


def _read_chunk(db: Session, blob_id: int, seq: int) -> bytes:
    stmt = select(AttachmentChunk.data).where(
        AttachmentChunk.blob_id == blob_id, AttachmentChunk.seq == seq
    )
    data = db.scalar(stmt)
    if data is None:
        raise LookupError(f"blob {blob_id} has no chunk {seq}")
    return bytes(data)


# The store each database's attachments are in, where it is not the database itself (set
# when the app is made, `configure_store`); keyed by engine, which a transaction also knows.
_STORES: weakref.WeakKeyDictionary[Engine, BlobStore] = weakref.WeakKeyDictionary()


def configure_store(database: Database, settings: Settings) -> BlobStore:
    """The store the operator configured (`AGENTCHAT_ATTACHMENT_STORE`), for this database."""
    if settings.attachment_store == "s3":
        from agentchat.attachments.object_store import S3BlobStore  # boto3: only when used

        _STORES[database.engine] = S3BlobStore.of(database, settings)
    else:
        _STORES.pop(database.engine, None)
    return store_for(database)


def store_for(database: Database) -> BlobStore:
    """The store the operator configured: the database unless `configure_store` said else."""
    return _STORES.get(database.engine) or DatabaseBlobStore(database)


def forget_after_commit(db: Session, blobs: list[tuple[int, str]]) -> None:
    """Once `db`'s transaction commits, the store deletes the bytes of these (chat, digest)
    blobs, whose rows it deleted (nothing, for the database store: they went with the rows)."""
    bind = db.get_bind()
    store = _STORES.get(bind) if isinstance(bind, Engine) else None
    if store is None or not blobs:
        return

    def committed(_: Session) -> None:
        try:
            store.forget(blobs)
        except Exception:  # an orphan object, never a failed deletion of the chat
            log.exception("attachment store: forgetting %d blobs failed", len(blobs))

    event.listen(db, "after_commit", committed, once=True)


def chunk_count(size: int, chunk_bytes: int = CHUNK_BYTES) -> int:
    return -(-size // chunk_bytes)


def file_digest(path: Path) -> str:
    digest, buffer = hashlib.sha256(), bytearray(PIECE_BYTES)
    with path.open("rb", buffering=0) as source:
        while got := source.readinto(buffer):
            digest.update(memoryview(buffer)[:got])
    return digest.hexdigest()


def _known(db: Session, session_id: int, digest: str) -> AttachmentBlob | None:
    stmt = select(AttachmentBlob).where(
        AttachmentBlob.session_id == session_id, AttachmentBlob.digest == digest
    )
    return db.scalar(stmt)


def held(db: Session, session_id: int, path: Path, digest: str | None = None) -> bool:
    """Whether the chat already holds the bytes of the file at `path` (of `digest`, when the
    caller knows it)."""
    return _known(db, session_id, digest or file_digest(path)) is not None


def get_or_write_blob(
    db: Session, store: BlobStore, session_id: int, path: Path, digest: str | None = None
) -> AttachmentBlob:
    """The chat's blob of the file at `path` (whose sha256 is `digest`, when the caller knows
    it), written now unless the chat holds those bytes."""
    digest = digest or file_digest(path)
    known = _known(db, session_id, digest)
    if known is not None:
        return known
    blob = AttachmentBlob(session_id=session_id, digest=digest, size=path.stat().st_size)
    db.add(blob)
    db.flush()
    with path.open("rb") as source:
        store.write(db, blob, source)
    return blob
