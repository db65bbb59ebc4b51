"""The child process that opens an uploaded file: an image decoded and re-encoded with Pillow
(EXIF, GPS and text chunks dropped, turned upright, decompression bombs refused) with its
thumbnail, or a document's text extracted with its library (pypdf, python-docx, openpyxl,
python-pptx). A file made to crash or exhaust a decoder takes down this child (its memory and
CPU are capped by `processing.py`), never the API.

    python -m agentchat.attachments.worker image SRC FORMAT DST THUMB MAX_PIXELS
    python -m agentchat.attachments.worker text SRC MEDIA_TYPE DST MAX_CHARS

Prints one JSON line; a file it refuses exits 3 with the reason as its last line of stderr.
"""

from __future__ import annotations

import json
import sys
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

THUMB_PX = 320
JPEG_QUALITY = 90
EXIT_REFUSED = 3


class Refused(Exception):
    """The file is not what it claims, or too much to open."""


def reencode(src: Path, fmt: str, dst: Path, thumb: Path, max_pixels: int) -> dict[str, Any]:
    from PIL import Image, ImageOps

    Image.MAX_IMAGE_PIXELS = max_pixels
    warnings.simplefilter("error", Image.DecompressionBombWarning)
    try:
        with Image.open(src) as image:
            frames = [_clean(ImageOps.exif_transpose(f.copy())) for f in _frames(image, fmt)]
            duration, loop = image.info.get("duration"), image.info.get("loop", 0)
    except (Image.DecompressionBombError, Image.DecompressionBombWarning) as exc:
        raise Refused(f"the image has too many pixels (more than {max_pixels:,})") from exc
    except (OSError, SyntaxError, ValueError) as exc:
        raise Refused(f"the image cannot be read ({exc})") from exc
    first = frames[0]
    if fmt == "GIF" and len(frames) > 1:
        first.save(
            dst, "GIF", save_all=True, append_images=frames[1:], duration=duration, loop=loop
        )
    else:
        _save(first, fmt, dst)
    _thumbnail(first, thumb)
    return {"width": first.width, "height": first.height}


def _frames(image: Any, fmt: str) -> Iterator[Any]:
    from PIL import ImageSequence

    if fmt == "GIF":
        yield from ImageSequence.Iterator(image)
    else:
        image.seek(0)
        yield image


def _clean(frame: Any) -> Any:
    """The pixels only: no EXIF (GPS), comments or text chunks travel into the new file."""
    frame.info = {k: v for k, v in frame.info.items() if k in ("transparency", "icc_profile")}
    return frame


def _save(image: Any, fmt: str, dst: Path) -> None:
    extra: dict[str, Any] = {"icc_profile": image.info.get("icc_profile")}
    if fmt == "JPEG":
        if image.mode not in ("RGB", "L"):
            image = image.convert("RGB")
        extra |= {"quality": JPEG_QUALITY}
    elif fmt == "WEBP":
        extra |= {"quality": JPEG_QUALITY}
    elif fmt == "PNG" and image.mode not in ("1", "L", "LA", "P", "RGB", "RGBA", "I;16"):
        image = image.convert("RGBA")
    image.save(dst, fmt, **{k: v for k, v in extra.items() if v is not None})


def _thumbnail(image: Any, thumb: Path) -> None:
    small = image.copy()
    small.thumbnail((THUMB_PX, THUMB_PX))
    small = small.convert("RGBA" if "A" in small.getbands() or small.mode == "P" else "RGB")
    small.save(thumb, "WEBP", quality=75)


def extract(src: Path, media_type: str, dst: Path, max_chars: int) -> dict[str, Any]:
    """The document's text, in reading order, into `dst` (UTF-8), cut at `max_chars`."""
    reader = _READERS.get(media_type)
    if reader is None:
        raise Refused(f"no text reader for {media_type}")
    chars, truncated = 0, False
    with dst.open("w", encoding="utf-8", errors="replace") as out:
        try:
            for raw in reader(src):
                piece = raw.replace("\x00", "")  # no database stores a NUL
                if chars + len(piece) > max_chars:
                    out.write(piece[: max_chars - chars])
                    chars, truncated = max_chars, True
                    break
                out.write(piece)
                chars += len(piece)
        except Refused:
            raise
        except Exception as exc:  # a broken or hostile document: its library's words
            raise Refused(f"its text cannot be read ({type(exc).__name__}: {exc})") from exc
    return {"chars": chars, "truncated": truncated}


def _pdf(src: Path) -> Iterator[str]:
    from pypdf import PdfReader

    reader = PdfReader(src)
    if reader.is_encrypted and not reader.decrypt(""):
        raise Refused("the PDF is protected by a password")
    for number, page in enumerate(reader.pages, start=1):
        yield f"--- page {number} ---\n{page.extract_text() or ''}\n\n"


def _docx(src: Path) -> Iterator[str]:
    import docx

    document = docx.Document(str(src))
    for paragraph in document.paragraphs:
        yield paragraph.text + "\n"
    for table in document.tables:
        for row in table.rows:
            yield "\t".join(cell.text for cell in row.cells) + "\n"


def _xlsx(src: Path) -> Iterator[str]:
    import openpyxl

    workbook = openpyxl.load_workbook(src, read_only=True, data_only=True)
    try:
        for sheet in workbook.worksheets:
            yield f"--- sheet {sheet.title} ---\n"
            for row in sheet.iter_rows(values_only=True):
                yield "\t".join("" if v is None else str(v) for v in row) + "\n"
    finally:
        workbook.close()


def _pptx(src: Path) -> Iterator[str]:
    import pptx

    presentation = pptx.Presentation(str(src))
    for number, slide in enumerate(presentation.slides, start=1):
        yield f"--- slide {number} ---\n"
        for shape in slide.shapes:
            if shape.has_text_frame:
                yield shape.text_frame.text + "\n"


_READERS = {
    "application/pdf": _pdf,
    "application/vnd.openxmlformats-officedocument.wordprocessingml.document": _docx,
    "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet": _xlsx,
    "application/vnd.openxmlformats-officedocument.presentationml.presentation": _pptx,
}


def main(argv: list[str]) -> int:
    try:
        if argv[0] == "image":
            src, fmt, dst, thumb, max_pixels = argv[1:6]
            result = reencode(Path(src), fmt, Path(dst), Path(thumb), int(max_pixels))
        elif argv[0] == "text":
            src, media_type, dst, max_chars = argv[1:5]
            result = extract(Path(src), media_type, Path(dst), int(max_chars))
        else:
            raise Refused(f"unknown job {argv[0]!r}")
    except Refused as exc:
        print(str(exc), file=sys.stderr)
        return EXIT_REFUSED
    except MemoryError:
        print("it needs more memory to open than a file may take", file=sys.stderr)
        return EXIT_REFUSED
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
