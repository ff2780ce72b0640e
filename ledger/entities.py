"""Entity names: the normalized form aliases are matched on."""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from ledger.errors import InvalidInput

MAX_NAME_LENGTH = 1000
#: PostgreSQL refuses a btree index row over 2,704 bytes, and the aliases' unique index holds a
#: scope and a folded name (``normalize_name``): a name's folded form is at most this many bytes of
#: UTF-8 (1,000 Latin or Cyrillic letters; 666 Chinese characters; 222 Hangul syllables, which fold
#: to three jamo each), so that with a scope of at most ``validate.MAX_SCOPE_BYTES`` (400) the row
#: stays under the limit on every backend.
MAX_NAME_BYTES = 2000
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
    # Printable ASCII holds nothing check_text refuses: the common case, checked in C.
    if not (type(name) is str and name.isascii() and name.isprintable() and len(name) <= MAX_NAME_LENGTH):
        check_text(name, what=what, limit=MAX_NAME_LENGTH)
    assert isinstance(name, str)
    folded = normalize_name(name)
    if not folded:
        raise InvalidInput(f"{what} {name!r} is empty once spaces and punctuation are removed; give a real name")
    # Folding can lengthen a name: "Ⅷ" is "viii", "한" three jamo of 3 bytes each, "ﷺ" 18 characters.
    if len(folded) * 4 > MAX_NAME_BYTES:
        size = len(folded) if folded.isascii() else len(folded.encode("utf-8"))
        if size > MAX_NAME_BYTES:
            raise InvalidInput(
                f"{what} {quoted(name)} folds to {size} bytes of UTF-8 (the form "
                f"names are matched on, see normalize_name); the limit is {MAX_NAME_BYTES} bytes, as many as "
                f"666 Chinese characters or 222 Hangul syllables; shorten it"
            )
    return name.strip()


# Control characters (C0, DEL, C1) and the Unicode line and paragraph separators: never part of
# a one-line label, and in a terminal they can rewrite what is shown (ANSI escapes, "\r").
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]")
_SURROGATE = re.compile("[\ud800-\udfff]")


# Characters that change how a label looks (or nothing at all) but not what it says: zero-width
# space, word joiner, byte-order mark, soft hyphen, Mongolian vowel separator, direction marks and
# embeddings. (Zero-width (non-)joiners stay: Persian and Indic spelling needs them.)
_NOISE = re.compile("[\u00ad\u180e\u200b\u200e\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]")


def canonical_label(text: str) -> str:
    """A label as stored and matched: NFC, invisible noise dropped, each run of whitespace (no-break
    spaces included) one space, no space at the ends. ``"rent\u00a0 due\u200b"`` is ``"rent due"``."""
    if text.isascii():
        return " ".join(text.split())
    return " ".join(_NOISE.sub("", unicodedata.normalize("NFC", text)).split())


def quoted(value: str, limit: int = 40) -> str:
    """How an error message quotes a value that may be long: its first ``limit`` characters as a
    Python literal, then "…" if there is more."""
    return f"{value[:limit]!r}{'…' if len(value) > limit else ''}"


def check_text(value: object, *, what: str, limit: int | None = None, one_line: bool = True) -> str:
    """Return ``value`` if it is text the ledger can store, else raise InvalidInput.

    Storable text is a str without NUL bytes (PostgreSQL refuses them) and without lone
    surrogates (they cannot be encoded as UTF-8); ``one_line`` labels (names, predicates,
    scopes, actors, kinds) also refuse control characters and line breaks.
    """
    if not isinstance(value, str):
        raise InvalidInput(f"{what} must be a string, not {type(value).__name__}")
    if limit is not None and len(value) > limit:
        raise InvalidInput(f"{what} is {len(value)} characters long; the limit is {limit}")
    problem = text_problem(value, one_line=one_line)
    if problem is not None:
        raise InvalidInput(f"{what} {quoted(value)} {problem}")
    return value


def check_utf8_size(value: str, *, what: str, limit: int, hint: str = "shorten it") -> str:
    """Return ``value`` (text check_text accepted) if it is at most ``limit`` bytes of UTF-8, else
    raise InvalidInput: PostgreSQL indexes rows of at most 2,704 bytes, counted in bytes, not characters."""
    if len(value) * 4 > limit:  # no character takes more than 4 bytes
        size = len(value.encode("utf-8", "surrogatepass"))
        if size > limit:
            raise InvalidInput(f"{what} {quoted(value)} is {size} bytes long in "
                               f"UTF-8; the limit is {limit} bytes; {hint}")
    return value


def text_problem(value: str, *, one_line: bool = False) -> str | None:
    """Why ``value`` cannot be stored (as a one-line label), or None when it can."""
    if "\x00" in value:
        return "contains a NUL byte; remove it"
    if value.isascii():
        found = _CONTROL.search(value) if one_line else None
    else:
        surrogate = _SURROGATE.search(value)
        if surrogate is not None:
            return (f"contains the lone surrogate {surrogate.group()!r} at position {surrogate.start()}, which "
                    f"is not valid Unicode; decode the original bytes properly (or with errors='replace')")
        found = _CONTROL.search(value) if one_line else None
    if found is not None:
        return (f"contains the control character {found.group()!r} at position {found.start()}; "
                f"it must be one line of printable text")
    return None
