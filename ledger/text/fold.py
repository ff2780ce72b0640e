"""The form text is searched in: case folded, and accents dropped from Latin, Greek and Cyrillic
letters (a Thai vowel sign or a Japanese voicing mark is part of the letter, not an accent)."""

from __future__ import annotations

import re
import unicodedata

# The combining diacritical marks block: the accents of Latin, Greek and Cyrillic letters once
# decomposed. Marks of other scripts (Thai U+0E31…, kana voicing U+3099…) are outside it.
_ACCENTS = re.compile("[\u0300-\u036f]+")


def search_fold(text: str | None) -> str | None:
    """``text`` as the search index holds it: ``"Zürich"`` is ``"zurich"``, ``"北京"`` stays."""
    if text is None:
        return None
    if text.isascii():
        return text.lower()
    decomposed = unicodedata.normalize("NFD", text.casefold())
    folded = unicodedata.normalize("NFC", _ACCENTS.sub("", decomposed))
    return folded.replace("ł", "l").replace("ø", "o").replace("đ", "d").replace("ħ", "h") if "ł" in folded or "ø" in folded or "đ" in folded or "ħ" in folded else folded
