"""Attachment bytes in an S3-compatible object store (`AGENTCHAT_ATTACHMENT_STORE=s3`): AWS
S3, MinIO, Ceph, R2... The `attachment_blob` row stays in the database; its bytes are the
object `PREFIX + CHAT/SHA256`: content-addressed within the chat, as the database store is
(nothing is shared between chats, so deleting one never touches another's bytes).

An object is written once, streamed from the spooled file (never held whole: botocore sends
a file body in pieces), with its SHA-256 for the store to check; it is not written again when
the store already holds it. Reads go out a CHUNK_BYTES at a time. Objects are deleted once the
transaction that removed their blob rows has committed (`forget`). A store that cannot be
reached is a 503 `object_store_unavailable`: the upload's transaction rolls back whole."""

from __future__ import annotations

import base64
import logging
from collections.abc import AsyncIterator, Iterator
from typing import Any, BinaryIO

import anyio
import boto3
from botocore.config import Config
from botocore.exceptions import BotoCoreError, ClientError
from sqlalchemy import select
from sqlalchemy.orm import Session

from agentchat.attachments.tables import CHUNK_BYTES, AttachmentBlob
from agentchat.core.database import Database
from agentchat.core.settings import Settings
from agentchat.protocol.errors import NotFound, ServiceUnavailable

log = logging.getLogger(__name__)

# An unreachable store answers within seconds, not after botocore's minute of retries.
CLIENT_CONFIG = Config(
    connect_timeout=5,
    read_timeout=30,
    retries={"max_attempts": 2, "mode": "standard"},
    # a checksum only where the operation needs one: some S3-compatible stores refuse others
    request_checksum_calculation="when_required",
    response_checksum_validation="when_required",
)


class ObjectStoreUnavailable(ServiceUnavailable):
    code = "object_store_unavailable"


def unavailable(exc: Exception) -> ObjectStoreUnavailable:
    return ObjectStoreUnavailable(
        f"The attachment store cannot be reached ({type(exc).__name__}); try again shortly. "
        "Nothing was stored."
    )


def s3_client(settings: Settings) -> Any:
    secret = settings.s3_secret_access_key
    return boto3.session.Session().client(
        "s3",
        endpoint_url=settings.s3_endpoint_url,
        region_name=settings.s3_region,
        aws_access_key_id=settings.s3_access_key_id,
        aws_secret_access_key=secret.get_secret_value() if secret else None,
        config=CLIENT_CONFIG,
    )


class S3BlobStore:
    def __init__(
        self,
        database: Database,
        client: Any,
        bucket: str,
        prefix: str = "",
        chunk_bytes: int = CHUNK_BYTES,
    ) -> None:
        self.database = database
        self.client = client
        self.bucket = bucket
        self.prefix = prefix
        self.chunk_bytes = chunk_bytes

    @classmethod
    def of(cls, database: Database, settings: Settings) -> S3BlobStore:
        assert settings.s3_bucket
        return cls(database, s3_client(settings), settings.s3_bucket, settings.s3_key_prefix)

    def key(self, session_id: int, digest: str) -> str:
        return f"{self.prefix}{session_id}/{digest}"

    def write(self, db: Session, blob: AttachmentBlob, source: BinaryIO) -> None:
        key = self.key(blob.session_id, blob.digest)
        try:
            if self._holds(key, blob.size):
                return
            self.client.put_object(
                Bucket=self.bucket,
                Key=key,
                Body=source,
                ContentLength=blob.size,
                ContentType="application/octet-stream",
                ChecksumSHA256=base64.b64encode(bytes.fromhex(blob.digest)).decode(),
            )
        except (BotoCoreError, ClientError) as exc:
            log.warning("attachment store: writing %s failed: %s", key, exc)
            raise unavailable(exc) from exc

    def _holds(self, key: str, size: int) -> bool:
        try:
            head = self.client.head_object(Bucket=self.bucket, Key=key)
        except ClientError as exc:
            if exc.response.get("Error", {}).get("Code") in ("404", "NoSuchKey", "NotFound"):
                return False
            raise
        return int(head.get("ContentLength", -1)) == size

    async def stream(self, blob_id: int, size: int) -> AsyncIterator[bytes]:
        body = await anyio.to_thread.run_sync(self._open, blob_id, None)
        try:
            while piece := await anyio.to_thread.run_sync(body.read, self.chunk_bytes):
                yield piece
        finally:
            body.close()

    def chunks(self, blob_id: int, size: int, db: Session | None = None) -> Iterator[bytes]:
        body = self._open(blob_id, db)
        try:
            while piece := body.read(self.chunk_bytes):
                yield piece
        finally:
            body.close()

    def _open(self, blob_id: int, db: Session | None) -> Any:
        if db is not None:
            key = self._key_of(db, blob_id)
        else:
            with self.database.session() as own:
                key = self._key_of(own, blob_id)
        try:
            return self.client.get_object(Bucket=self.bucket, Key=key)["Body"]
        except (BotoCoreError, ClientError) as exc:
            raise unavailable(exc) from exc

    def _key_of(self, db: Session, blob_id: int) -> str:
        blob = db.get(AttachmentBlob, blob_id)
        if blob is None:
            raise NotFound(f"the bytes of blob {blob_id} are gone")
        return self.key(blob.session_id, blob.digest)

    def forget(self, blobs: list[tuple[int, str]]) -> None:
        """Delete the objects of blob rows gone (committed), unless the chat stored the same
        bytes again meanwhile. A failure leaves an orphan object (logged), never a hole."""
        with self.database.session() as db:
            for session_id, digest in blobs:
                again = select(AttachmentBlob.id).where(
                    AttachmentBlob.session_id == session_id, AttachmentBlob.digest == digest
                )
                if db.scalar(again) is not None:
                    continue
                key = self.key(session_id, digest)
                try:
                    self.client.delete_object(Bucket=self.bucket, Key=key)
                except (BotoCoreError, ClientError) as exc:
                    log.warning("attachment store: %s stays (not deleted): %s", key, exc)
