"""The form text is searched in: case folded, and accents dropped from Latin, Greek and Cyrillic
letters only (a Thai vowel sign or a Japanese voicing mark is part of the letter, not an accent)."""

from __future__ import annotations

import unicodedata

#: Combining marks after a base letter below this code point (Latin, Greek, Cyrillic) are accents.
_ACCENTED_SCRIPTS_END = 0x0530


def search_fold(text: str | None) -> str | None:
    """``text`` as the search index holds it: ``"Zürich"`` is ``"zurich"``, ``"北京"`` stays."""
    if text is None:
        return None
    if text.isascii():
        return text.lower()
    decomposed = unicodedata.normalize("NFD", text.casefold())
    kept: list[str] = []
    base = 0
    for char in decomposed:
        if unicodedata.combining(char):
            if base < _ACCENTED_SCRIPTS_END:
                continue
        else:
            base = ord(char)
        kept.append(char)
    return unicodedata.normalize("NFC", "".join(kept)).replace("ł", "l").replace("ø", "o").replace("đ", "d")
