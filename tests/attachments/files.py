"""Files to attach, made here: images with EXIF and GPS, documents with known text."""

from __future__ import annotations

import hashlib
import io
import zlib

import docx
from PIL import Image
from pypdf import PdfWriter
from pypdf.generic import DecodedStreamObject, DictionaryObject, NameObject


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def jpeg_with_gps(size: tuple[int, int] = (64, 48), colour: str = "red") -> bytes:
    """A JPEG whose EXIF names a camera and a place (GPS)."""
    image = Image.new("RGB", size, colour)
    exif = Image.Exif()
    exif[0x010F] = "SpyCam"  # Make
    gps = {1: "N", 2: (48.0, 51.0, 24.0), 3: "E", 4: (2.0, 17.0, 40.0)}
    exif[0x8825] = gps  # GPSInfo
    out = io.BytesIO()
    image.save(out, "JPEG", exif=exif.tobytes())
    return out.getvalue()


def png(size: tuple[int, int] = (40, 30), colour: str = "blue") -> bytes:
    out = io.BytesIO()
    Image.new("RGB", size, colour).save(out, "PNG")
    return out.getvalue()


def png_bomb(side: int = 20_000) -> bytes:
    """A tiny PNG that declares side x side pixels (400 megapixels): a decompression bomb."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return len(data).to_bytes(4, "big") + body + zlib.crc32(body).to_bytes(4, "big")

    header = side.to_bytes(4, "big") * 2 + bytes([1, 0, 0, 0, 0])  # 1-bit grey
    row = b"\x00" + b"\x00" * (side // 8)
    compressor = zlib.compressobj(9)
    data = b"".join(compressor.compress(row) for _ in range(side)) + compressor.flush()
    return (
        b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", data) + chunk(b"IEND", b"")
    )


def pdf_with_text(lines: list[str]) -> bytes:
    """A one-page PDF whose content stream writes `lines` (pypdf reads them back)."""
    writer = PdfWriter()
    page = writer.add_blank_page(width=612, height=792)
    font = DictionaryObject(
        {
            NameObject("/Type"): NameObject("/Font"),
            NameObject("/Subtype"): NameObject("/Type1"),
            NameObject("/BaseFont"): NameObject("/Helvetica"),
        }
    )
    page[NameObject("/Resources")] = DictionaryObject(
        {NameObject("/Font"): DictionaryObject({NameObject("/F1"): writer._add_object(font)})}
    )
    ops = "".join(
        f"BT /F1 12 Tf 72 {720 - 20 * i} Td ({line}) Tj ET\n" for i, line in enumerate(lines)
    )
    stream = DecodedStreamObject()
    stream.set_data(ops.encode())
    page[NameObject("/Contents")] = writer._add_object(stream)
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def docx_with_text(paragraphs: list[str]) -> bytes:
    document = docx.Document()
    for paragraph in paragraphs:
        document.add_paragraph(paragraph)
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()
