"""Entity names: the normalized form aliases are matched on."""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from ledger.errors import InvalidInput

MAX_NAME_LENGTH = 1000
_SPACES = re.compile(r"\s+")


@lru_cache(maxsize=65536)
def normalize_name(name: str) -> str:
    """Fold a name for matching: NFKC, casefold, accents, punctuation and invisible chars dropped,
    whitespace collapsed. ``"  Łódź–Kaliska "`` and ``"lodz kaliska"`` fold alike.
    """
    if name.isascii():  # the common case, in one C-speed pass
        return " ".join(name.lower().translate(_ASCII).split())
    return fold_unicode(name)


def fold_unicode(name: str) -> str:
    """The general form of ``normalize_name``, character by character."""
    folded = unicodedata.normalize("NFKC", name).casefold()
    decomposed = unicodedata.normalize("NFKD", folded)
    kept: list[str] = []
    for char in decomposed:
        category = unicodedata.category(char)
        if category == "Mn" or category == "Cf":  # accents; zero-width and other format chars
            continue
        if char in _DROPPED:  # "J.P." is "JP", "O'Brien" is "OBrien"
            continue
        if category.startswith("P") or category.startswith("Z") or category == "Cc":
            kept.append(" ")
            continue
        kept.append(_FOLD.get(char, char))
    return _SPACES.sub(" ", "".join(kept)).strip()


_DROPPED = frozenset(".'’ʼ`´")
_ASCII = {ord(c): None for c in ".'`"} | {
    ord(c): " " for c in "!\"#%&()*,-/:;?@[\\]_{}" + "".join(map(chr, range(32))) + "\x7f"
}
# Letters that NFKD does not decompose into base + accent.
_FOLD = {"ł": "l", "ø": "o", "đ": "d", "ß": "ss", "æ": "ae", "œ": "oe", "ı": "i", "þ": "th", "ð": "d"}


def check_name(name: object, *, what: str = "entity name") -> str:
    """Return a usable name or raise InvalidInput saying what is wrong with it."""
    if not isinstance(name, str):
        raise InvalidInput(f"{what} must be a string, not {type(name).__name__}")
    if "\x00" in name:
        raise InvalidInput(f"{what} {name[:40]!r} contains a NUL byte; remove it")
    if len(name) > MAX_NAME_LENGTH:
        raise InvalidInput(f"{what} is {len(name)} characters long; the limit is {MAX_NAME_LENGTH}")
    if not normalize_name(name):
        raise InvalidInput(f"{what} {name!r} is empty once spaces and punctuation are removed; give a real name")
    return name.strip()
