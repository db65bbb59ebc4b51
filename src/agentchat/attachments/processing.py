"""Opening an upload in a child process (`worker.py`) with its memory and CPU capped and a
time limit: the API's own memory never holds a decoded image or a document's parse tree, and
a file built to exhaust a decoder ends the child with a clear refusal."""

from __future__ import annotations

import asyncio
import json
import resource
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agentchat.protocol.errors import Invalid

MEMORY_BYTES = 1536 * 1024 * 1024  # address space of the child
CPU_S = 60
WALL_S = 90.0
MAX_PIXELS = 50_000_000  # a 50-megapixel photo; Pillow refuses a bomb past it
MAX_TEXT_CHARS = 5_000_000  # a document's text is cut here (a hint says so)
_REFUSED = 3


@dataclass(frozen=True)
class ImageResult:
    width: int
    height: int


@dataclass(frozen=True)
class TextResult:
    chars: int
    truncated: bool


async def reencode_image(src: Path, fmt: str, dst: Path, thumb: Path) -> ImageResult:
    out = await _run(["image", str(src), fmt, str(dst), str(thumb), str(MAX_PIXELS)])
    return ImageResult(int(out["width"]), int(out["height"]))


async def extract_text(src: Path, media_type: str, dst: Path) -> TextResult:
    out = await _run(["text", str(src), media_type, str(dst), str(MAX_TEXT_CHARS)])
    return TextResult(int(out["chars"]), bool(out["truncated"]))


def _limits() -> None:  # in the child, before it runs Python
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_BYTES, MEMORY_BYTES))
    resource.setrlimit(resource.RLIMIT_CPU, (CPU_S, CPU_S))


async def _run(args: list[str]) -> dict[str, Any]:
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-I",  # isolated: no user site, no PYTHON* variables, no current folder on the path
        "-m",
        "agentchat.attachments.worker",
        *args,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        preexec_fn=_limits,
    )
    try:
        async with asyncio.timeout(WALL_S):
            stdout, stderr = await process.communicate()
    except TimeoutError:
        process.kill()
        await process.wait()
        raise Invalid("The file took too long to open; it was not stored.") from None
    if process.returncode == 0:
        return dict(json.loads(stdout.decode().strip().splitlines()[-1]))
    reason = _last_line(stderr) if process.returncode == _REFUSED else ""
    raise Invalid(
        f"The file cannot be opened: {reason or 'it is damaged or too large to open'}; "
        "it was not stored.",
        code="unreadable_file",
    )


def _last_line(stderr: bytes) -> str:
    lines = stderr.decode(errors="replace").strip().splitlines()
    return lines[-1][:300] if lines else ""
