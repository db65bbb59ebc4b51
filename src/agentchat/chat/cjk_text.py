"""Scripts written without spaces between words: Chinese, Japanese and Korean.

Every full-text index takes a whole sentence of them for one word, so search matches a word of
these scripts as a substring of the stored text (`chat.search`), and a message holding any of
them is stored as it is, never deflated (`chat.tables`): SQL's LIKE reads the column itself.
"""

from __future__ import annotations

import re

# Han (with its extensions and compatibility forms), kana and Hangul syllables.
UNSPACED = re.compile(
    "[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af\U00020000-\U0003134f]"
)


def has_unspaced_script(text: str) -> bool:
    return not text.isascii() and UNSPACED.search(text) is not None
