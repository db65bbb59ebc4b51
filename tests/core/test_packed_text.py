"""Long texts deflated for SQLite: what goes in comes out, whatever it is."""

from __future__ import annotations

import os
import zlib

import pytest

from agentchat.core.database.packed_text import DEFLATE, MIN_BYTES, pack, unpack

TEXTS = [
    "The agent looked at the skills, then answered. " * 20,
    "Émoji 🧭 and accents: déjà vu, naïve, Ørsted. " * 10,
    "line one\nline two\r\n\ttabbed \x00 nul and \u2028 separators " * 8,
    '{"role": "tool", "content": "' + "x" * 5000 + '"}',
]


@pytest.mark.parametrize("text", TEXTS)
def test_a_long_text_is_deflated_and_read_back_exactly(text: str) -> None:
    stored = pack(text)
    assert isinstance(stored, bytes) and stored[:1] == DEFLATE
    assert len(stored) < len(text.encode())
    assert unpack(stored) == text


def test_short_or_incompressible_text_is_stored_as_it_is() -> None:
    short = "x" * (MIN_BYTES - 1)
    noise = "".join(chr(33 + b % 94) for b in os.urandom(MIN_BYTES + 8))  # saves < a tenth
    assert pack(short) is short
    assert pack(noise) is noise
    assert unpack(short) == short and unpack(None) is None


def test_a_lone_surrogate_is_left_to_the_driver() -> None:
    text = "a" * 300 + "\ud800"
    assert pack(text) is text


def test_a_blob_that_is_not_ours_is_shown_not_lost() -> None:
    assert unpack(b"plain bytes \xe2\x9c\x93") == "plain bytes ✓"
    assert unpack(DEFLATE + b"not deflate at all") == "\x01not deflate at all"
    broken = DEFLATE + zlib.compress(b"cut")[2:-6] + b"\xff"
    assert isinstance(unpack(broken), str)
