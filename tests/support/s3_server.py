"""A real S3-compatible server for the object-store tests: `moto_server` (moto's HTTP S3) in a
process of its own on a free loopback port; the store's boto3 client talks to it over HTTP."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import boto3
import httpx

KEY_ID, SECRET = "test-key", "test-secret"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class S3Server:
    def __init__(self, timeout: float = 60.0) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        moto = Path(sys.executable).with_name("moto_server")
        self.process = subprocess.Popen(
            [str(moto), "-H", "127.0.0.1", "-p", str(self.port)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + timeout
        while not self._answers():
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"moto_server did not answer on {self.url}")
            time.sleep(0.1)

    def _answers(self) -> bool:
        try:
            httpx.get(f"{self.url}/moto-api/", timeout=1)
        except httpx.HTTPError:
            return False
        return True

    def client(self) -> Any:
        return boto3.client(
            "s3",
            endpoint_url=self.url,
            region_name="us-east-1",
            aws_access_key_id=KEY_ID,
            aws_secret_access_key=SECRET,
        )

    def bucket(self, name: str) -> str:
        self.client().create_bucket(Bucket=name)
        return name

    def keys(self, bucket: str) -> list[str]:
        listed = self.client().list_objects_v2(Bucket=bucket)
        return sorted(o["Key"] for o in listed.get("Contents", []))

    def settings(self, bucket: str) -> dict[str, Any]:
        """The Settings fields of a store in `bucket` of this server."""
        return {
            "attachment_store": "s3",
            "s3_endpoint_url": self.url,
            "s3_bucket": bucket,
            "s3_access_key_id": KEY_ID,
            "s3_secret_access_key": SECRET,
            "s3_key_prefix": "att/",
        }

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def running() -> Iterator[S3Server]:
    server = S3Server()
    try:
        yield server
    finally:
        server.stop()
